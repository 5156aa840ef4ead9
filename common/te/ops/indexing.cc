#include "common/te/ops/indexing.h"

#include "absl/strings/str_cat.h"

namespace tuneforge::te::ops {

IterVar Axis(std::string name, int64_t extent) { return IterVar{MakeVar(std::move(name)), extent}; }

std::vector<IterVar> Axes(const std::vector<std::pair<std::string, int64_t>>& named_extents) {
  std::vector<IterVar> axes;
  axes.reserve(named_extents.size());
  for (const auto& [name, extent] : named_extents) axes.push_back(Axis(name, extent));
  return axes;
}

std::vector<Expr> AxisExprs(const std::vector<IterVar>& axes) {
  std::vector<Expr> out;
  out.reserve(axes.size());
  for (const IterVar& a : axes) out.emplace_back(a.var);
  return out;
}

Expr Affine(const Expr& base, int64_t scale, int64_t offset) {
  Expr e = scale == 1 ? base : base * IntConst(scale);
  if (offset > 0) return e + IntConst(offset);
  if (offset < 0) return e - IntConst(-offset);
  return e;
}

Expr WindowIndex(const Var& out, int64_t stride, const Var& window, int64_t dilation) {
  return Affine(Expr(out), stride, 0) + Affine(Expr(window), dilation, 0);
}

Expr Conjoin(const Expr& acc, const Expr& term) { return acc ? LogicalAnd(acc, term) : term; }

std::vector<std::string> AxisNamesOf(const Tensor& t) {
  std::vector<std::string> names;
  for (size_t d = 0; d < t->shape.size(); ++d)
    names.push_back(t->is_compute() ? t->axes[d].var->name : absl::StrCat("i", d));
  return names;
}

}  // namespace tuneforge::te::ops
