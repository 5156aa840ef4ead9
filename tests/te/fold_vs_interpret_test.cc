// Constant folding and the reference interpreter agree on every operator:
// random expressions over every dtype, with the edge values of each
// (wrap-around, MIN / -1, division by zero, negative floor division, NaN,
// infinities, -0), are simplified and interpreted, and the results must be
// the same bits. Where the interpreter finds no value (integer division by
// zero), the simplifier must not have folded one either.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/te/arith/simplify.h"
#include "common/te/expr_util.h"
#include "common/te/interpreter.h"
#include "common/te/op_semantics.h"

namespace tuneforge::te {
namespace {

constexpr DType kTypes[] = {DType::Bool(),  DType::Int8(),    DType::Int32(),
                            DType::Int64(), DType::Float32(), DType::Float64()};

constexpr BinOp kOps[] = {BinOp::kAdd,      BinOp::kSub,      BinOp::kMul, BinOp::kDiv, BinOp::kMod,
                          BinOp::kFloorDiv, BinOp::kFloorMod, BinOp::kMin, BinOp::kMax, BinOp::kEQ,
                          BinOp::kNE,       BinOp::kLT,       BinOp::kLE,  BinOp::kGT,  BinOp::kGE,
                          BinOp::kAnd,      BinOp::kOr};

template <class T>
std::vector<int64_t> IntEdges() {
  using L = std::numeric_limits<T>;
  return {L::min(), L::min() + 1, -7, -3, -2, -1, 0, 1, 2, 3, 7, L::max() - 1, L::max()};
}

std::vector<double> FloatEdges() {
  const double inf = std::numeric_limits<double>::infinity();
  return {0.0,
          -0.0,
          1.0,
          -1.0,
          2.0,
          -2.5,
          0.5,
          3.0,
          7.0,
          1e30,
          -1e30,
          3.4e38,
          1e300,
          inf,
          -inf,
          std::nan(""),
          std::numeric_limits<float>::denorm_min(),
          1e-45};
}

// Same bits; any NaN equals any NaN (the payload is not part of the semantics).
bool SameValue(DType t, const ScalarValue& a, const ScalarValue& b) {
  if (!t.is_float()) return a.i == b.i;
  if (std::isnan(a.f) || std::isnan(b.f)) return std::isnan(a.f) && std::isnan(b.f);
  return std::bit_cast<uint64_t>(a.f) == std::bit_cast<uint64_t>(b.f);
}

std::string Show(const ScalarValue& v) {
  return v.dtype.is_float() ? absl::StrCat(v.f) : absl::StrCat(v.i);
}

class ExprGen {
 public:
  // With variables, int64 is index arithmetic, which the simplifier takes
  // not to overflow (code generation says so to LLVM): its values stay
  // small, it multiplies only by constants and nothing is cast into it.
  // Without variables int64 takes its edge values like every other type.
  ExprGen(uint64_t seed, bool with_vars) : rng_(seed), with_vars_(with_vars) {}

  Expr Gen(DType t, int depth) {
    if (depth == 0 || Chance(0.2)) return Leaf(t);
    int kind = Pick(10);
    if (kind < 6) return Binary(t, depth);
    if (kind == 6)
      return MakeSelect(Gen(DType::Bool(), depth - 1), Gen(t, depth - 1), Gen(t, depth - 1));
    if (kind == 7 && t.is_bool()) return MakeNot(Gen(AnyType(), depth - 1));
    if (SmallInt64(t)) return Binary(t, depth);
    return MakeCast(t, Gen(AnyType(), depth - 1));
  }

  std::vector<std::pair<Var, ScalarValue>> Bindings() {
    std::vector<std::pair<Var, ScalarValue>> out;
    for (const auto& [var, value] : vars_) out.emplace_back(var, value);
    return out;
  }
  const arith::VarBounds& bounds() const { return bounds_; }

 private:
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  DType AnyType() { return kTypes[Pick(6)]; }
  bool SmallInt64(DType t) const { return with_vars_ && t == DType::Int64(); }

