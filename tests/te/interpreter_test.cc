#include "common/te/interpreter.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tuneforge::te {
namespace {

using ::testing::HasSubstr;

NDArray FromValues(DType dtype, std::vector<int64_t> shape, const std::vector<double>& values) {
  absl::StatusOr<NDArray> a = NDArray::Empty(dtype, std::move(shape));
  EXPECT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->num_elements(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) a->SetDouble(static_cast<int64_t>(i), values[i]);
  return *std::move(a);
}

std::vector<double> Values(const NDArray& a) {
  std::vector<double> out;
  for (int64_t i = 0; i < a.num_elements(); ++i) out.push_back(a.GetDouble(i));
  return out;
}

ComputeDag MakeDag(const std::vector<Tensor>& outputs) {
  absl::StatusOr<ComputeDag> dag = ComputeDag::Create(outputs);
  EXPECT_TRUE(dag.ok()) << dag.status();
  return *std::move(dag);
}

Tensor MustCompute(std::string name, std::vector<int64_t> shape, const ComputeFn& fn) {
  absl::StatusOr<Tensor> t = Compute(std::move(name), std::move(shape), fn);
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

// NDArrays are move-only, so no initializer lists.
template <class... Arrays>
std::vector<NDArray> Inputs(Arrays&&... arrays) {
  std::vector<NDArray> out;
  (out.push_back(std::move(arrays)), ...);
  return out;
}

std::vector<NDArray> InterpretOk(const ComputeDag& dag, const std::vector<NDArray>& inputs) {
  absl::StatusOr<std::vector<NDArray>> out = Interpret(dag, inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *std::move(out) : std::vector<NDArray>{};
}

TEST(InterpreterTest, Matmul2x4x3) {
  Tensor A = Placeholder("A", {2, 4});
  Tensor B = Placeholder("B", {4, 3});
  IterVar k = ReduceAxis(4, "k");
  Tensor C = MustCompute("C", {2, 3}, [&](const std::vector<Var>& v) {
    return Sum(Read(A, {v[0], k.var}) * Read(B, {k.var, v[1]}), {k});
  });
  ComputeDag dag = MakeDag({C});
  auto out = InterpretOk(
      dag, Inputs(FromValues(DType::Float32(), {2, 4}, {1, 2, 3, 4, -1, 0, 2, 1}),
                  FromValues(DType::Float32(), {4, 3}, {1, 0, 2, 0, 1, 1, 2, 1, 0, 1, -1, 1})));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{11, 1, 8, 4, 1, -1}));
}

TEST(InterpreterTest, PaddedConvReadsOnlyInsideTheInput) {
  // 3x3 box filter over a 3x3 image with zero padding 1: the padding is a
  // select in the body, whose untaken branch would read out of bounds.
  Tensor X = Placeholder("X", {3, 3});
  Tensor W = Placeholder("W", {3, 3});
  IterVar r = ReduceAxis(3, "r"), s = ReduceAxis(3, "s");
  Tensor Y = MustCompute("Y", {3, 3}, [&](const std::vector<Var>& v) {
    Expr y = Expr(v[0]) + r.var - 1, x = Expr(v[1]) + s.var - 1;
    Expr inside = LogicalAnd(LogicalAnd(y >= 0, y < 3), LogicalAnd(x >= 0, x < 3));
    return Sum(MakeSelect(inside, Read(X, {y, x}), Expr(0.0f)) * Read(W, {r.var, s.var}), {r, s});
  });
  ComputeDag dag = MakeDag({Y});
  auto out =
      InterpretOk(dag, Inputs(FromValues(DType::Float32(), {3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                              FromValues(DType::Float32(), {3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1})));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{12, 21, 16, 27, 45, 33, 24, 39, 28}));
}

TEST(InterpreterTest, PadOpThenConv1d) {
  // Padding as its own op: P = pad(X, 1), Y[i] = sum_r P[i + r] * W[r].
  Tensor X = Placeholder("X", {5});
  Tensor W = Placeholder("W", {3});
  Tensor P = MustCompute("P", {7}, [&](const std::vector<Var>& v) {
    Expr i = v[0];
    return MakeSelect(LogicalAnd(i >= 1, i < 6), Read(X, {i - 1}), Expr(0.0f));
  });
  IterVar r = ReduceAxis(3, "r");
  Tensor Y = MustCompute("Y", {5}, [&](const std::vector<Var>& v) {
    return Sum(Read(P, {Expr(v[0]) + r.var}) * Read(W, {r.var}), {r});
  });
  ComputeDag dag = MakeDag({Y});
  auto out = InterpretOk(dag, Inputs(FromValues(DType::Float32(), {5}, {1, 2, 3, 4, 5}),
                                     FromValues(DType::Float32(), {3}, {1, 0, -1})));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{-2, -2, -2, -2, 4}));
}

