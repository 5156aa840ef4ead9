// Parameter validation shared by the op builders. Every message names the op,
// the offending key and value, and what would make it valid.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/te/dtype.h"

namespace tuneforge::te::ops {

// A named integer parameter ("H", 56), so messages can say which key is wrong.
struct Param {
  absl::string_view key;
  int64_t value;
};

absl::Status RequirePositive(absl::string_view op, std::initializer_list<Param> params);
absl::Status RequireNonNegative(absl::string_view op, std::initializer_list<Param> params);
// value % divisor == 0 ("C=30 is not divisible by groups=4").
absl::Status RequireDivisible(absl::string_view op, Param value, Param divisor);
// Any element type but bool.
absl::Status RequireNumeric(absl::string_view op, DType dtype);
// float32 or float64: ops that call exp, sqrt, ... or divide by a count.
absl::Status RequireFloat(absl::string_view op, DType dtype);

// One spatial dimension of a sliding window: the input extent and the kernel
// extent with their keys.
struct WindowDim {
  absl::string_view in_key;
  int64_t in;
  absl::string_view kernel_key;
  int64_t kernel;
};
// Output extent (in + 2*pad - dilation*(kernel-1) - 1) / stride + 1; an error
// when the dilated kernel does not fit in the padded input.
absl::StatusOr<int64_t> WindowOutputExtent(absl::string_view op, const WindowDim& dim, int64_t stride,
                                           int64_t pad, int64_t dilation);

}  // namespace tuneforge::te::ops
