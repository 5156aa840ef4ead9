#include "common/te/ops/checks.h"

#include "absl/strings/str_cat.h"

namespace tuneforge::te::ops {

absl::Status RequirePositive(absl::string_view op, std::initializer_list<Param> params) {
  for (const Param& p : params)
    if (p.value <= 0)
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": ", p.key, "=", p.value, " must be positive (at least 1)"));
  return absl::OkStatus();
}

absl::Status RequireNonNegative(absl::string_view op, std::initializer_list<Param> params) {
  for (const Param& p : params)
    if (p.value < 0)
      return absl::InvalidArgumentError(
          absl::StrCat(op, ": ", p.key, "=", p.value, " must not be negative (0 or more)"));
  return absl::OkStatus();
}

absl::Status RequireDivisible(absl::string_view op, Param value, Param divisor) {
  if (divisor.value > 0 && value.value % divisor.value == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(op, ": ", value.key, "=", value.value,
                                                 " is not divisible by ", divisor.key, "=",
                                                 divisor.value, "; choose ", divisor.key,
                                                 " so that it divides ", value.key));
}

absl::Status RequireNumeric(absl::string_view op, DType dtype) {
  if (!dtype.is_bool()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(op, ": dtype=bool is not supported; use float32, float64, int8, int32 or int64"));
}

absl::Status RequireFloat(absl::string_view op, DType dtype) {
  if (dtype.is_float()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(op, ": dtype=", ToString(dtype),
                                                 " is not supported; this op needs dtype=float32 "
                                                 "or dtype=float64"));
}

absl::StatusOr<int64_t> WindowOutputExtent(absl::string_view op, const WindowDim& dim, int64_t stride,
                                           int64_t pad, int64_t dilation) {
  int64_t padded = dim.in + 2 * pad;
  int64_t span = dilation * (dim.kernel - 1) + 1;
  if (span > padded) {
    std::string kernel = dilation == 1 ? absl::StrCat(dim.kernel_key, "=", dim.kernel)
                                       : absl::StrCat(dim.kernel_key, "=", dim.kernel,
                                                      " dilated by ", dilation, " spans ", span);
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": the kernel (", kernel, ") is larger than the padded input (", dim.in_key, "=",
        dim.in, " plus 2*pad=", 2 * pad, " gives ", padded,
        "); use a smaller kernel or dilation, or more padding"));
  }
  return (padded - span) / stride + 1;
}

}  // namespace tuneforge::te::ops
