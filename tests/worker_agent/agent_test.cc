// WorkerAgent in this process against the in-memory Workers server on
// 127.0.0.1: the protocol as the worker drives it (register, lease, build,
// time, report, heartbeat, re-register, reconnect, Deregister).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/worker_agent/test_tasks.h"
#include "tests/worker_agent/test_workers_server.h"

namespace tuneforge::worker::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kAgentMatmul[] = "matmul:M=64,N=64,K=64";

bool AllReported(const ServerState& s, size_t n) { return s.results.size() >= n; }

void ExpectMeasuredFine(const v1::MeasureResult& r, int repeats) {
  EXPECT_EQ(r.error_kind(), v1::MEASURE_ERROR_KIND_NONE) << r.task_id() << ": " << r.error();
  EXPECT_EQ(r.error(), "");
  EXPECT_GT(r.median_seconds(), 0);
  EXPECT_EQ(r.repeat_seconds_size(), repeats);
  EXPECT_LT(r.max_abs_error(), 1e-3);
}

TEST(AgentTest, RegistersLeasesMeasuresAndReportsCorrectResults) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  server->AddTasks({MakeTask("t-naive", kAgentMatmul, {}),
                    MakeTask("t-tiled16", kAgentMatmul, TiledMatmulSteps(kAgentMatmul, 16)),
                    MakeTask("t-tiled8", kAgentMatmul, TiledMatmulSteps(kAgentMatmul, 8))});
  RunningAgent run(AgentOptions(server->address(), server->token()));
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return AllReported(s, 3); },
                                absl::Seconds(60)));
  ServerState s = server->Snapshot();
  // A task behind the fastest this worker timed before it gets fewer
  // repeats (WorkerBestTest); the fastest of all is never behind.
  const v1::MeasureResult* fastest = nullptr;
  for (const auto& [id, r] : s.results) {
    EXPECT_EQ(r.error_kind(), v1::MEASURE_ERROR_KIND_NONE) << id << ": " << r.error();
    EXPECT_LT(r.max_abs_error(), 1e-3) << id;
    EXPECT_GE(r.repeat_seconds_size(), 1) << id;
    EXPECT_LE(r.repeat_seconds_size(), 2) << id;
    EXPECT_GT(r.compile_ms(), 0) << id;
    if (!fastest || r.median_seconds() < fastest->median_seconds()) fastest = &r;
  }
  ASSERT_NE(fastest, nullptr);
  ExpectMeasuredFine(*fastest, 2);
  EXPECT_EQ(s.accepted, 3);
  EXPECT_EQ(s.duplicates, 0);
  ASSERT_EQ(s.workers.size(), 1u);
  const v1::DeviceInfo& device = s.workers.begin()->second;
  EXPECT_EQ(device.device_key(), ProbeDevice("", false).device_key());
  EXPECT_TRUE(device.can_build());
  // The heartbeat thread beats at the server's 200 ms interval.
  EXPECT_TRUE(server->WaitUntil([](const ServerState& s) { return s.heartbeats >= 2; },
                                absl::Seconds(10)));

  EXPECT_TRUE(run.StopAndJoin().ok());
  WorkerCounters c = run.agent().counters();
  EXPECT_EQ(c.registrations, 1);
  EXPECT_EQ(c.tasks_measured, 3);
  EXPECT_GE(c.reports_acknowledged, 1);
  EXPECT_EQ(c.report_failures, 0);
  s = server->Snapshot();
  EXPECT_EQ(s.deregistrations, 1);
  EXPECT_TRUE(s.workers.empty());
  EXPECT_THAT(run.log().front(), HasSubstr("connected to " + server->address()));
}

