#include "common/te/interpreter.h"

#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/overloaded.h"
#include "common/te/expr_util.h"
#include "common/te/op_semantics.h"

namespace tuneforge::te {
namespace {

// Values and operators come from the one semantics table (op_semantics.h).
using Value = Scalar;

using TensorValues = absl::flat_hash_map<const TensorNode*, const NDArray*>;

// Walks expressions. The first error is kept in status() and evaluation
// returns zeros from then on; callers check status() per output element, so
// no StatusOr is built per node.
class Evaluator {
 public:
  explicit Evaluator(const TensorValues* tensors) : tensors_(tensors) {}

  const absl::Status& status() const { return status_; }
  void set_context(std::string context) { context_ = std::move(context); }

  void Bind(const VarNode* var, int64_t value) { Bind(var, Value{value, 0}); }
  void Bind(const VarNode* var, Value value) {
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
            [&](const IntImm&) { return *ConstantValue(e); },
            [&](const FloatImm&) { return *ConstantValue(e); },
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
    std::optional<Value> r = ApplyBinary(op, t, a, b);
    if (!r) return Fail(absl::StrCat("integer division by zero (", BinOpSymbol(op), ")"));
    return *r;
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
      if (v == var) return Normalize(var->dtype, x);
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
    return Convert(Value{0, ApplyIntrinsic(n.fn, t, x, y)}, DType::Float64(), t);
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
  std::vector<std::pair<const VarNode*, Value>> env_;
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

namespace {

absl::StatusOr<ScalarValue> EvaluateWith(Evaluator& ev, const Expr& e) {
  Value v = ev.Eval(e);
  if (!ev.status().ok()) return ev.status();
  ScalarValue out;
  out.dtype = e.dtype();
  out.i = v.i;
  out.f = v.f;
  return out;
}

}  // namespace

absl::StatusOr<ScalarValue> EvaluateScalar(const Expr& e,
                                           const std::vector<std::pair<Var, int64_t>>& bindings) {
  Evaluator ev(nullptr);
  for (const auto& [var, value] : bindings) ev.Bind(var.get(), value);
  return EvaluateWith(ev, e);
}

absl::StatusOr<ScalarValue> EvaluateScalarWith(
    const Expr& e, const std::vector<std::pair<Var, ScalarValue>>& bindings) {
  Evaluator ev(nullptr);
  for (const auto& [var, value] : bindings) ev.Bind(var.get(), Value{value.i, value.f});
  return EvaluateWith(ev, e);
}

}  // namespace tuneforge::te
