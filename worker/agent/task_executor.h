// TaskExecutor: a lease's measure tasks -> one result each.
//
//   every task:  parse its workload (cached) and check the workload key
//                against the task's: a mismatch means the server and the
//                worker disagree on the computation, so nothing is timed
//   build mode:  references (one per workload, cached) and candidates
//                compiled in parallel in build_jobs builder processes,
//                each build under build_timeout_s (builder_pool.h); a
//                re-timing times the kernel built before when it is still
//                kept (built_kernel_cache.h), its compile_ms then 0
//   runner-only: the candidate and reference objects the server shipped,
//                with the kernel arguments taken from the parsed DAG
//   then:        each task timed alone, in task order, in the sandboxed
//                runner (one Measurer per distinct option set); a task
//                behind the best this worker has timed for its workload
//                is timed less, like one behind its job's best
//                (measure/behind_best.h): a job's first round has no best
//
// A bad task (unparsable, wrong key, bad schedule, missing object, a kernel
// that crashes or hangs) costs only its own result. Not thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "common/codegen/target.h"
#include "proto/tuneforge.pb.h"
#include "worker/agent/built_kernel_cache.h"
#include "worker/agent/measurer_pool.h"
#include "worker/agent/workload_cache.h"
#include "measure/builder.h"
#include "measure/build_service.h"
#include "measure/builder_pool.h"

namespace tuneforge::worker {

namespace v1 = ::tuneforge::v1;

struct ExecutorOptions {
  bool runner_only = false;  // never compile: use the objects in the tasks
  int build_jobs = 0;        // parallel compiles; 0: all cores
  std::string runner_path;   // see measure::MeasureOptions::runner_path
  // A candidate whose compile takes longer is a compile_error (its builder
  // process is killed): one pathological program must not hold the worker.
  double build_timeout_s = 60;
  // The device measured on (a GPU worker's GPU); unset: this CPU.
  std::optional<codegen::Target> target = std::nullopt;
};

class TaskExecutor {
 public:
  // Errors: no runner binary.
  static absl::StatusOr<std::unique_ptr<TaskExecutor>> Create(ExecutorOptions options);
  ~TaskExecutor();

  // Results in task order. Once `stop` returns true (it is polled from the
  // build threads too) no further task is started, and the results are
  // those of the tasks finished so far: a prefix of `tasks`.
  std::vector<v1::MeasureResult> Execute(const std::vector<v1::MeasureTask>& tasks,
                                         const std::function<bool()>& stop);

 private:
  struct Prepared;
  TaskExecutor(ExecutorOptions options, codegen::Target host);
  void Prepare(const v1::MeasureTask& task, Prepared& out);
  void TakeShippedKernels(const v1::MeasureTask& task, Prepared& out);
  void BuildAll(std::vector<Prepared>& prepared, const std::function<bool()>& stop);
  v1::MeasureResult Time(const v1::MeasureTask& task, const Prepared& prepared, measure::BehindBest behind);
  static std::string BestKey(const v1::MeasureTask& task);
  // The task's limits, tightened by this worker's best for its workload.
  measure::BehindBest LimitsFor(const v1::MeasureTask& task) const;
  void RememberBest(const v1::MeasureTask& task, const v1::MeasureResult& result);

  ExecutorOptions options_;
  codegen::Target host_;
  WorkloadCache workloads_;
  MeasurerPool measurers_;
  std::unique_ptr<measure::BuilderPool> builders_;  // null when runner-only
  // Built references by workload key (build mode); cleared when full.
  absl::flat_hash_map<std::string, std::shared_ptr<const measure::BuiltKernel>> references_;
  // The fastest correct time per run this worker measured, by workload and
  // options (BestKey); cleared when full.
  absl::flat_hash_map<std::string, double> best_seconds_;
  // Candidates built here, for their re-timings (build mode).
  BuiltKernelCache built_candidates_;
};

}  // namespace tuneforge::worker
