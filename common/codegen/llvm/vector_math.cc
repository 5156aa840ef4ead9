// float32 exp, log, erf and tanh as straight-line IR. The polynomial coefficients
// come from vector_math_fit.py (run it to refit); each fit's error is far
// below float's half ulp, so rounding in the evaluation sets the accuracy.
#include "common/codegen/llvm/vector_math.h"

#include <initializer_list>
#include <iterator>
#include <limits>

#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"

namespace tuneforge::codegen {
namespace {

llvm::Value* Splat(llvm::Value* like, float value) {
  return llvm::ConstantFP::get(like->getType(), value);
}

llvm::Value* MulAdd(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* y, llvm::Value* z) {
  return b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {x->getType()}, {x, y, z});
}

// c[0] + c[1] v + c[2] v^2 + ... by Horner's rule.
llvm::Value* Polynomial(llvm::IRBuilderBase& b, llvm::Value* v, std::initializer_list<float> c) {
  auto coefficient = std::rbegin(c);
  llvm::Value* sum = Splat(v, *coefficient);
  for (++coefficient; coefficient != std::rend(c); ++coefficient) {
    sum = MulAdd(b, sum, v, Splat(v, *coefficient));
  }
  return sum;
}

llvm::Value* Clamp(llvm::IRBuilderBase& b, llvm::Value* x, float lo, float hi) {
  // minnum/maxnum return the number where one operand is NaN: the callers
  // restore NaN at the end, and no NaN reaches an integer conversion.
  llvm::Value* above = b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, x, Splat(x, lo));
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, above, Splat(x, hi));
}

llvm::Value* KeepNaN(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* result) {
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, result);
}

// 2^n for integer n in [-75, 64] (vector of i32 like the floats): (n + 127) << 23.
llvm::Value* PowerOfTwo(llvm::IRBuilderBase& b, llvm::Value* n, llvm::Type* float_type) {
  llvm::Value* bias = llvm::ConstantInt::get(n->getType(), 127);
  llvm::Value* bits = b.CreateShl(b.CreateAdd(n, bias), llvm::ConstantInt::get(n->getType(), 23));
  return b.CreateBitCast(bits, float_type);
}

}  // namespace

llvm::Value* EmitExpF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  // exp(x) = 2^n * exp(r), n = round(x / ln2), |r| <= ln2/2, ln2 split in a
  // high part exact in float and the rest (Cody and Waite) so r keeps its bits.
  // Beyond the clamp the result is 0 or inf anyway; inside it n is in
  // [-150, 128] and 2^n is applied as two normal powers, so results below
  // FLT_MIN come out as denormals and those above FLT_MAX as inf.
  llvm::Value* xc = Clamp(b, x, -104.0f, 88.8f);
  llvm::Value* n = b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven,
                                          b.CreateFMul(xc, Splat(x, 1.44269504f)));
  llvm::Value* r = MulAdd(b, n, Splat(x, -0.693359375f), xc);
  r = MulAdd(b, n, Splat(x, 2.12194440e-4f), r);
  llvm::Value* p = Polynomial(b, r, {4.9999994e-01f, 1.6666521e-01f, 4.166839e-02f, 8.368713e-03f,
                                     1.3814621e-03f});
  llvm::Value* exp_r = MulAdd(b, b.CreateFMul(r, r), p, b.CreateFAdd(r, Splat(x, 1.0f)));

  llvm::Type* int_type = x->getType()->getWithNewType(b.getInt32Ty());
  llvm::Value* whole = b.CreateFPToSI(n, int_type);
  llvm::Value* half = b.CreateAShr(whole, llvm::ConstantInt::get(int_type, 1));
  llvm::Value* scaled = b.CreateFMul(exp_r, PowerOfTwo(b, half, x->getType()));
  scaled = b.CreateFMul(scaled, PowerOfTwo(b, b.CreateSub(whole, half), x->getType()));
  return KeepNaN(b, x, scaled);
}

