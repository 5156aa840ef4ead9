// What a runner must allocate for a kernel: one argument per buffer of the
// kernel's `void** args`, in order (inputs in DAG order, then outputs).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/te/dtype.h"

namespace tuneforge::te {
class ComputeDag;
}  // namespace tuneforge::te

namespace tuneforge::measure {

struct ArgSpec {
  std::string name;  // the DAG op's name, for messages
  te::DType dtype;
  std::vector<int64_t> shape;
  bool is_output = false;

  friend bool operator==(const ArgSpec&, const ArgSpec&) = default;
};

// The arguments every kernel of `dag` takes, from the DAG alone: one per
// placeholder then one per output, with the ops' dtypes and shapes. What a
// runner-only worker needs to run an object built elsewhere.
std::vector<ArgSpec> DagArgSpecs(const te::ComputeDag& dag);

// "A: float32[64, 32]" or "C: float32[64, 64] (output)".
std::string ToString(const ArgSpec& arg);

}  // namespace tuneforge::measure