TEST(AgentTest, BadTasksCostOnlyThemselves) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  v1::MeasureTask bad_schedule =
      MakeTask("t-bad-schedule", kAgentMatmul, {schedule::SplitStep{2, 7, {4}, true}});
  v1::MeasureTask wrong_key = MakeTask("t-wrong-key", kAgentMatmul, {});
  wrong_key.set_workload_key("0123456789abcdef");
  v1::MeasureTask file_spec = MakeTask("t-file", kAgentMatmul, {});
  file_spec.mutable_workload()->set_spec("def:/etc/passwd");
  v1::MeasureTask unparsable = MakeTask("t-unparsable", kAgentMatmul, {});
  unparsable.mutable_workload()->set_spec("matmull:M=4");
  server->AddTasks({bad_schedule, wrong_key, file_spec, unparsable,
                    MakeTask("t-good", kAgentMatmul, TiledMatmulSteps(kAgentMatmul))});
  RunningAgent run(AgentOptions(server->address(), server->token()));
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return AllReported(s, 5); },
                                absl::Seconds(60)));
  ServerState s = server->Snapshot();
  EXPECT_EQ(s.results["t-bad-schedule"].error_kind(), v1::MEASURE_ERROR_KIND_INVALID_SCHEDULE);
  EXPECT_EQ(s.results["t-wrong-key"].error_kind(), v1::MEASURE_ERROR_KIND_INVALID_SCHEDULE);
  EXPECT_THAT(s.results["t-wrong-key"].error(), HasSubstr("workload key mismatch"));
  EXPECT_EQ(s.results["t-file"].error_kind(), v1::MEASURE_ERROR_KIND_INVALID_SCHEDULE);
  EXPECT_THAT(s.results["t-file"].error(), HasSubstr("Workload.definition"));
  EXPECT_EQ(s.results["t-unparsable"].error_kind(), v1::MEASURE_ERROR_KIND_INVALID_SCHEDULE);
  EXPECT_THAT(s.results["t-unparsable"].error(), HasSubstr("does not parse on this worker"));
  ExpectMeasuredFine(s.results["t-good"], 2);
}

TEST(AgentTest, DefinitionWorkloadsAreParsedFromTheirText) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  // The same computation as the spec: the same workload key.
  v1::MeasureTask task = MakeTask("t-def", kAgentMatmul, TiledMatmulSteps(kAgentMatmul));
  task.mutable_workload()->set_definition(
      "input A: float32[64, 64]\n"
      "input B: float32[64, 64] constant\n"
      "C[i: 64, j: 64] = sum(A[i, k] * B[k, j], k: 64)\n");
  task.mutable_workload()->set_name("my_matmul");
  server->AddTasks({task});
  RunningAgent run(AgentOptions(server->address(), server->token()));
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return AllReported(s, 1); },
                                absl::Seconds(60)));
  ExpectMeasuredFine(server->Snapshot().results["t-def"], 2);
}

TEST(AgentTest, RunnerOnlyWorkerMeasuresTheObjectsTheServerBuilt) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  server->AddTasks({MakeTask("t-naive", kAgentMatmul, {}),
                    MakeTask("t-tiled", kAgentMatmul, TiledMatmulSteps(kAgentMatmul))});
  WorkerOptions options = AgentOptions(server->address(), server->token());
  options.runner_only = true;
  RunningAgent run(options);
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return AllReported(s, 2); },
                                absl::Seconds(60)));
  ServerState s = server->Snapshot();
  // The second task timed behind the first one's time gets one repeat
  // (WorkerBestTest); the faster of the two gets all of them.
  const v1::MeasureResult* fastest = nullptr;
  for (const auto& [id, r] : s.results) {
    EXPECT_EQ(r.error_kind(), v1::MEASURE_ERROR_KIND_NONE) << id << ": " << r.error();
    EXPECT_GE(r.repeat_seconds_size(), 1) << id;
    EXPECT_LE(r.repeat_seconds_size(), 2) << id;
    EXPECT_EQ(r.compile_ms(), 0) << id << ": a runner-only worker compiles nothing";
    if (!fastest || r.median_seconds() < fastest->median_seconds()) fastest = &r;
  }
  ASSERT_NE(fastest, nullptr);
  ExpectMeasuredFine(*fastest, 2);
  ASSERT_EQ(s.workers.size(), 1u);
  EXPECT_FALSE(s.workers.begin()->second.can_build());
}

TEST(AgentTest, RunnerOnlyTaskWithoutObjectsIsARunnerError) {
  TestServerOptions server_options;
  server_options.build_for_runner_only = false;
  auto server = TestWorkersServer::Start(server_options);
  ASSERT_NE(server, nullptr);
  server->AddTasks({MakeTask("t-1", kAgentMatmul, {})});
  WorkerOptions options = AgentOptions(server->address(), server->token());
  options.runner_only = true;
  RunningAgent run(options);
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return AllReported(s, 1); },
                                absl::Seconds(30)));
  const v1::MeasureResult r = server->Snapshot().results["t-1"];
  EXPECT_EQ(r.error_kind(), v1::MEASURE_ERROR_KIND_RUNNER_ERROR);
  EXPECT_THAT(r.error(), HasSubstr("came without a built candidate"));
  EXPECT_THAT(r.error(), HasSubstr("runner-only"));
}

