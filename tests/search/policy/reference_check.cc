#include "tests/search/policy/reference_check.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "common/codegen/compiler.h"
#include "common/lower/lower.h"
#include "common/te/interpreter.h"
#include "common/te/ndarray.h"

namespace tuneforge::search::testing {

te::Workload MustParse(const std::string& spec) {
  absl::StatusOr<te::Workload> w = te::ParseWorkload(spec);
  EXPECT_TRUE(w.ok()) << spec << ": " << w.status();
  return *w;
}

std::string CheckAgainstReference(const te::Workload& w, const schedule::State& state, uint64_t seed) {
  absl::StatusOr<lower::LoweredFunc> func = lower::Lower(state);
  if (!func.ok()) return absl::StrCat("lowering failed: ", func.status().message());
  absl::StatusOr<std::unique_ptr<codegen::LoadedKernel>> kernel = codegen::JitCompile(*func);
  if (!kernel.ok()) return absl::StrCat("compiling failed: ", kernel.status().message());
  const te::ComputeDag& dag = *w.dag;
  std::vector<te::NDArray> inputs, outputs;
  for (int i : dag.InputOps()) {
    inputs.push_back(*te::NDArray::Empty(dag.op(i)->dtype, dag.op(i)->shape));
    inputs.back().FillRandom(seed + i);
  }
  absl::StatusOr<std::vector<te::NDArray>> expected = te::Interpret(dag, inputs);
  if (!expected.ok()) return absl::StrCat("reference failed: ", expected.status().message());
  for (const te::NDArray& e : *expected) {
    outputs.push_back(*te::NDArray::Empty(e.dtype(), e.shape()));
    outputs.back().Fill(-777);  // an unwritten element cannot pass
  }
  std::vector<void*> args;
  for (te::NDArray& a : inputs) args.push_back(a.data());
  for (te::NDArray& a : outputs) args.push_back(a.data());
  if (int32_t rc = (**kernel)(args.data()); rc != 0) return absl::StrCat("kernel returned ", rc);
  for (size_t o = 0; o < outputs.size(); ++o) {
    absl::StatusOr<te::CompareResult> c = te::Compare(outputs[o], (*expected)[o]);
    if (!c.ok() || !c->ok)
      return absl::StrCat("output ", o, " differs: ", c.ok() ? c->Summary() : c.status().ToString());
  }
  return "";
}

}  // namespace tuneforge::search::testing
