// A buffer of the lowered program: a kernel argument (an input or output
// tensor) or a temporary allocated by the kernel (cache stages, stages
// computed inside another stage's loops).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/te/dtype.h"

namespace tuneforge::te {

struct BufferNode {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  // Elements between consecutive indices of each dimension. Empty means dense
  // row-major; storage_align makes padded strides.
  std::vector<int64_t> strides;
  std::string scope = "global";  // "global", "local" or "shared"

  // Elements the allocation spans (shape and strides taken into account).
  int64_t alloc_elements() const;
  std::vector<int64_t> dense_strides() const;
  // strides if set, else dense_strides().
  std::vector<int64_t> effective_strides() const;
};

}  // namespace tuneforge::te
