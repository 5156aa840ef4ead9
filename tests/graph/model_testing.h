// Helpers the graph tests share: running one ONNX backend-test case
// (model.onnx beside test_data_set_*/input_*.pb and output_*.pb) and
// comparing outputs.
#pragma once

#include <string>
#include <vector>

#include "common/te/ndarray.h"
#include "tests/graph/onnx_builder.h"

namespace tuneforge::graph {

struct CaseOutcome {
  enum Kind { kPassed, kUnsupported, kFailed } kind = kFailed;
  std::string message;
};

// Imports, compiles (unscheduled kernels), runs every data set of the case
// and compares with the stored outputs.
CaseOutcome RunBackendCase(const std::string& dir);

// Imports and compiles the model (unscheduled kernels) and expects its
// outputs on random inputs, run twice, to match the unfused graph evaluated
// node by node by the reference interpreter, which shares neither the
// fusion, the library kernels nor the memory plan; also that every task
// without a library spec reads back from its definition text to its key.
void ExpectExecutorMatchesInterpreter(const testing::OnnxBuilder& b);

// Element-wise closeness with the ONNX backend tests' tolerance (rtol 1e-3,
// atol 1e-5), comparing element counts rather than shapes (scalars are [1]).
std::string Mismatch(const te::NDArray& got, const te::NDArray& want);

}  // namespace tuneforge::graph