TEST(InterpreterTest, MaxReductionWithCondition) {
  Tensor A = Placeholder("A", {2, 4});
  IterVar k = ReduceAxis(4, "k");
  // Even k only.
  Tensor M = MustCompute("M", {2}, [&](const std::vector<Var>& v) {
    return MaxReduce(Read(A, {v[0], k.var}), {k}, EQ(FloorMod(k.var, 2), 0));
  });
  // k < i: row 0 has no iteration at all and keeps the identity (-inf).
  IterVar k2 = ReduceAxis(4, "k2");
  Tensor L = MustCompute("L", {2}, [&](const std::vector<Var>& v) {
    return MaxReduce(Read(A, {v[0], k2.var}), {k2}, Expr(k2.var) < v[0]);
  });
  IterVar k3 = ReduceAxis(4, "k3");
  Tensor N = MustCompute("N", {2}, [&](const std::vector<Var>& v) {
    return MinReduce(Read(A, {v[0], k3.var}), {k3});
  });
  ComputeDag dag = MakeDag({M, L, N});
  auto out =
      InterpretOk(dag, Inputs(FromValues(DType::Float32(), {2, 4}, {3, 9, -1, 5, 2, -7, 8, 1})));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{3, 8}));
  EXPECT_EQ(out[1].GetDouble(0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(out[1].GetDouble(1), 2);
  EXPECT_EQ(Values(out[2]), (std::vector<double>{-1, -7}));
}

TEST(InterpreterTest, ChainOfOpsAndIntegerReduction) {
  Tensor A = Placeholder("A", {3}, DType::Int32());
  Tensor D = MustCompute(
      "D", {3}, [&](const std::vector<Var>& v) { return Read(A, {v[0]}) * Read(A, {v[0]}); });
  IterVar k = ReduceAxis(3, "k");
  Tensor S =
      MustCompute("S", {1}, [&](const std::vector<Var>& v) { return Sum(Read(D, {k.var}), {k}); });
  ComputeDag dag = MakeDag({S});
  auto out = InterpretOk(dag, Inputs(FromValues(DType::Int32(), {3}, {-3, 4, 2})));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype(), DType::Int32());
  EXPECT_EQ(out[0].GetInt(0), 9 + 16 + 4);
}

int64_t EvalInt(const Expr& e, const std::vector<std::pair<Var, int64_t>>& b = {}) {
  absl::StatusOr<ScalarValue> v = EvaluateScalar(e, b);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? v->i : 0;
}

double EvalFloat(const Expr& e) {
  absl::StatusOr<ScalarValue> v = EvaluateScalar(e);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? v->f : 0;
}

TEST(InterpreterTest, FloorAndTruncatingDivisionWithNegatives) {
  Var a = MakeVar("a"), b = MakeVar("b");
  auto at = [&](const Expr& e, int64_t x, int64_t y) { return EvalInt(e, {{a, x}, {b, y}}); };
  Expr fdiv = FloorDiv(a, b), fmod = FloorMod(a, b), div = Expr(a) / b;
  Expr mod = MakeBinary(BinOp::kMod, a, b);
  EXPECT_EQ(at(fdiv, -7, 2), -4);
  EXPECT_EQ(at(fmod, -7, 2), 1);
  EXPECT_EQ(at(fdiv, 7, -2), -4);
  EXPECT_EQ(at(fmod, 7, -2), -1);
  EXPECT_EQ(at(fdiv, -8, 2), -4);
  EXPECT_EQ(at(fmod, -8, 2), 0);
  EXPECT_EQ(at(fdiv, -7, -2), 3);
  EXPECT_EQ(at(fmod, -7, -2), -1);
  EXPECT_EQ(at(div, -7, 2), -3);
  EXPECT_EQ(at(mod, -7, 2), -1);
  EXPECT_EQ(at(div, 7, -2), -3);
  EXPECT_EQ(at(mod, 7, -2), 1);
  // Float floor division and modulo.
  EXPECT_EQ(EvalFloat(FloorDiv(Expr(-7.0f), Expr(2.0f))), -4.0);
  EXPECT_EQ(EvalFloat(FloorMod(Expr(-7.0f), Expr(2.0f))), 1.0);
  EXPECT_EQ(EvalFloat(MakeBinary(BinOp::kMod, Expr(-7.0f), Expr(2.0f))), -1.0);
}