  Expr Binary(DType t, int depth) {
    BinOp op = kOps[Pick(17)];
    bool bool_result = IsComparison(op) || IsLogical(op);
    if (bool_result != t.is_bool() && !(t.is_bool() && Chance(0.1))) {
      // Pick an operator that gives `t`.
      do op = kOps[Pick(17)];
      while ((IsComparison(op) || IsLogical(op)) != t.is_bool());
    }
    DType operand = (IsComparison(op) || IsLogical(op)) ? AnyType() : t;
    // Index arithmetic: products of two non-constants grow too fast.
    if (SmallInt64(operand) && op == BinOp::kMul)
      return MakeBinary(op, Gen(operand, depth - 1), Leaf(operand, /*constant=*/true));
    return MakeBinary(op, Gen(operand, depth - 1), Gen(operand, depth - 1));
  }

  Expr Leaf(DType t, bool constant = false) {
    if (with_vars_ && !constant && Chance(0.5)) return Variable(t);
    return ConstantExpr(t, Value(t));
  }

  // A value of `t`: mostly edge values, some random ones; for ints also
  // constants outside the type's range (the IR may hold them; they wrap).
  Scalar Value(DType t) {
    Scalar v;
    if (SmallInt64(t)) {
      v.i = std::uniform_int_distribution<int64_t>(-64, 64)(rng_);
      return v;
    }
    switch (t.scalar) {
      case ScalarType::kBool:
        v.i = Pick(2);
        return v;
      case ScalarType::kInt8:
        v.i = Chance(0.7) ? Edge(IntEdges<int8_t>()) : Random();
        break;
      case ScalarType::kInt32:
        v.i = Chance(0.7) ? Edge(IntEdges<int32_t>()) : Random();
        break;
      case ScalarType::kInt64:
        v.i = Chance(0.7) ? Edge(IntEdges<int64_t>()) : Random();
        break;
      case ScalarType::kFloat32:
      case ScalarType::kFloat64:
        v.f = Chance(0.6) ? FloatEdges()[Pick(static_cast<int>(FloatEdges().size()))]
                          : std::uniform_real_distribution<double>(-100, 100)(rng_);
        if (Chance(0.3)) v.f = std::round(v.f);
        return Normalize(t, v);
    }
    return v;
  }
  int64_t Edge(const std::vector<int64_t>& edges) {
    return edges[Pick(static_cast<int>(edges.size()))];
  }
  int64_t Random() {
    switch (Pick(3)) {
      case 0:
        return std::uniform_int_distribution<int64_t>(-300, 300)(rng_);
      case 1:
        return std::uniform_int_distribution<int64_t>(INT32_MIN, INT32_MAX)(rng_);
      default:
        return static_cast<int64_t>(rng_());
    }
  }

  // A new variable with a random value; sometimes with bounds that hold it,
  // which the simplifier may use.
  Expr Variable(DType t) {
    Var var = MakeVar(absl::StrCat("v", vars_.size()), t);
    Scalar v = Normalize(t, Value(t));  // the value the variable reads as
    vars_.push_back({var, ScalarValue{t, v.i, v.f}});
    if (!t.is_float() && Chance(0.5)) {
      int64_t below = std::uniform_int_distribution<int64_t>(0, 50)(rng_);
      int64_t above = std::uniform_int_distribution<int64_t>(0, 50)(rng_);
      bounds_[var.get()] =
          arith::IntInterval{std::max(v.i - below, Lowest(t)), std::min(v.i + above, Highest(t))};
    }
    return var;
  }
  static int64_t Lowest(DType t) {
    return t.is_bool() ? 0 : t.bits() >= 64 ? INT64_MIN : -(int64_t{1} << (t.bits() - 1));
  }
  static int64_t Highest(DType t) {
    return t.is_bool() ? 1 : t.bits() >= 64 ? INT64_MAX : (int64_t{1} << (t.bits() - 1)) - 1;
  }

