// Padding as its own stage (tag "pad"), so that a schedule can inline it into
// the op that reads it or compute it at that op's loops.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/te/tensor.h"

namespace tuneforge::te::ops {

// `input` with before[d] / after[d] extra elements on each side of dimension
// d, filled with `value`:
//   pad[i0, i1, ...] = select(i_d >= before_d && i_d < before_d + extent_d && ...,
//                             input[i0 - before_0, ...], value)
// Only the bounds that can fail are tested. Returns `input` itself when
// nothing is padded. `axis_names` (optional) names the stage's axes.
absl::StatusOr<Tensor> Pad(const Tensor& input, const std::vector<int64_t>& before,
                           const std::vector<int64_t>& after, const Expr& value,
                           const std::vector<std::string>& axis_names = {},
                           std::string name = "pad");

}  // namespace tuneforge::te::ops