TEST(InterpreterTest, IntegerDivisionByZeroIsAnError) {
  Var a = MakeVar("a");
  auto v = EvaluateScalar(FloorDiv(Expr(7), a), {{a, 0}});
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(v.status().message(), HasSubstr("integer division by zero"));
}

TEST(InterpreterTest, IntegerArithmeticWrapsToWidth) {
  Var x = MakeVar("x", DType::Int32());
  EXPECT_EQ(EvalInt(Expr(x) + IntConst(1, DType::Int32()), {{x, 2147483647}}), -2147483648LL);
  Var y = MakeVar("y", DType::Int8());
  EXPECT_EQ(EvalInt(Expr(y) * IntConst(2, DType::Int8()), {{y, 100}}), -56);
}

TEST(InterpreterTest, CastsFollowC) {
  EXPECT_EQ(EvalInt(MakeCast(DType::Int32(), Expr(-2.7f))), -2);
  EXPECT_EQ(EvalInt(MakeCast(DType::Int32(), Expr(2.7f))), 2);
  EXPECT_EQ(EvalInt(MakeCast(DType::Int8(), IntConst(300))), 44);
  EXPECT_EQ(EvalInt(MakeCast(DType::Bool(), Expr(0.5f))), 1);
  EXPECT_EQ(EvalInt(MakeCast(DType::Bool(), IntConst(0))), 0);
  EXPECT_EQ(EvalFloat(MakeCast(DType::Float32(), IntConst(1, DType::Bool()))), 1.0);
  EXPECT_EQ(EvalFloat(MakeCast(DType::Float32(), IntConst(16777217))), 16777216.0);
  EXPECT_EQ(EvalFloat(MakeCast(DType::Float32(), FloatConst(0.1, DType::Float64()))),
            static_cast<double>(0.1f));
  EXPECT_EQ(EvalFloat(MakeCast(DType::Float64(), FloatConst(0.1, DType::Float64()))), 0.1);
  // Out of range and NaN saturate / go to 0 instead of being undefined.
  EXPECT_EQ(EvalInt(MakeCast(DType::Int64(), FloatConst(1e30, DType::Float64()))),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(EvalInt(MakeCast(DType::Int64(), Expr(0.0f) / Expr(0.0f))), 0);
}

TEST(InterpreterTest, EveryIntrinsic) {
  auto call = [](Intrinsic fn, float x) { return EvalFloat(MakeCall(fn, {Expr(x)})); };
  EXPECT_FLOAT_EQ(call(Intrinsic::kExp, 1.0f), std::exp(1.0f));
  EXPECT_FLOAT_EQ(call(Intrinsic::kLog, 2.0f), std::log(2.0f));
  EXPECT_FLOAT_EQ(call(Intrinsic::kSqrt, 4.0f), 2.0f);
  EXPECT_FLOAT_EQ(call(Intrinsic::kRsqrt, 4.0f), 0.5f);
  EXPECT_FLOAT_EQ(call(Intrinsic::kTanh, 0.5f), std::tanh(0.5f));
  EXPECT_FLOAT_EQ(call(Intrinsic::kSigmoid, 0.0f), 0.5f);
  EXPECT_FLOAT_EQ(call(Intrinsic::kSigmoid, 2.0f), 1.0f / (1.0f + std::exp(-2.0f)));
  EXPECT_FLOAT_EQ(call(Intrinsic::kErf, 0.5f), 0.5204998778f);
  EXPECT_EQ(call(Intrinsic::kAbs, -3.0f), 3.0);
  EXPECT_EQ(call(Intrinsic::kFloor, -1.5f), -2.0);
  EXPECT_EQ(call(Intrinsic::kCeil, -1.5f), -1.0);
  EXPECT_EQ(call(Intrinsic::kRound, 2.5f), 3.0);  // half away from zero
  EXPECT_EQ(call(Intrinsic::kRound, -2.5f), -3.0);
  EXPECT_EQ(EvalFloat(MakeCall(Intrinsic::kPow, {Expr(2.0f), Expr(10.0f)})), 1024.0);
  // Integer arguments are converted to float32 by MakeCall.
  EXPECT_FLOAT_EQ(EvalFloat(MakeCall(Intrinsic::kSqrt, {IntConst(9)})), 3.0f);
  // Results are float32-rounded.
  EXPECT_EQ(call(Intrinsic::kExp, 1.0f), static_cast<double>(std::exp(1.0f)));
  // float64 goes through double functions.
  EXPECT_DOUBLE_EQ(EvalFloat(MakeCall(Intrinsic::kExp, {FloatConst(1.0, DType::Float64())})),
                   std::exp(1.0));
}

TEST(InterpreterTest, MinMaxSelectAndShortCircuit) {
  Var i = MakeVar("i");
  EXPECT_EQ(EvalInt(Min(i, 3), {{i, 5}}), 3);
  EXPECT_EQ(EvalInt(Max(i, 3), {{i, 5}}), 5);
  EXPECT_EQ(EvalInt(MakeSelect(Expr(i) < 2, Expr(10), Expr(20)), {{i, 5}}), 20);
  // The right operand of && is not evaluated when the left is false, so the
  // division by zero never happens.
  Expr guarded = LogicalAnd(NE(i, 0), EQ(FloorDiv(Expr(10), i), 5));
  EXPECT_EQ(EvalInt(guarded, {{i, 0}}), 0);
  EXPECT_EQ(EvalInt(guarded, {{i, 2}}), 1);
  EXPECT_EQ(EvalInt(LogicalOr(EQ(i, 0), EQ(FloorDiv(Expr(10), i), 5)), {{i, 0}}), 1);
  EXPECT_EQ(EvalInt(LogicalNot(Expr(i) < 3), {{i, 5}}), 1);
}

TEST(InterpreterTest, OutOfBoundsReadIsAnError) {
  Tensor A = Placeholder("A", {3});
  Tensor B =
      MustCompute("B", {3}, [&](const std::vector<Var>& v) { return Read(A, {Expr(v[0]) + 1}); });
  ComputeDag dag = MakeDag({B});
  std::vector<NDArray> in;
  in.push_back(FromValues(DType::Float32(), {3}, {1, 2, 3}));
  auto out = Interpret(dag, in);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("op 'B' at [2]: reads A[3] outside its shape [3]"));
}