  std::mt19937_64 rng_;
  bool with_vars_;
  std::vector<std::pair<Var, ScalarValue>> vars_;
  arith::VarBounds bounds_;
};

constexpr int kCasesPerType = 4000;

// Constant expressions: the simplifier folds them completely, to the value
// the interpreter computes, or leaves an integer division by zero unfolded.
TEST(FoldVsInterpretTest, ConstantExpressionsFoldToTheInterpretedValue) {
  int folded = 0, undefined = 0;
  for (DType t : kTypes) {
    for (int n = 0; n < kCasesPerType; ++n) {
      ExprGen gen(static_cast<uint64_t>(n) * 7919 + static_cast<uint64_t>(t.scalar), false);
      Expr e = gen.Gen(t, 4);
      Expr s = arith::Simplify(e);
      absl::StatusOr<ScalarValue> want = EvaluateScalar(e);
      absl::StatusOr<ScalarValue> got = EvaluateScalar(s);
      std::optional<Scalar> constant = ConstantValue(s);
      const std::string what = absl::StrCat(ToString(t), " case ", n, ": ", ToString(e),
                                            "\n  simplified: ", ToString(s));
      if (!want.ok()) {
        ++undefined;
        EXPECT_FALSE(constant) << what << "\n  the interpreter: " << want.status();
        EXPECT_FALSE(got.ok()) << what << "\n  interprets to " << Show(*got)
                               << " but the original has no value: " << want.status();
        continue;
      }
      ++folded;
      // Keep going after a failure: the list of cases shows the pattern.
      if (!constant || s.dtype() != e.dtype() || !got.ok()) {
        ADD_FAILURE() << what << "\n  not folded to a constant of type " << ToString(t) << ": "
                      << (got.ok() ? "" : got.status().ToString());
        continue;
      }
      EXPECT_TRUE(SameValue(t, *want, *got))
          << what << "\n  interpreted: " << Show(*want) << ", folded: " << Show(*got);
    }
  }
  // Both outcomes were exercised.
  EXPECT_GT(folded, kCasesPerType);
  EXPECT_GT(undefined, 50);
}

// With variables: the simplified expression means what the original means
// for the variables' values (within the bounds the simplifier was given).
TEST(FoldVsInterpretTest, ExpressionsWithVariablesKeepTheirValue) {
  int compared = 0;
  for (DType t : kTypes) {
    for (int n = 0; n < kCasesPerType; ++n) {
      ExprGen gen(static_cast<uint64_t>(n) * 104729 + static_cast<uint64_t>(t.scalar), true);
      Expr e = gen.Gen(t, 4);
      Expr s = arith::Simplify(e, gen.bounds());
      absl::StatusOr<ScalarValue> want = EvaluateScalarWith(e, gen.Bindings());
      absl::StatusOr<ScalarValue> got = EvaluateScalarWith(s, gen.Bindings());
      std::string what = absl::StrCat(ToString(t), " case ", n, ": ", ToString(e),
                                      "\n  simplified: ", ToString(s), "\n  at");
      for (const auto& [var, value] : gen.Bindings())
        absl::StrAppend(&what, " ", var->name, "=", Show(value));
      if (!want.ok()) {
        EXPECT_FALSE(got.ok()) << what << "\n  interprets to " << Show(*got)
                               << " but the original has no value: " << want.status();
        continue;
      }
      ++compared;
      if (s.dtype() != e.dtype() || !got.ok()) {
        ADD_FAILURE() << what << "\n  type " << ToString(s.dtype()) << " instead of " << ToString(t)
                      << ", " << (got.ok() ? "" : got.status().ToString());
        continue;
      }
      EXPECT_TRUE(SameValue(t, *want, *got))
          << what << "\n  original: " << Show(*want) << ", simplified: " << Show(*got);
    }
  }
  EXPECT_GT(compared, kCasesPerType);
}

}  // namespace
}  // namespace tuneforge::te
