// Stand-alone elementwise ops over a tensor of any rank, one stage each:
//   relu[...] = max(data[...], 0)
//   add[...]  = A[...] + B[...]
// The shape is a list of named dimensions, outermost first; the axes take the
// names in lower case ("n", "c", "h", "w"). The channel axis (for a `bias`
// epilogue) is the dimension named "C" if there is one, else the last.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/te/ops/built_op.h"

namespace tuneforge::te::ops {

struct ElementwiseParams {
  std::vector<std::pair<std::string, int64_t>> dims;  // {"N", 1}, {"C", 64}, ...
  DType dtype = DType::Float32();
};
absl::StatusOr<BuiltOp> Relu(const ElementwiseParams& p);
absl::StatusOr<BuiltOp> Add(const ElementwiseParams& p);

}  // namespace tuneforge::te::ops