TEST(AgentTest, AKernelThatTimesOutCostsOnlyItsTask) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  // The unscheduled 512^3 matmul needs far more than 20 ms.
  v1::MeasureOptions tight = QuickOptions();
  tight.set_timeout_s(0.02);
  const std::string big = "matmul:M=512,N=512,K=512";
  server->AddTasks({MakeTask("t-slow", big, {}, tight),
                    MakeTask("t-fine", kAgentMatmul, TiledMatmulSteps(kAgentMatmul))});
  RunningAgent run(AgentOptions(server->address(), server->token()));
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return AllReported(s, 2); },
                                absl::Seconds(120)));
  ServerState s = server->Snapshot();
  EXPECT_EQ(s.results["t-slow"].error_kind(), v1::MEASURE_ERROR_KIND_TIMEOUT) << s.results["t-slow"].error();
  ExpectMeasuredFine(s.results["t-fine"], 2);
  // The worker goes on: a later task is measured too (another workload: one
  // behind t-fine would be timed less).
  server->AddTasks({MakeTask("t-later", "matmul:M=32,N=32,K=32", {})});
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return AllReported(s, 3); },
                                absl::Seconds(60)));
  ExpectMeasuredFine(server->Snapshot().results["t-later"], 2);
  EXPECT_EQ(run.agent().counters().registrations, 1);
}

// No limits came with the tasks (a job's first round has no best): a task
// far behind the best this worker timed for its workload is ranked by its
// checked run alone, and a re-timing is timed in full however slow.
TEST(AgentTest, ATaskFarBehindTheWorkersBestIsTimedLess) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  const std::string spec = "matmul:M=128,N=128,K=128";  // naive: over 10x the tiled time
  v1::MeasureTask retime = MakeTask("t-retime", spec, {});
  retime.set_retime_of("t-earlier");
  server->AddTasks({MakeTask("t-tiled", spec, TiledMatmulSteps(spec)), MakeTask("t-naive", spec, {}), retime});
  RunningAgent run(AgentOptions(server->address(), server->token()));
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return AllReported(s, 3); },
                                absl::Seconds(60)));
  ServerState s = server->Snapshot();
  ExpectMeasuredFine(s.results["t-tiled"], 2);
  ExpectMeasuredFine(s.results["t-naive"], 1);
  EXPECT_GT(s.results["t-naive"].median_seconds(), 3 * s.results["t-tiled"].median_seconds());
  ExpectMeasuredFine(s.results["t-retime"], 2);
}

// The server re-times a job's leaders in a later lease: the worker times the
// kernel it built for the first timing again (no compile, compile_ms 0);
// a re-timing of a program it did not build is built, once for the lease
// (a final comparison times each leader twice in one lease).
TEST(AgentTest, ARetimingTimesTheKernelBuiltBeforeWithoutCompilingIt) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  server->AddTasks({MakeTask("t-first", kAgentMatmul, TiledMatmulSteps(kAgentMatmul, 16))});
  RunningAgent run(AgentOptions(server->address(), server->token()));
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return AllReported(s, 1); }, absl::Seconds(60)));
  v1::MeasureTask again = MakeTask("t-again", kAgentMatmul, TiledMatmulSteps(kAgentMatmul, 16));
  again.set_retime_of("t-first");
  v1::MeasureTask unbuilt = MakeTask("t-unbuilt", kAgentMatmul, TiledMatmulSteps(kAgentMatmul, 8));
  unbuilt.set_retime_of("t-elsewhere");
  v1::MeasureTask unbuilt_backwards = unbuilt;
  unbuilt_backwards.set_task_id("t-unbuilt-backwards");
  server->AddTasks({again, unbuilt, unbuilt_backwards});
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return AllReported(s, 4); }, absl::Seconds(60)));
  ServerState s = server->Snapshot();
  EXPECT_GT(s.results["t-first"].compile_ms(), 0);
  ExpectMeasuredFine(s.results["t-again"], 2);
  EXPECT_EQ(s.results["t-again"].compile_ms(), 0) << "built again";
  ExpectMeasuredFine(s.results["t-unbuilt"], 2);
  EXPECT_GT(s.results["t-unbuilt"].compile_ms(), 0);
  ExpectMeasuredFine(s.results["t-unbuilt-backwards"], 2);
  EXPECT_EQ(s.results["t-unbuilt-backwards"].compile_ms(), 0) << "built twice in one lease";
}

// i and k unrolled around a 1024-lane vector: over a second of LLVM time.
v1::MeasureTask SlowToCompileTask(const std::string& id) {
  return MakeTask(id, "matmul:M=8,N=1024,K=1000",
                  {schedule::AnnotationStep{2, 0, schedule::IterAnnotation::kUnroll},
                   schedule::AnnotationStep{2, 1, schedule::IterAnnotation::kVectorize},
                   schedule::AnnotationStep{2, 2, schedule::IterAnnotation::kUnroll}});
}

