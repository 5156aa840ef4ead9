#include "tests/search/policy/reference_check.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "common/codegen/compiler.h"
#include "common/codegen/packed_constants.h"
#include "common/lower/lower.h"
#include "common/te/interpreter.h"

namespace tuneforge::search::testing {

te::Workload MustParse(const std::string& spec) {
  absl::StatusOr<te::Workload> w = te::ParseWorkload(spec);
  EXPECT_TRUE(w.ok()) << spec << ": " << w.status();
  return *w;
}

std::string CheckAgainstReference(const te::Workload& w, const schedule::State& state, uint64_t seed,
                                  ReferenceRun* run) {
  ReferenceRun local;
  ReferenceRun& r = run ? *run : local;
  absl::StatusOr<lower::LoweredFunc> func = lower::Lower(state);
  if (!func.ok()) return absl::StrCat("the state was accepted but lowering failed: ", func.status().message());
  r.func = *func;
  absl::StatusOr<std::unique_ptr<codegen::LoadedKernel>> kernel = codegen::JitCompile(*func);
  if (!kernel.ok()) return absl::StrCat("compiling failed: ", kernel.status().message());
  const te::ComputeDag& dag = *w.dag;
  for (int i : dag.InputOps()) {
    r.inputs.push_back(*te::NDArray::Empty(dag.op(i)->dtype, dag.op(i)->shape));
    r.inputs.back().FillRandom(seed + i);
  }
  absl::StatusOr<std::vector<te::NDArray>> expected = te::Interpret(dag, r.inputs);
  if (!expected.ok()) return absl::StrCat("reference failed: ", expected.status().message());
  r.expected = *std::move(expected);
  for (const te::NDArray& e : r.expected) {
    r.outputs.push_back(*te::NDArray::Empty(e.dtype(), e.shape()));
    r.outputs.back().Fill(-777);  // an unwritten element cannot pass
  }
  std::vector<void*> args;
  for (te::NDArray& a : r.inputs) args.push_back(a.data());
  for (te::NDArray& a : r.outputs) args.push_back(a.data());
  absl::StatusOr<codegen::PackedConstants> packed =
      codegen::PackedConstants::Prepare(**kernel, codegen::PackedArgsOf(*func), args);
  if (!packed.ok()) return absl::StrCat("packing the constants failed: ", packed.status().message());
  args = packed->Append(std::move(args));
  if (int32_t rc = (**kernel)(args.data()); rc != 0) return absl::StrCat("kernel returned ", rc);
  for (size_t o = 0; o < r.outputs.size(); ++o) {
    absl::StatusOr<te::CompareResult> c = te::Compare(r.outputs[o], r.expected[o]);
    if (c.ok() && c->ok) continue;
    r.mismatched_output = static_cast<int>(o);
    return absl::StrCat("output ", o, " differs: ", c.ok() ? c->Summary() : c.status().ToString());
  }
  return "";
}

}  // namespace tuneforge::search::testing
