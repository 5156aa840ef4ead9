#include "common/te/tensor.h"

#include "absl/strings/str_cat.h"
#include "common/te/expr_util.h"

namespace tuneforge::te {

int64_t TensorNode::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Tensor Placeholder(std::string name, std::vector<int64_t> shape, DType dtype) {
  auto t = std::make_shared<TensorNode>();
  t->name = std::move(name);
  t->dtype = dtype;
  t->shape = std::move(shape);
  t->tag = "placeholder";
  return t;
}

Tensor ConstantPlaceholder(std::string name, std::vector<int64_t> shape, DType dtype) {
  Tensor t = Placeholder(std::move(name), std::move(shape), dtype);
  std::const_pointer_cast<TensorNode>(t)->constant = true;
  return t;
}

IterVar ReduceAxis(int64_t extent, std::string name) { return IterVar{MakeVar(std::move(name)), extent}; }

Expr Read(const Tensor& t, std::vector<Expr> indices) { return MakeTensorRead(t, std::move(indices)); }

absl::StatusOr<Tensor> MakeCompute(std::string name, std::vector<IterVar> axes, Expr body,
                                   std::string tag) {
  if (axes.empty())
    return absl::InvalidArgumentError(
        absl::StrCat("compute '", name, "': needs at least one output dimension"));
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i].extent <= 0)
      return absl::InvalidArgumentError(absl::StrCat("compute '", name, "': dimension ", i,
                                                     " has extent ", axes[i].extent,
                                                     "; extents must be positive"));
  if (!body) return absl::InvalidArgumentError(absl::StrCat("compute '", name, "': empty body"));
  // A Reduce is only legal as the whole body.
  const Reduce* top = body.as<Reduce>();
  bool nested = false;
  auto check_nested = [&](const Expr& root) {
    PostOrderVisit(root, [&](const Expr& x) {
      if (x.as<Reduce>()) nested = true;
    });
  };
  if (top) {
    check_nested(top->source);
    if (top->condition) check_nested(top->condition);
    if (top->axes.empty())
      return absl::InvalidArgumentError(
          absl::StrCat("compute '", name, "': reduction without reduction axes"));
    for (const IterVar& r : top->axes)
      if (r.extent <= 0)
        return absl::InvalidArgumentError(absl::StrCat("compute '", name, "': reduction axis '",
                                                       r.var->name, "' has extent ", r.extent,
                                                       "; extents must be positive"));
  } else {
    check_nested(body);
  }
  if (nested)
    return absl::InvalidArgumentError(absl::StrCat(
        "compute '", name, "': a reduction (sum/max/min) must be the whole body, not part of it; "
        "compute it as its own tensor first"));
  auto t = std::make_shared<TensorNode>();
  t->name = std::move(name);
  t->dtype = body.dtype();
  for (const IterVar& a : axes) t->shape.push_back(a.extent);
  t->axes = std::move(axes);
  t->body = std::move(body);
  t->tag = std::move(tag);
  return Tensor(std::move(t));
}

absl::StatusOr<Tensor> Compute(std::string name, std::vector<int64_t> shape, const ComputeFn& fn,
                               std::string tag) {
  static const char* kAxisNames[] = {"i", "j", "k", "l", "m", "n", "o", "p"};
  std::vector<IterVar> axes;
  std::vector<Var> vars;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::string axis_name = d < 8 ? kAxisNames[d] : absl::StrCat("ax", d);
    axes.push_back(IterVar{MakeVar(axis_name), shape[d]});
    vars.push_back(axes.back().var);
  }
  if (shape.empty())
    return absl::InvalidArgumentError(
        absl::StrCat("compute '", name, "': needs at least one output dimension"));
  return MakeCompute(std::move(name), std::move(axes), fn(vars), std::move(tag));
}

}  // namespace tuneforge::te