TEST(AgentTest, ACompilePastTheBuildTimeoutCostsOnlyItsTask) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  server->AddTasks({SlowToCompileTask("t-slow-build"),
                    MakeTask("t-fine", kAgentMatmul, TiledMatmulSteps(kAgentMatmul))});
  WorkerOptions options = AgentOptions(server->address(), server->token());
  options.build_timeout_s = 0.2;
  options.build_jobs = 1;  // both in one builder process: the second follows the killed one
  RunningAgent run(options);
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return AllReported(s, 2); },
                                absl::Seconds(120)));
  ServerState s = server->Snapshot();
  const v1::MeasureResult& failed = s.results["t-slow-build"];
  EXPECT_EQ(failed.error_kind(), v1::MEASURE_ERROR_KIND_COMPILE_ERROR) << failed.error();
  EXPECT_THAT(failed.error(), HasSubstr("did not finish within 0.2 s"));
  ExpectMeasuredFine(s.results["t-fine"], 2);
  EXPECT_EQ(run.agent().counters().registrations, 1);
}

TEST(AgentTest, ATasksOwnBuildDeadlineKillsItsBuildAndNoOther) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  // The job's deadline (server/core/build_deadline.h) on the slow one only;
  // the worker's own timeout (60 s) would let it build.
  v1::MeasureTask limited = SlowToCompileTask("t-deadline");
  limited.set_build_deadline_seconds(0.2);
  v1::MeasureTask same_unlimited = SlowToCompileTask("t-no-deadline");
  v1::MeasureTask fine = MakeTask("t-fine", kAgentMatmul, TiledMatmulSteps(kAgentMatmul));
  fine.set_build_deadline_seconds(30);
  server->AddTasks({limited, fine, same_unlimited});
  WorkerOptions options = AgentOptions(server->address(), server->token());
  options.build_jobs = 1;
  RunningAgent run(options);
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return AllReported(s, 3); },
                                absl::Seconds(180)));
  ServerState s = server->Snapshot();
  const v1::MeasureResult& failed = s.results["t-deadline"];
  EXPECT_EQ(failed.error_kind(), v1::MEASURE_ERROR_KIND_COMPILE_ERROR) << failed.error();
  EXPECT_THAT(failed.error(), HasSubstr("did not finish within 0.2 s (the task's build deadline)"));
  ExpectMeasuredFine(s.results["t-fine"], 2);
  EXPECT_EQ(s.results["t-no-deadline"].error_kind(), v1::MEASURE_ERROR_KIND_NONE) << s.results["t-no-deadline"].error();
}

TEST(AgentTest, ServerRestartMeansReconnectReRegisterAndOneAcknowledgedReport) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  // About a second of timing: the server goes away while it runs.
  server->AddTasks({MakeTask("t-1", "matmul:M=128,N=128,K=128", {}, SlowOptions())});
  RunningAgent run(AgentOptions(server->address(), server->token()));
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return s.leased.size() == 1; },
                                absl::Seconds(30)));
  server->Stop();
  // The report fails at least once while the server is down...
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (run.agent().counters().report_failures == 0 && absl::Now() < deadline)
    absl::SleepFor(absl::Milliseconds(20));
  ASSERT_GE(run.agent().counters().report_failures, 1);
  absl::SleepFor(absl::Milliseconds(300));
  ASSERT_TRUE(server->Restart());
  // ...and once it is back, the result is stored exactly once and the
  // worker, forgotten by the restart, registers again.
  ASSERT_TRUE(server->WaitUntil(
      [](const ServerState& s) { return AllReported(s, 1) && s.registrations >= 2; },
      absl::Seconds(30)));
  ServerState s = server->Snapshot();
  ExpectMeasuredFine(s.results["t-1"], 3);
  EXPECT_EQ(s.accepted, 1);
  EXPECT_EQ(s.duplicates, 0);
  // The server counts a registration when the call arrives, the agent once
  // its answer is back: wait for the agent's count before reading it.
  const absl::Time registered_by = absl::Now() + absl::Seconds(10);
  while (run.agent().counters().registrations < 2 && absl::Now() < registered_by)
    absl::SleepFor(absl::Milliseconds(10));
  WorkerCounters c = run.agent().counters();
  EXPECT_GE(c.reconnects, 1);
  EXPECT_EQ(c.registrations, 2);
  EXPECT_EQ(c.tasks_measured, 1);
  // The new registration works: a new task is leased and measured.
  server->AddTasks({MakeTask("t-2", kAgentMatmul, {})});
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return AllReported(s, 2); },
                                absl::Seconds(60)));
  EXPECT_EQ(server->Snapshot().accepted, 2);
}

