#include "tests/lower/lower_test_util.h"

#include "absl/strings/str_cat.h"
#include "common/lower/printer.h"
#include "common/te/interpreter.h"
#include "common/te/ndarray.h"
#include "common/te/workload.h"
#include "tests/lower/loop_interpreter.h"

namespace tuneforge::lower::testing {

te::ComputeDagPtr Dag(const std::string& spec) {
  absl::StatusOr<te::Workload> w = te::ParseWorkload(spec);
  if (!w.ok()) return nullptr;
  return w->dag;
}

std::string CheckAgainstReference(const schedule::State& state, const LowerOptions& options) {
  absl::StatusOr<LoweredFunc> f = Lower(state, options);
  if (!f.ok()) return absl::StrCat("lowering failed: ", f.status().message());
  const te::ComputeDag& dag = *state.original_dag();
  std::vector<te::NDArray> inputs;
  uint64_t seed = 1;
  for (int i : dag.InputOps()) {
    absl::StatusOr<te::NDArray> a = te::NDArray::Empty(dag.op(i)->dtype, dag.op(i)->shape);
    a->FillRandom(seed++);
    inputs.push_back(*std::move(a));
  }
  absl::StatusOr<std::vector<te::NDArray>> expected = te::Interpret(dag, inputs);
  if (!expected.ok()) return absl::StrCat("reference failed: ", expected.status().message());
  std::vector<te::NDArray> outputs;
  for (size_t o = 0; o < expected->size(); ++o) {
    absl::StatusOr<te::NDArray> a = te::NDArray::Empty((*expected)[o].dtype(), (*expected)[o].shape());
    a->Fill(-12345);
    outputs.push_back(*std::move(a));
  }
  std::vector<te::NDArray*> args;
  for (auto& a : inputs) args.push_back(&a);
  for (auto& a : outputs) args.push_back(&a);
  // Packed constants (layout rewrite): filled once by the prepack function.
  std::vector<te::NDArray> packed;
  for (size_t i = f->args.size() - f->num_packed; i < f->args.size(); ++i)
    packed.push_back(*te::NDArray::Empty(f->args[i]->dtype, f->args[i]->shape));
  for (auto& a : packed) args.push_back(&a);
  if (f->prepack) {
    if (absl::Status s = RunLoweredFunc(f->prepack_func(), args); !s.ok())
      return absl::StrCat("prepack failed: ", s.message(), "\n", ToString(*f));
  }
  if (absl::Status s = RunLoweredFunc(*f, args); !s.ok())
    return absl::StrCat("running failed: ", s.message(), "\n", ToString(*f));
  for (size_t o = 0; o < outputs.size(); ++o) {
    absl::StatusOr<te::CompareResult> c = te::Compare(outputs[o], (*expected)[o]);
    if (!c.ok()) return absl::StrCat("compare failed: ", c.status().message());
    if (!c->ok) return absl::StrCat("output ", o, " differs: ", c->Summary(), "\n", ToString(*f));
  }
  return "";
}

}  // namespace tuneforge::lower::testing
