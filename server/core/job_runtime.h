// What the job manager keeps per job: the job as clients see it, plus the
// search state of a running job.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "common/te/workload.h"
#include "server/core/build_deadline.h"
#include "server/domain/job.h"
#include "search/search_policy.h"
#include "search/task_scheduler/task_scheduler.h"

namespace tuneforge::server {

struct JobRuntime {
  Job job;
  std::vector<te::Workload> workloads;  // parsed spec.workloads
  std::vector<std::unique_ptr<search::SearchPolicy>> policies;  // one per workload
  std::shared_ptr<search::SharedCostModel> cost_model;          // the policies' (ansor); null otherwise
  std::vector<std::vector<search::MeasuredCandidate>> feedback;  // per workload, for the next round
  int64_t issued = 0;     // tasks created (measured or outstanding)
  int64_t next_seq = 0;   // task id counter
  // Per workload, what the task scheduler picks the next share by.
  std::vector<search::TaskState> tasks;
  // Per workload, the fastest correct time earlier jobs offer (0: none):
  // the job goes on from it (earlier_records.h), so its tasks' bests are
  // never slower.
  std::vector<double> earlier_best_seconds;
  // Per workload, its candidates' compile times: their build deadline.
  std::vector<CompileTimes> compile_times;
  std::unique_ptr<search::TaskScheduler> scheduler;
  int round = 0;
  std::set<std::string> retime_issued;  // task ids of records sent for re-timing
  // Final comparisons issued (retiming.h: a busy one is issued again), and
  // per workload the medians its leaders had before the first (task id ->
  // seconds), which tell a busy comparison.
  int comparisons = 0;
  std::vector<std::map<std::string, double>> median_before_comparison;
  int64_t comparison_stamp_ms = 0;  // the last comparison's
  bool compared() const { return comparisons > 0; }
  // When a busy comparison is run again (JobManagerOptions::
  // compare_again_after): set while the job waits for it (the search plans
  // none of its rounds before), unset otherwise.
  std::optional<absl::Time> compare_again_at;
  int64_t trials_at_start = 0;  // for the ETA of a resumed job
  absl::Time started;
  uint64_t version = 1;
  std::string message;
  bool dirty = false;     // job changed since last saved

  bool finished() const { return job.finished(); }
  int batch_size() const;
  // Seconds to completion from the rate so far, -1 when unknown.
  double EtaSeconds() const;
  // "round 3: 192/200 trials, best 812.3 GFLOPS (1.234 ms), 2 errors, 4 re-timed".
  std::string ProgressLine() const;
};

}  // namespace tuneforge::server