TEST(AgentTest, WaitsForAServerThatIsNotUpYet) {
  // Take a free port, then close the server: nothing listens there.
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  server->AddTasks({MakeTask("t-1", kAgentMatmul, {})});
  server->Stop();
  RunningAgent run(AgentOptions(server->address(), server->token()));
  absl::SleepFor(absl::Seconds(1));
  EXPECT_EQ(run.agent().counters().registrations, 0);
  ASSERT_TRUE(server->Restart());
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return AllReported(s, 1); },
                                absl::Seconds(30)));
  EXPECT_EQ(run.agent().counters().registrations, 1);
  EXPECT_GE(run.agent().counters().reconnects, 1);
}

TEST(AgentTest, WorksOverAnInProcessChannel) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  server->AddTasks({MakeTask("t-1", kAgentMatmul, TiledMatmulSteps(kAgentMatmul))});
  WorkerOptions options = AgentOptions("", server->token());
  options.channel = server->InProcessChannel();
  RunningAgent run(options);
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return AllReported(s, 1); },
                                absl::Seconds(60)));
  ExpectMeasuredFine(server->Snapshot().results["t-1"], 2);
}

TEST(AgentTest, StopReturnsTheUnstartedTasks) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  std::vector<v1::MeasureTask> tasks;
  for (int i = 0; i < 4; ++i)
    tasks.push_back(
        MakeTask("t-" + std::to_string(i), "matmul:M=128,N=128,K=128", {}, SlowOptions()));
  server->AddTasks(tasks);
  WorkerOptions options = AgentOptions(server->address(), server->token());
  options.max_tasks_per_lease = 4;
  RunningAgent run(options);
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return s.leased.size() == 4; },
                                absl::Seconds(30)));
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_TRUE(run.StopAndJoin().ok());
  ServerState s = server->Snapshot();
  EXPECT_EQ(s.deregistrations, 1);
  EXPECT_TRUE(s.leased.empty());
  // Nothing lost: every task is either reported or queued again.
  EXPECT_EQ(s.results.size() + s.queue.size(), 4u);
  EXPECT_GE(s.returned_tasks, 2);
  EXPECT_EQ(run.agent().counters().returned_tasks, s.returned_tasks);
  for (const auto& [id, r] : s.results) ExpectMeasuredFine(r, 3);
}

TEST(AgentTest, WrongTokenEndsRunWithAClearError) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  RunningAgent run(AgentOptions(server->address(), "not-the-token"));
  absl::Status s = run.Join();
  EXPECT_TRUE(absl::IsUnauthenticated(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("refused this worker's token"));
  EXPECT_THAT(s.message(), HasSubstr("--token-file"));
  EXPECT_GE(server->Snapshot().refused_calls, 1);
}

TEST(AgentTest, BadOptionsFailAtOnce) {
  WorkerOptions options = AgentOptions("no-port-here", "t");
  EXPECT_TRUE(absl::IsInvalidArgument(WorkerAgent(options).Run()));
  options = AgentOptions("127.0.0.1:1", "t");
  options.max_tasks_per_lease = 0;
  EXPECT_TRUE(absl::IsInvalidArgument(WorkerAgent(options).Run()));
  options = AgentOptions("127.0.0.1:1", "t");
  options.runner_path = "/nonexistent/tuneforge-runner";
  absl::Status s = WorkerAgent(options).Run();
  EXPECT_TRUE(absl::IsNotFound(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("runner binary"));
}

TEST(AgentTest, StopBeforeRunReturnsAtOnce) {
  WorkerAgent agent(AgentOptions("127.0.0.1:1", "t"));
  agent.Stop();
  EXPECT_TRUE(agent.Run().ok());
  EXPECT_EQ(agent.counters().registrations, 0);
}

TEST(AgentTest, ProbeDescribesThisMachine) {
  v1::DeviceInfo d = ProbeDevice("", false);
  EXPECT_FALSE(d.device_key().empty());
  EXPECT_FALSE(d.triple().empty());
  EXPECT_GE(d.cores(), 1);
  EXPECT_GT(d.l1_bytes(), 0);
  EXPECT_FALSE(d.hostname().empty());
  EXPECT_TRUE(d.can_build());
  v1::DeviceInfo runner = ProbeDevice("aarch64-neon-4c", true);
  EXPECT_EQ(runner.device_key(), "aarch64-neon-4c");
  EXPECT_FALSE(runner.can_build());
}

}  // namespace
}  // namespace tuneforge::worker::testing
