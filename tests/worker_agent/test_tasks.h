// Measure tasks and worker set-ups shared by the worker agent tests.
#pragma once

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "common/schedule/steps.h"
#include "proto/tuneforge.pb.h"
#include "worker/agent/worker_agent.h"

namespace tuneforge::worker::testing {

namespace v1 = ::tuneforge::v1;

// Short timing: the tests check results, not speed.
v1::MeasureOptions QuickOptions();
// Each task takes about a second (3 repeats of >= 300 ms).
v1::MeasureOptions SlowOptions();

// A task for `spec` (its workload key computed here) with `steps`.
v1::MeasureTask MakeTask(const std::string& task_id, const std::string& spec,
                         const std::vector<schedule::Step>& steps,
                         const v1::MeasureOptions& options = QuickOptions());
// Ansor-style tiling of a matmul's output stage: split i by 8, j by `inner_j`,
// k by 4, reorder, parallel outer, vectorized inner j.
std::vector<schedule::Step> TiledMatmulSteps(const std::string& spec, int inner_j = 16);

// Options for an agent talking to `address` with `token`, quick to retry.
WorkerOptions AgentOptions(const std::string& address, const std::string& token);

// A WorkerAgent running on its own thread; stopped and joined on
// destruction. Its log lines are kept (and printed, for failing tests).
class RunningAgent {
 public:
  explicit RunningAgent(WorkerOptions options);
  ~RunningAgent();
  WorkerAgent& agent() { return agent_; }
  // Stops the agent and returns what Run returned.
  absl::Status StopAndJoin();
  // Waits for Run to return by itself.
  absl::Status Join();
  std::vector<std::string> log() const;

 private:
  mutable absl::Mutex mu_;
  std::vector<std::string> log_ ABSL_GUARDED_BY(mu_);
  WorkerAgent agent_;
  absl::Status status_;
  std::thread thread_;
};

}  // namespace tuneforge::worker::testing
