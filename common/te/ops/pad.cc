#include "common/te/ops/pad.h"

#include "absl/strings/str_cat.h"
#include "common/te/ops/indexing.h"

namespace tuneforge::te::ops {

absl::StatusOr<Tensor> Pad(const Tensor& input, const std::vector<int64_t>& before,
                           const std::vector<int64_t>& after, const Expr& value,
                           const std::vector<std::string>& axis_names, std::string name) {
  size_t rank = input->shape.size();
  if (before.size() != rank || after.size() != rank)
    return absl::InvalidArgumentError(absl::StrCat("pad '", name, "': ", rank,
                                                   "-dimensional input '", input->name, "' needs ",
                                                   rank, " padding amounts per side"));
  bool any = false;
  for (size_t d = 0; d < rank; ++d) {
    if (before[d] < 0 || after[d] < 0)
      return absl::InvalidArgumentError(absl::StrCat("pad '", name, "': dimension ", d,
                                                     " has negative padding; use 0 or more"));
    any = any || before[d] > 0 || after[d] > 0;
  }
  if (!any) return input;

  std::vector<std::string> names = axis_names.size() == rank ? axis_names : AxisNamesOf(input);
  std::vector<IterVar> axes;
  Expr inside;
  std::vector<Expr> source;
  for (size_t d = 0; d < rank; ++d) {
    axes.push_back(Axis(names[d], before[d] + input->shape[d] + after[d]));
    Expr i(axes.back().var);
    if (before[d] > 0) inside = Conjoin(inside, i >= IntConst(before[d]));
    if (after[d] > 0) inside = Conjoin(inside, i < IntConst(before[d] + input->shape[d]));
    source.push_back(Affine(i, 1, -before[d]));
  }
  Expr body = MakeSelect(inside, Read(input, std::move(source)), value);
  return MakeCompute(std::move(name), std::move(axes), std::move(body), "pad");
}

}  // namespace tuneforge::te::ops