llvm::Value* EmitLogF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  // x = 2^e * m with m in [sqrt(1/2), sqrt(2)), read off the bits (denormals
  // scaled by 2^23 first); log x = e ln2 + log(1 + f), f = m - 1 (exact).
  llvm::Type* int_type = x->getType()->getWithNewType(b.getInt32Ty());
  auto int_splat = [&](int32_t v) { return llvm::ConstantInt::get(int_type, v); };
  llvm::Value* denormal = b.CreateFCmpOLT(x, Splat(x, 1.17549435e-38f));
  llvm::Value* normal = b.CreateSelect(denormal, b.CreateFMul(x, Splat(x, 8388608.0f)), x);
  llvm::Value* bits = b.CreateBitCast(normal, int_type);
  // Subtracting the bits of sqrt(1/2) moves the exponent's boundary there.
  llvm::Value* shifted = b.CreateSub(bits, int_splat(0x3f3504f3));
  llvm::Value* exponent = b.CreateAShr(shifted, int_splat(23));
  llvm::Value* m = b.CreateBitCast(
      b.CreateAdd(b.CreateAnd(shifted, int_splat(0x007fffff)), int_splat(0x3f3504f3)), x->getType());
  llvm::Value* e = b.CreateSIToFP(exponent, x->getType());
  e = b.CreateSelect(denormal, b.CreateFSub(e, Splat(x, 23.0f)), e);
  llvm::Value* f = b.CreateFSub(m, Splat(x, 1.0f));
  llvm::Value* f2 = b.CreateFMul(f, f);
  llvm::Value* p = Polynomial(b, f, {3.333333e-01f, -2.5000823e-01f, 2.0001227e-01f, -1.6623354e-01f,
                                     1.4201747e-01f, -1.3160208e-01f, 1.2761678e-01f, -7.634558e-02f});
  // f - f^2/2 + f^3 P + e ln2, ln2 split as in exp, small terms first.
  llvm::Value* tail = MulAdd(b, b.CreateFMul(f2, f), p, b.CreateFMul(e, Splat(x, -2.12194440e-4f)));
  llvm::Value* log1p = b.CreateFAdd(MulAdd(b, f2, Splat(x, -0.5f), tail), f);
  llvm::Value* result = MulAdd(b, e, Splat(x, 0.693359375f), log1p);
  // log 0 = -inf, log of a negative number NaN, log inf = inf.
  llvm::Value* inf = Splat(x, std::numeric_limits<float>::infinity());
  result = b.CreateSelect(b.CreateFCmpOEQ(x, inf), inf, result);
  result = b.CreateSelect(b.CreateFCmpOLT(x, Splat(x, 0.0f)), Splat(x, std::numeric_limits<float>::quiet_NaN()),
                          result);
  result = b.CreateSelect(b.CreateFCmpOEQ(x, Splat(x, 0.0f)), b.CreateFNeg(inf), result);
  return KeepNaN(b, x, result);
}

llvm::Value* EmitTanhF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  // Near 0 an odd polynomial; elsewhere 1 - 2 / (exp(2|x|) + 1), which loses
  // at most a bit to cancellation above 0.625 and reaches 1 exactly (exp is
  // inf) for large |x|. NaN falls through the second form.
  llvm::Value* ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value* x2 = b.CreateFMul(x, x);
  llvm::Value* p = Polynomial(b, x2, {-3.333328e-01f, 1.3331442e-01f, -5.37397e-02f, 2.0639041e-02f,
                                      -5.704934e-03f});
  llvm::Value* near_zero = MulAdd(b, b.CreateFMul(x2, x), p, x);
  llvm::Value* e = EmitExpF32(b, b.CreateFAdd(ax, ax));
  llvm::Value* one = Splat(x, 1.0f);
  llvm::Value* far = b.CreateFSub(one, b.CreateFDiv(Splat(x, 2.0f), b.CreateFAdd(e, one)));
  far = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, far, x);
  return b.CreateSelect(b.CreateFCmpOLT(ax, Splat(x, 0.625f)), near_zero, far);
}

llvm::Value* EmitErfF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  // Below 1 an odd polynomial; from 1 to 4 erf = 1 - erfc with
  // erfc(x) = exp(-x^2) / x * Q(1/x); beyond 4, erf rounds to +-1.
  llvm::Value* ax = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value* p = Polynomial(b, b.CreateFMul(x, x),
                              {1.1283791e+00f, -3.7612626e-01f, 1.12835854e-01f, -2.6853811e-02f,
                               5.1883264e-03f, -8.01018e-04f, 7.85381e-05f});
  llvm::Value* near_zero = b.CreateFMul(x, p);

  llvm::Value* a = Clamp(b, ax, 1.0f, 4.0f);
  llvm::Value* inverse = b.CreateFDiv(Splat(x, 1.0f), a);
  // v = (1/x - 0.625) / 0.375 maps [1/4, 1] onto [-1, 1], where Q is well conditioned.
  llvm::Value* v = MulAdd(b, inverse, Splat(x, 8.0f / 3.0f), Splat(x, -5.0f / 3.0f));
  llvm::Value* q = Polynomial(b, v, {4.8952478e-01f, -6.4344615e-02f, -1.8216661e-04f, 3.8021663e-03f,
                                     -1.5422094e-03f, 3.6822588e-04f, -3.114287e-05f, -2.6087231e-05f,
                                     2.142991e-05f, -6.818502e-06f});
  llvm::Value* gauss = EmitExpF32(b, b.CreateFNeg(b.CreateFMul(a, a)));
  llvm::Value* erfc = b.CreateFMul(b.CreateFMul(gauss, inverse), q);
  llvm::Value* far = b.CreateFSub(Splat(x, 1.0f), erfc);
  far = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, far, x);
  llvm::Value* result = b.CreateSelect(b.CreateFCmpOLT(ax, Splat(x, 1.0f)), near_zero, far);
  return KeepNaN(b, x, result);
}

}  // namespace tuneforge::codegen
