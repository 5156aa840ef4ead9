// Measurer: compiles candidate schedules of a workload and times them in a
// sandboxed runner process, each checked against the reference (the
// unscheduled program) on fixed random inputs.
//
//   auto m = Measurer::Create(codegen::Target::Host(), options);
//   results = (*m)->Measure(dag, candidates);
//
//   Measure:  reference built once per workload (cached)
//             -> candidates built in parallel (build_jobs threads)
//             -> each built candidate, one at a time, in the runner:
//                load, run once, compare with the reference outputs,
//                time (number / repeat / min_repeat_ms)
//             -> one MeasureResult per candidate, in order
//
// A candidate that fails to build, crashes, hangs, runs out of memory or
// computes a wrong answer gets an error kind and message; the others are
// unaffected. Not thread-safe: one caller at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "common/codegen/function_object_cache.h"
#include "common/codegen/target.h"
#include "common/schedule/steps.h"
#include "common/te/compute_dag.h"
#include "measure/builder.h"
#include "measure/measure_types.h"
#include "measure/runner_process.h"

namespace tuneforge::measure {

// Seed of the input contents every runner uses: input i (in DAG order) is
// NDArray::FillRandom(kInputSeed + i).
inline constexpr uint64_t kInputSeed = 20201104;

class Measurer {
 public:
  // Errors: a target that cannot run on this machine, a runner binary that
  // cannot be found.
  static absl::StatusOr<std::unique_ptr<Measurer>> Create(codegen::Target target,
                                                          MeasureOptions options = {});

  std::vector<MeasureResult> Measure(const te::ComputeDagPtr& dag,
                                     const std::vector<std::vector<schedule::Step>>& candidates);
  MeasureResult MeasureOne(const te::ComputeDagPtr& dag, const std::vector<schedule::Step>& steps);
  // Kernels already built (e.g. from hand-written loop nests): `reference`
  // computes the expected outputs of `dag`. A candidate `behind` the job's
  // best is timed less (BehindBest).
  std::vector<MeasureResult> MeasureBuilt(const te::ComputeDag& dag, const BuiltKernel& reference,
                                          const std::vector<BuiltKernel>& candidates, BehindBest behind = {});

  const MeasureOptions& options() const { return options_; }
  const codegen::Target& target() const { return target_; }
  int runner_starts() const { return runner_.starts(); }

 private:
  Measurer(codegen::Target target, MeasureOptions options, RunnerConfig runner);
  const BuiltKernel& Reference(const te::ComputeDagPtr& dag);
  MeasureResult Run(const te::ComputeDag& dag, const BuiltKernel& reference,
                    const BuiltKernel& candidate, BehindBest behind);

  codegen::Target target_;
  MeasureOptions options_;
  RunnerProcess runner_;
  absl::flat_hash_map<std::string, BuiltKernel> references_;  // by workload key
  // Functions compiled for earlier candidates, reused by later ones.
  codegen::FunctionObjectCache function_cache_;
};

// The runner binary Create would use for `options` (see MeasureOptions).
std::string ResolveRunnerPath(const MeasureOptions& options);
// The runner binary and memory limit of a child started for `options`
// (runners and the builder processes of a BuilderPool alike).
ChildConfig RunnerChildConfig(const MeasureOptions& options);

}  // namespace tuneforge::measure
