// The ONNX backend-test layout beside a model: test_data_set_K/input_I.pb and
// output_O.pb, each a serialized TensorProto. `tuneforge run` checks a model
// against it; the conformance tests run Debian's cases with it.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/te/ndarray.h"

namespace tuneforge::graph {

struct TestDataSet {
  std::vector<te::NDArray> inputs, outputs;
};

// Every test_data_set_K in `dir` from K = 0 until one is missing, each with
// its first `inputs` inputs and `outputs` outputs (none when `dir` has no
// data). Errors: a listed file that is missing or no TensorProto.
absl::StatusOr<std::vector<TestDataSet>> ReadTestDataSets(const std::string& dir, size_t inputs, size_t outputs);

}  // namespace tuneforge::graph
