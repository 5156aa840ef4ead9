#include "tests/worker_agent/test_tasks.h"

#include <cstdio>

#include "common/schedule/schedule_proto.h"
#include "common/te/workload.h"
#include "gtest/gtest.h"

namespace tuneforge::worker::testing {

using schedule::AnnotationStep;
using schedule::IterAnnotation;
using schedule::ReorderStep;
using schedule::SplitStep;

v1::MeasureOptions QuickOptions() {
  v1::MeasureOptions o;
  o.set_repeat(2);
  o.set_min_repeat_ms(5);
  o.set_timeout_s(20);
  return o;
}

v1::MeasureOptions SlowOptions() {
  v1::MeasureOptions o;
  o.set_repeat(3);
  o.set_min_repeat_ms(300);
  o.set_timeout_s(30);
  return o;
}

v1::MeasureTask MakeTask(const std::string& task_id, const std::string& spec,
                         const std::vector<schedule::Step>& steps,
                         const v1::MeasureOptions& options) {
  absl::StatusOr<te::Workload> workload = te::ParseWorkload(spec);
  EXPECT_TRUE(workload.ok()) << workload.status();
  v1::MeasureTask task;
  task.set_task_id(task_id);
  task.mutable_workload()->set_spec(spec);
  if (workload.ok()) task.set_workload_key(workload->dag->workload_key());
  schedule::Schedule s;
  s.workload = spec;
  s.workload_key = task.workload_key();
  s.steps = steps;
  *task.mutable_schedule() = schedule::ScheduleToProto(s);
  *task.mutable_measure() = options;
  return task;
}

std::vector<schedule::Step> TiledMatmulSteps(const std::string& spec, int inner_j) {
  absl::StatusOr<te::Workload> workload = te::ParseWorkload(spec);
  EXPECT_TRUE(workload.ok()) << workload.status();
  if (!workload.ok()) return {};
  const int stage = workload->dag->OutputOps()[0];
  return {
      SplitStep{stage, 0, {8}, true},
      SplitStep{stage, 2, {inner_j}, true},
      SplitStep{stage, 4, {4}, true},
      ReorderStep{stage, {0, 2, 4, 1, 5, 3}},
      AnnotationStep{stage, 0, IterAnnotation::kParallel},
      AnnotationStep{stage, 5, IterAnnotation::kVectorize},
  };
}

WorkerOptions AgentOptions(const std::string& address, const std::string& token) {
  WorkerOptions o;
  o.connect.address = address;
  o.connect.token = token;
  o.lease_wait_ms = 200;
  o.min_backoff = absl::Milliseconds(50);
  o.max_backoff = absl::Milliseconds(500);
  o.build_jobs = 2;
  o.verbose = true;
  return o;
}

namespace {

WorkerOptions WithLog(WorkerOptions options, absl::Mutex* mu, std::vector<std::string>* log) {
  options.log = [mu, log](const std::string& line) {
    absl::MutexLock lock(mu);
    log->push_back(line);
  };
  return options;
}

}  // namespace

RunningAgent::RunningAgent(WorkerOptions options)
    : agent_(WithLog(std::move(options), &mu_, &log_)),
      thread_([this] { status_ = agent_.Run(); }) {}

RunningAgent::~RunningAgent() {
  absl::Status s = StopAndJoin();
  if (::testing::Test::HasFailure()) {
    std::fprintf(stderr, "agent log (Run returned %s):\n", s.ToString().c_str());
    for (const std::string& line : log()) std::fprintf(stderr, "  %s\n", line.c_str());
  }
}

absl::Status RunningAgent::StopAndJoin() {
  agent_.Stop();
  return Join();
}

absl::Status RunningAgent::Join() {
  if (thread_.joinable()) thread_.join();
  return status_;
}

std::vector<std::string> RunningAgent::log() const {
  absl::MutexLock lock(&mu_);
  return log_;
}

}  // namespace tuneforge::worker::testing
