// Builder: a candidate's steps -> replayed State -> lowered loop nest ->
// object code, plus what a runner needs to call it. Candidates are
// independent: they are built in parallel, and a bad one only fails itself.
//
//   BuildSchedule(dag, steps, target)        one candidate
//   BuildSchedules(dag, candidates, target)  many, on `jobs` threads
//   BuildLowered(dag, func, target)          a loop nest built elsewhere (tests)
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/codegen/compiler.h"
#include "common/codegen/target.h"
#include "common/lower/stmt.h"
#include "common/schedule/steps.h"
#include "common/te/compute_dag.h"
#include "measure/error_kind.h"
#include "measure/kernel_args.h"

namespace tuneforge::measure {

struct BuiltKernel {
  codegen::CompiledObject object;
  std::vector<ArgSpec> args;
  double build_ms = 0;  // wall time of replay + lower + compile
  MeasureErrorKind error_kind = MeasureErrorKind::kNone;
  std::string error;

  bool ok() const { return error_kind == MeasureErrorKind::kNone; }
  // A kernel that was not built, and why.
  static BuiltKernel Failed(MeasureErrorKind kind, std::string error) {
    BuiltKernel k;
    k.error_kind = kind;
    k.error = std::move(error);
    return k;
  }
};

// Errors are reported in the result: invalid_schedule (replay), lower_error,
// compile_error. `options` (CPU targets): LLVM's optimization level; the
// default is what workers build with.
BuiltKernel BuildSchedule(const te::ComputeDagPtr& dag, const std::vector<schedule::Step>& steps,
                          const codegen::Target& target, const codegen::CompileOptions& options = {});
// The reference: the unscheduled program (no steps).
inline BuiltKernel BuildReference(const te::ComputeDagPtr& dag, const codegen::Target& target) {
  return BuildSchedule(dag, {}, target);
}
BuiltKernel BuildLowered(const te::ComputeDag& dag, const lower::LoweredFunc& func,
                         const codegen::Target& target);

// Runs build(i) for i in [0, n) on up to `jobs` threads (0: all cores).
std::vector<BuiltKernel> BuildParallel(int n, int jobs,
                                       const std::function<BuiltKernel(int)>& build);
std::vector<BuiltKernel> BuildSchedules(const te::ComputeDagPtr& dag,
                                        const std::vector<std::vector<schedule::Step>>& candidates,
                                        const codegen::Target& target, int jobs,
                                        const codegen::CompileOptions& options = {});

// The kernel's arguments, checked against the DAG: one per placeholder then
// one per output, with the ops' dtypes and shapes.
absl::StatusOr<std::vector<ArgSpec>> KernelArgs(const te::ComputeDag& dag,
                                                const lower::LoweredFunc& func);

}  // namespace tuneforge::measure
