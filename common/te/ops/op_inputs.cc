#include "common/te/ops/op_inputs.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tuneforge::te::ops {

absl::Status RequireInputCount(absl::string_view op, const OpInputs& given, size_t count) {
  if (given.empty() || given.size() == count) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(op, " takes ", count, " inputs, but ", given.size(), " were given"));
}

absl::StatusOr<Tensor> OpInput(absl::string_view op, const OpInputs& given, size_t index,
                               std::string name, std::vector<int64_t> shape, DType dtype,
                               InputKind kind) {
  if (given.empty())
    return kind == InputKind::kWeight ? ConstantPlaceholder(std::move(name), std::move(shape), dtype)
                                      : Placeholder(std::move(name), std::move(shape), dtype);
  if (index >= given.size())
    return absl::InvalidArgumentError(absl::StrCat(op, ": input '", name, "' was not given"));
  const Tensor& t = given[index];
  if (t->shape != shape || !(t->dtype == dtype))
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": input '", name, "' must be ", ToString(dtype), "[", absl::StrJoin(shape, ", "),
        "], but '", t->name, "' is ", ToString(t->dtype), "[", absl::StrJoin(t->shape, ", "), "]"));
  return t;
}

}  // namespace tuneforge::te::ops
