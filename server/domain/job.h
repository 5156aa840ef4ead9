// A tuning job as the server keeps it: what was asked (JobSpec) and how far
// it got (Job). The gRPC service and the record store's row codec convert
// these to and from the API's messages (server/marshal/); nothing inside
// the server reads or mutates a protobuf job.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measure/measure_types.h"
#include "server/domain/workload_source.h"

namespace tuneforge::server {

enum class JobState { kUnspecified, kQueued, kRunning, kDone, kFailed, kCancelled };

// "queued", "running", "done", "failed", "cancelled" ("unspecified").
const char* JobStateName(JobState state);
inline bool IsFinished(JobState state) {
  return state == JobState::kDone || state == JobState::kFailed || state == JobState::kCancelled;
}

struct JobSpec {
  std::vector<WorkloadSource> workloads;  // at least one
  std::string device_key;                 // measured only on workers of this key
  int trials = 0;                         // measurements in all
  std::string policy;                     // search::ParsePolicy's names; "" is ansor
  int batch_size = 0;                     // candidates per round; 0: kDefaultBatchSize
  // The fields the wire carries (timing, threads, timeout); a field the
  // submitter left 0 holds MeasureOptions' default.
  measure::MeasureOptions measure;
  uint64_t seed = 0;                      // of the search; 0: derived from the job id
  std::string name;                       // free text for listings
  int retime_top = 0;                     // 0: kDefaultRetimeTop; -1: no re-timing
  std::string task_scheduler;             // search::ParseTaskScheduler's names; "": round-robin
  std::vector<double> weights;            // per workload; empty: 1 each
  std::string sketch_selection;           // search::ParseSketchSelection's names; "": uniform
  int droplet_after = 0;                  // policy droplet: Ansor's trials first; 0: kDefaultDropletAfter
  std::string mutation_choice;            // search::ParseMutationChoice's names; "": fixed
  // Ansor's (and droplet's Ansor phase's) share of a trained round spent on
  // the best program's neighbours, in [0, 1]; unset: kDefaultBestNeighbourShare.
  std::optional<double> neighbour_share;
  // Per workload: 0, or 1 + the index of the earlier workload it is another
  // form of (same outputs, another algorithm). Empty: none.
  std::vector<int> form_of;
  // Per workload: true where it gets no trials and is tuned in its other
  // forms only. Empty: every workload is tuned.
  std::vector<bool> untuned;
};

// One workload of a job as its task scheduler sees it.
struct TaskProgress {
  std::string workload_key;
  std::string workload;     // spec, or "def:<name>"
  int trials = 0;           // measured so far (by this job)
  double best_seconds = 0;  // fastest correct time, earlier jobs' too; 0: none yet
  double weight = 1;
};

// The server's search work for a job: proposing candidates and learning
// from results.
struct SearchCost {
  double propose_seconds = 0;
  double learn_seconds = 0;
  int64_t programs_scored = 0;

  SearchCost& operator+=(const SearchCost& other) {
    propose_seconds += other.propose_seconds;
    learn_seconds += other.learn_seconds;
    programs_scored += other.programs_scored;
    return *this;
  }
};

// Where a job's measurements spent their time, summed over candidates as
// the workers saw it: compiling (each build's wall time; a worker builds a
// lease's candidates on several threads at once), running (warm-up, timed
// repeats and the correctness check) and re-timing the best programs.
struct MeasureCost {
  double compile_seconds = 0;
  double run_seconds = 0;
  double retime_seconds = 0;  // compile and run of re-timings (not trials)
};

struct Job {
  std::string id;
  JobSpec spec;
  JobState state = JobState::kUnspecified;
  int trials_done = 0;
  int trials_total = 0;
  double best_gflops = 0;           // over the job's workloads; 0: none yet
  double best_seconds = 0;
  std::string best_schedule_json;   // schedule file text of the best; "" if none
  std::string best_workload_key;
  std::string error;                // why it failed
  int64_t created_unix_ms = 0;
  int64_t updated_unix_ms = 0;
  int errors = 0;                   // measurements that ended in an error
  int retimed = 0;                  // re-timings done (not trials)
  SearchCost search_total;
  SearchCost search_last_round;
  MeasureCost measure_total;
  // The job ended done without one correct candidate: there is no best.
  bool no_candidate_succeeded = false;
  std::vector<TaskProgress> tasks;  // per workload, in spec order

  bool finished() const { return IsFinished(state); }
};

// What a watcher is sent: the job now, and a line about its last change.
struct JobProgress {
  Job job;
  std::string message;  // "round 3: 192/200 trials, best 812.3 GFLOPS"
  double eta_s = -1;    // seconds to completion; -1 unknown
};

}  // namespace tuneforge::server
