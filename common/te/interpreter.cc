#include "common/te/interpreter.h"

#include <cmath>
#include <limits>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/overloaded.h"
#include "common/te/expr_util.h"

namespace tuneforge::te {
namespace {

// A value of a known dtype: `i` holds bools and ints, `f` floats.
struct Value {
  int64_t i = 0;
  double f = 0;
};

int64_t SaturatingToInt(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
  if (v <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

// Rounds a value to its dtype: float32 to float precision, ints wrap to their
// width (through unsigned types, so no UB), bools to 0/1.
Value Normalize(DType t, Value v) {
  switch (t.scalar) {
    case ScalarType::kFloat32:
      v.f = static_cast<double>(static_cast<float>(v.f));
      break;
    case ScalarType::kFloat64:
      break;
    case ScalarType::kBool:
      v.i = v.i != 0;
      break;
    case ScalarType::kInt8:
      v.i = static_cast<int8_t>(static_cast<uint8_t>(v.i));
      break;
    case ScalarType::kInt32:
      v.i = static_cast<int32_t>(static_cast<uint32_t>(v.i));
      break;
    case ScalarType::kInt64:
      break;
  }
  return v;
}

Value Convert(Value v, DType from, DType to) {
  Value out;
  if (to.is_bool()) {
    out.i = from.is_float() ? v.f != 0 : v.i != 0;
  } else if (to.is_float()) {
    out.f = from.is_float() ? v.f : static_cast<double>(v.i);
  } else {
    out.i = from.is_float() ? SaturatingToInt(v.f) : v.i;
  }
  return Normalize(to, out);
}

bool Truthy(DType t, Value v) { return t.is_float() ? v.f != 0 : v.i != 0; }

int64_t FloorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t FloorModInt(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

double ApplyIntrinsic(Intrinsic fn, double x, double y, bool f32) {
  // float32 goes through the float overloads, as compiled float code does.
  auto f = [&](float (*g32)(float), double (*g64)(double)) {
    return f32 ? static_cast<double>(g32(static_cast<float>(x))) : g64(x);
  };
  switch (fn) {
    case Intrinsic::kExp:
      return f(std::exp, std::exp);
    case Intrinsic::kLog:
      return f(std::log, std::log);
    case Intrinsic::kSqrt:
      return f(std::sqrt, std::sqrt);
    case Intrinsic::kRsqrt:
      return 1.0 / f(std::sqrt, std::sqrt);
    case Intrinsic::kTanh:
      return f(std::tanh, std::tanh);
    case Intrinsic::kSigmoid:
      return 1.0 / (1.0 + (f32 ? std::exp(-static_cast<float>(x)) : std::exp(-x)));
    case Intrinsic::kErf:
      return f(std::erf, std::erf);
    case Intrinsic::kAbs:
      return std::fabs(x);
    case Intrinsic::kFloor:
      return std::floor(x);
    case Intrinsic::kCeil:
      return std::ceil(x);
    case Intrinsic::kRound:
      return std::round(x);
    case Intrinsic::kPow:
      return f32 ? static_cast<double>(std::pow(static_cast<float>(x), static_cast<float>(y)))
                 : std::pow(x, y);
  }
  return 0;
}

using TensorValues = absl::flat_hash_map<const TensorNode*, const NDArray*>;

// Walks expressions. The first error is kept in status() and evaluation
// returns zeros from then on; callers check status() per output element, so
// no StatusOr is built per node.
class Evaluator {
 public:
  explicit Evaluator(const TensorValues* tensors) : tensors_(tensors) {}

  const absl::Status& status() const { return status_; }
  void set_context(std::string context) { context_ = std::move(context); }

  void Bind(const VarNode* var, int64_t value) {
    for (auto& [v, x] : env_)
      if (v == var) {
        x = value;
        return;
      }
    env_.emplace_back(var, value);
  }

  Value Eval(const Expr& e) {
    if (!status_.ok()) return {};
    if (!e) return Fail("an empty expression");
    const DType t = e.dtype();
    if (t.is_vector())
      return Fail(absl::StrCat("vector expression ", ToString(e),
                               " (vector types only exist after lowering)"));
    return std::visit(
        Overloaded{
            [&](const IntImm& n) {
              return Convert(Value{n.value, 0}, DType::Int64(), t);
            },
            [&](const FloatImm& n) {
              return Convert(Value{0, n.value}, DType::Float64(), t);
            },
            [&](const VarRef& n) { return Lookup(n.var.get()); },
            [&](const Binary& n) { return EvalBinary(n, t); },
            [&](const Not& n) {
              return Value{!Truthy(n.a.dtype(), Eval(n.a)), 0};
            },
            [&](const Select& n) {
              bool c = Truthy(n.cond.dtype(), Eval(n.cond));
              const Expr& chosen = c ? n.true_value : n.false_value;
              return Convert(Eval(chosen), chosen.dtype(), t);
            },
            [&](const Cast& n) { return Convert(Eval(n.value), n.value.dtype(), t); },
            [&](const Call& n) { return EvalCall(n, t); },
            [&](const TensorRead& n) { return EvalRead(n); },
            [&](const Reduce&) {
              return Fail("a reduction inside an expression (only legal as a whole op body)");
            },
            [&](const BufferLoad&) { return Fail("a buffer load (only exists after lowering)"); },
            [&](const Ramp&) { return Fail("a ramp (only exists after lowering)"); },
            [&](const Broadcast&) { return Fail("a broadcast (only exists after lowering)"); },
        },
        e->v);
  }

  // a <op> b for operands already of type t; comparisons give a bool.
  Value Apply(BinOp op, DType t, Value a, Value b) {
    if (t.is_float()) {
      double x = a.f, y = b.f;
      switch (op) {
        case BinOp::kAdd:
          return Normalize(t, {0, x + y});
        case BinOp::kSub:
          return Normalize(t, {0, x - y});
        case BinOp::kMul:
          return Normalize(t, {0, x * y});
        case BinOp::kDiv:
          return Normalize(t, {0, x / y});
        case BinOp::kMod:
          return Normalize(t, {0, std::fmod(x, y)});
        case BinOp::kFloorDiv:
          return Normalize(t, {0, std::floor(Normalize(t, {0, x / y}).f)});
        case BinOp::kFloorMod:
          return Normalize(t, {0, x - std::floor(Normalize(t, {0, x / y}).f) * y});
        case BinOp::kMin:
          return {0, x < y ? x : y};
        case BinOp::kMax:
          return {0, x > y ? x : y};
        case BinOp::kEQ:
          return {x == y, 0};
        case BinOp::kNE:
          return {x != y, 0};
        case BinOp::kLT:
          return {x < y, 0};
        case BinOp::kLE:
          return {x <= y, 0};
        case BinOp::kGT:
          return {x > y, 0};
        case BinOp::kGE:
          return {x >= y, 0};
        case BinOp::kAnd:
          return {x != 0 && y != 0, 0};
        case BinOp::kOr:
          return {x != 0 || y != 0, 0};
      }
      return {};
    }
    int64_t x = a.i, y = b.i;
    // Wrapping arithmetic through uint64: overflow is defined, then rounded
    // to the dtype's width.
    auto wrap = [&](uint64_t r) { return Normalize(t, {static_cast<int64_t>(r), 0}); };
    const bool divides =
        op == BinOp::kDiv || op == BinOp::kMod || op == BinOp::kFloorDiv || op == BinOp::kFloorMod;
    if (divides && y == 0)
      return Fail(absl::StrCat("integer division by zero (", BinOpSymbol(op), ")"));
    // INT64_MIN / -1 overflows in C; the wrapped result is INT64_MIN, remainder 0.
    if (divides && y == -1) {
      bool is_div = op == BinOp::kDiv || op == BinOp::kFloorDiv;
      return is_div ? wrap(0 - static_cast<uint64_t>(x)) : Value{0, 0};
    }
    switch (op) {
      case BinOp::kAdd:
        return wrap(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
      case BinOp::kSub:
        return wrap(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
      case BinOp::kMul:
        return wrap(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
      case BinOp::kDiv:
        return wrap(static_cast<uint64_t>(x / y));
      case BinOp::kMod:
        return wrap(static_cast<uint64_t>(x % y));
      case BinOp::kFloorDiv:
        return wrap(static_cast<uint64_t>(FloorDivInt(x, y)));
      case BinOp::kFloorMod:
        return wrap(static_cast<uint64_t>(FloorModInt(x, y)));
      case BinOp::kMin:
        return {x < y ? x : y, 0};
      case BinOp::kMax:
        return {x > y ? x : y, 0};
      case BinOp::kEQ:
        return {x == y, 0};
      case BinOp::kNE:
        return {x != y, 0};
      case BinOp::kLT:
        return {x < y, 0};
      case BinOp::kLE:
        return {x <= y, 0};
      case BinOp::kGT:
        return {x > y, 0};
      case BinOp::kGE:
        return {x >= y, 0};
      case BinOp::kAnd:
        return {x != 0 && y != 0, 0};
      case BinOp::kOr:
        return {x != 0 || y != 0, 0};
    }
    return {};
  }

 private:
  Value Fail(std::string what) {
    if (status_.ok())
      status_ =
          absl::InvalidArgumentError(context_.empty() ? what : absl::StrCat(context_, ": ", what));
    return {};
  }

  Value Lookup(const VarNode* var) {
    for (const auto& [v, x] : env_)
      if (v == var) return Normalize(var->dtype, Value{x, 0});
    return Fail(absl::StrCat("variable '", var->name,
                             "' has no value; only the op's own axes and reduction axes "
                             "may appear in its body"));
  }

  Value EvalBinary(const Binary& n, DType result) {
    const DType t = n.a.dtype();
    if (n.op == BinOp::kAnd || n.op == BinOp::kOr) {  // short-circuit, as in C
      bool a = Truthy(t, Eval(n.a));
      if (n.op == BinOp::kAnd && !a) return {0, 0};
      if (n.op == BinOp::kOr && a) return {1, 0};
      return {Truthy(n.b.dtype(), Eval(n.b)), 0};
    }
    Value a = Eval(n.a);
    Value b = Convert(Eval(n.b), n.b.dtype(), t);
    if (!status_.ok()) return {};
    Value r = Apply(n.op, t, a, b);
    // Comparisons and logic produce bools; arithmetic keeps t (== result).
    return IsComparison(n.op) ? r : Convert(r, t, result);
  }

  Value EvalCall(const Call& n, DType t) {
    if (static_cast<int>(n.args.size()) != IntrinsicArity(n.fn))
      return Fail(absl::StrCat(IntrinsicName(n.fn), " takes ", IntrinsicArity(n.fn),
                               " argument(s), got ", n.args.size()));
    double x = Convert(Eval(n.args[0]), n.args[0].dtype(), DType::Float64()).f;
    double y =
        n.args.size() > 1 ? Convert(Eval(n.args[1]), n.args[1].dtype(), DType::Float64()).f : 0;
    double r = ApplyIntrinsic(n.fn, x, y, t.scalar != ScalarType::kFloat64);
    return Convert(Value{0, r}, DType::Float64(), t);
  }

  Value EvalRead(const TensorRead& n) {
    auto it = tensors_ ? tensors_->find(n.tensor.get()) : TensorValues::const_iterator();
    if (!tensors_ || it == tensors_->end())
      return Fail(absl::StrCat("reads tensor '", n.tensor->name,
                               "', which is not an op of this DAG computed before it"));
    const NDArray& array = *it->second;
    const auto& shape = array.shape();
    if (n.indices.size() != shape.size())
      return Fail(absl::StrCat("reads '", n.tensor->name, "' with ", n.indices.size(),
                               " indices; it has ", shape.size(), " dimensions"));
    int64_t flat = 0;
    std::vector<int64_t> index(n.indices.size());
    bool inside = true;
    for (size_t d = 0; d < n.indices.size(); ++d) {
      index[d] = Convert(Eval(n.indices[d]), n.indices[d].dtype(), DType::Int64()).i;
      inside = inside && index[d] >= 0 && index[d] < shape[d];
      flat = flat * shape[d] + index[d];
    }
    if (!status_.ok()) return {};
    if (!inside)
      return Fail(absl::StrCat("reads ", n.tensor->name, ShapeToString(index),
                               " outside its shape ", ShapeToString(shape),
                               "; guard the read with a condition (select) or fix the index"));
    if (array.dtype().is_float()) return Value{0, array.GetDouble(flat)};
    return Value{array.GetInt(flat), 0};
  }

  const TensorValues* tensors_;
  std::vector<std::pair<const VarNode*, int64_t>> env_;
  absl::Status status_;
  std::string context_;
};

// Advances a row-major multi-index over `extents`; false after the last.
bool Next(std::vector<int64_t>& index, const std::vector<int64_t>& extents) {
  for (int d = static_cast<int>(index.size()) - 1; d >= 0; --d) {
    if (++index[d] < extents[d]) return true;
    index[d] = 0;
  }
  return false;
}

absl::Status EvaluateOp(const Tensor& op, const TensorValues& values, NDArray& out) {
  Evaluator ev(&values);
  const Reduce* reduce = op->reduce();
  std::vector<int64_t> extents, point(op->axes.size(), 0);
  for (const IterVar& ax : op->axes) extents.push_back(ax.extent);
  std::vector<int64_t> red_extents;
  if (reduce)
    for (const IterVar& ax : reduce->axes) red_extents.push_back(ax.extent);
  const DType t = op->dtype;
  const Value identity = reduce ? ev.Eval(CombinerIdentity(reduce->combiner, t)) : Value{};
  const BinOp combine = !reduce                              ? BinOp::kAdd
                        : reduce->combiner == Combiner::kSum ? BinOp::kAdd
                        : reduce->combiner == Combiner::kMax ? BinOp::kMax
                                                             : BinOp::kMin;
  int64_t flat = 0;
  do {
    for (size_t d = 0; d < point.size(); ++d) ev.Bind(op->axes[d].var.get(), point[d]);
    Value v;
    if (!reduce) {
      v = ev.Eval(op->body);
    } else {
      v = identity;
      std::vector<int64_t> r(red_extents.size(), 0);
      do {
        for (size_t d = 0; d < r.size(); ++d) ev.Bind(reduce->axes[d].var.get(), r[d]);
        if (reduce->condition && !Truthy(reduce->condition.dtype(), ev.Eval(reduce->condition)))
          continue;
        v = ev.Apply(combine, t, v, Convert(ev.Eval(reduce->source), reduce->source.dtype(), t));
      } while (Next(r, red_extents));
    }
    if (!ev.status().ok())
      return absl::InvalidArgumentError(absl::StrCat(
          "op '", op->name, "' at ", ShapeToString(point), ": ", ev.status().message()));
    if (t.is_float()) {
      out.SetDouble(flat, v.f);
    } else {
      out.SetInt(flat, v.i);
    }
    ++flat;
  } while (Next(point, extents));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<NDArray>> Interpret(const ComputeDag& dag,
                                               const std::vector<NDArray>& inputs) {
  const std::vector<int> input_ops = dag.InputOps();
  if (inputs.size() != input_ops.size())
    return absl::InvalidArgumentError(absl::StrCat("the DAG has ", input_ops.size(), " inputs but ",
                                                   inputs.size(),
                                                   " arrays were given; pass one per placeholder"));
  TensorValues values;
  for (size_t k = 0; k < input_ops.size(); ++k) {
    const Tensor& op = dag.op(input_ops[k]);
    if (inputs[k].dtype() != op->dtype || inputs[k].shape() != op->shape)
      return absl::InvalidArgumentError(absl::StrCat("input ", k, " ('", op->name, "') must be ",
                                                     ToString(op->dtype), ShapeToString(op->shape),
                                                     ", got ", ToString(inputs[k].dtype()),
                                                     ShapeToString(inputs[k].shape())));
    values[op.get()] = &inputs[k];
  }
  std::vector<NDArray> computed(dag.num_ops());
  for (int i = 0; i < dag.num_ops(); ++i) {
    const Tensor& op = dag.op(i);
    if (op->is_placeholder()) continue;
    absl::StatusOr<NDArray> out = NDArray::Empty(op->dtype, op->shape);
    if (!out.ok()) return out.status();
    absl::Status s = EvaluateOp(op, values, *out);
    if (!s.ok()) return s;
    computed[i] = *std::move(out);
    values[op.get()] = &computed[i];
  }
  std::vector<NDArray> outputs;
  for (int i : dag.OutputOps()) outputs.push_back(std::move(computed[i]));
  return outputs;
}

absl::StatusOr<ScalarValue> EvaluateScalar(const Expr& e,
                                           const std::vector<std::pair<Var, int64_t>>& bindings) {
  Evaluator ev(nullptr);
  for (const auto& [var, value] : bindings) ev.Bind(var.get(), value);
  Value v = ev.Eval(e);
  if (!ev.status().ok()) return ev.status();
  ScalarValue out;
  out.dtype = e.dtype();
  out.i = v.i;
  out.f = v.f;
  return out;
}

}  // namespace tuneforge::te