TEST(InterpreterTest, RejectsWrongInputs) {
  Tensor A = Placeholder("A", {2, 2});
  Tensor B = MustCompute("B", {2, 2}, [&](const std::vector<Var>& v) {
    return Read(A, {v[0], v[1]});
  });
  ComputeDag dag = MakeDag({B});
  auto none = Interpret(dag, {});
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("the DAG has 1 inputs but 0 arrays were given"));
  std::vector<NDArray> wrong;
  wrong.push_back(FromValues(DType::Float32(), {4}, {1, 2, 3, 4}));
  auto bad = Interpret(dag, wrong);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(),
              HasSubstr("input 0 ('A') must be float32[2, 2], got float32[4]"));
}

TEST(InterpreterTest, UnboundVariableIsAnError) {
  Var stray = MakeVar("stray");
  Tensor B = MustCompute("B", {2}, [&](const std::vector<Var>& v) {
    return MakeCast(DType::Float32(), Expr(v[0]) + stray);
  });
  ComputeDag dag = MakeDag({B});
  auto out = Interpret(dag, {});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("variable 'stray' has no value"));
}

TEST(InterpreterTest, RejectsLoweredOnlyNodes) {
  auto v = EvaluateScalar(MakeBroadcast(Expr(1.0f), 4));
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(v.status().message(), HasSubstr("vector types only exist after lowering"));
}

TEST(InterpreterTest, Float32ArithmeticRoundsEachStep) {
  // In float32, (1 + 1e-8) - 1 == 0; in double it would not be.
  Expr e = (Expr(1.0f) + FloatConst(1e-8)) - Expr(1.0f);
  EXPECT_EQ(EvalFloat(e), 0.0);
  Expr d = (FloatConst(1.0, DType::Float64()) + FloatConst(1e-8, DType::Float64())) -
           FloatConst(1.0, DType::Float64());
  EXPECT_NEAR(EvalFloat(d), 1e-8, 1e-15);
}

}  // namespace
}  // namespace tuneforge::te
