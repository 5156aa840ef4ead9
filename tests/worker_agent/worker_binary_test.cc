// The tuneforge-worker binary as a user runs it, against the in-memory
// Workers server on 127.0.0.1: measuring, SIGTERM, token errors.
#include <signal.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/worker_agent/test_tasks.h"
#include "tests/worker_agent/test_workers_server.h"
#include "tests/worker_agent/worker_process.h"

namespace tuneforge::worker::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kBinaryMatmul[] = "matmul:M=64,N=64,K=64";

TEST(WorkerBinaryTest, MeasuresAndStopsCleanlyOnSigterm) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  server->AddTasks({MakeTask("t-1", kBinaryMatmul, TiledMatmulSteps(kBinaryMatmul))});
  std::string token_file = WriteTempFile("token", server->token() + "\n");
  WorkerProcess worker({"--server", server->address(), "--token-file", token_file, "--verbose"});
  ASSERT_TRUE(worker.started());
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return s.results.size() == 1; },
                                absl::Seconds(60)))
      << worker.Stdout() << worker.Stderr();
  EXPECT_EQ(server->Snapshot().results["t-1"].error_kind(), v1::MEASURE_ERROR_KIND_NONE);
  worker.Signal(SIGTERM);
  std::optional<int> code = worker.Wait(absl::Seconds(30));
  ASSERT_TRUE(code.has_value()) << "the worker did not exit after SIGTERM";
  EXPECT_EQ(*code, 0) << worker.Stderr();
  EXPECT_EQ(server->Snapshot().deregistrations, 1);
  const std::string out = worker.Stdout();
  EXPECT_THAT(out, HasSubstr("tuneforge-worker w-1 (" + ProbeDevice("", false).device_key() +
                             ") connected to " + server->address()));
  EXPECT_THAT(out, HasSubstr("lease lease-1: 1 tasks"));
}

TEST(WorkerBinaryTest, SigtermReturnsTheLeasedTasks) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  std::vector<v1::MeasureTask> tasks;
  for (int i = 0; i < 4; ++i)
    tasks.push_back(
        MakeTask("t-" + std::to_string(i), "matmul:M=128,N=128,K=128", {}, SlowOptions()));
  server->AddTasks(tasks);
  std::string token_file = WriteTempFile("token", server->token());
  WorkerProcess worker({"--server", server->address(), "--token-file", token_file,
                        "--max-tasks", "4", "--device-key", "test-device"});
  ASSERT_TRUE(worker.started());
  ASSERT_TRUE(server->WaitUntil([](const ServerState& s) { return s.leased.size() == 4; },
                                absl::Seconds(30)))
      << worker.Stderr();
  EXPECT_EQ(server->Snapshot().workers.begin()->second.device_key(), "test-device");
  absl::SleepFor(absl::Milliseconds(300));
  worker.Signal(SIGTERM);
  std::optional<int> code = worker.Wait(absl::Seconds(30));
  ASSERT_TRUE(code.has_value()) << "the worker did not exit after SIGTERM";
  EXPECT_EQ(*code, 0) << worker.Stderr();
  ServerState s = server->Snapshot();
  EXPECT_EQ(s.deregistrations, 1);
  EXPECT_TRUE(s.leased.empty());
  EXPECT_GE(s.returned_tasks, 2);
  EXPECT_EQ(s.results.size() + s.queue.size(), 4u) << "a task was lost";
  EXPECT_THAT(worker.Stdout(), HasSubstr("returned " + std::to_string(s.returned_tasks) +
                                         " unstarted tasks"));
}

TEST(WorkerBinaryTest, WrongTokenIsAClearErrorAndNonZeroExit) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  std::string token_file = WriteTempFile("token", "wrong-token");
  WorkerProcess worker({"--server", server->address(), "--token-file", token_file});
  ASSERT_TRUE(worker.started());
  std::optional<int> code = worker.Wait(absl::Seconds(30));
  ASSERT_TRUE(code.has_value()) << "a refused token must end the worker";
  EXPECT_NE(*code, 0);
  EXPECT_THAT(worker.Stderr(), HasSubstr("refused this worker's token"));
  EXPECT_THAT(worker.Stderr(), HasSubstr("--token-file"));
  EXPECT_GE(server->Snapshot().refused_calls, 1);
  EXPECT_EQ(server->Snapshot().registrations, 0);
}

TEST(WorkerBinaryTest, NoTokenIsAClearErrorAndNonZeroExit) {
  WorkerProcess worker({"--server", "127.0.0.1:1"});
  ASSERT_TRUE(worker.started());
  std::optional<int> code = worker.Wait(absl::Seconds(30));
  ASSERT_TRUE(code.has_value());
  EXPECT_NE(*code, 0);
  EXPECT_THAT(worker.Stderr(), HasSubstr("no token"));
}

TEST(WorkerBinaryTest, BadArgumentsAreRefused) {
  WorkerProcess no_server({"--token-file", "/dev/null"});
  ASSERT_TRUE(no_server.started());
  std::optional<int> code = no_server.Wait(absl::Seconds(30));
  ASSERT_TRUE(code.has_value());
  EXPECT_NE(*code, 0);
  EXPECT_THAT(no_server.Stderr(), HasSubstr("--server"));

  std::string token_file = WriteTempFile("token", "t");
  WorkerProcess bad_tasks({"--server", "127.0.0.1:1", "--token-file", token_file, "--max-tasks", "0"});
  code = bad_tasks.Wait(absl::Seconds(30));
  ASSERT_TRUE(code.has_value());
  EXPECT_NE(*code, 0);
  EXPECT_THAT(bad_tasks.Stderr(), HasSubstr("--max-tasks"));
}

// One worker per GPU: on a machine without one (or a build without the
// CUDA toolkit) `--gpu 0` is a one-line error that says why and what to do,
// before anything is registered.
TEST(WorkerBinaryTest, AGpuWorkerWithoutAGpuRefusesToStart) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  std::string token_file = WriteTempFile("token", server->token());
  WorkerProcess worker({"--server", server->address(), "--token-file", token_file, "--gpu", "0"});
  ASSERT_TRUE(worker.started());
  std::optional<int> code = worker.Wait(absl::Seconds(30));
  ASSERT_TRUE(code.has_value());
  EXPECT_NE(*code, 0);
  const std::string err = worker.Stderr();
  EXPECT_THAT(err, HasSubstr("--gpu 0"));
  EXPECT_THAT(err,
              ::testing::AnyOf(HasSubstr("no NVIDIA driver"), HasSubstr("no GPU"), HasSubstr("no GPU support")));
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_EQ(server->Snapshot().registrations, 0);
}

TEST(WorkerBinaryTest, AGpuWorkerCannotBeRunnerOnly) {
  auto server = TestWorkersServer::Start();
  ASSERT_NE(server, nullptr);
  std::string token_file = WriteTempFile("token", server->token());
  WorkerProcess worker(
      {"--server", server->address(), "--token-file", token_file, "--gpu", "0", "--runner-only"});
  ASSERT_TRUE(worker.started());
  std::optional<int> code = worker.Wait(absl::Seconds(30));
  ASSERT_TRUE(code.has_value());
  EXPECT_NE(*code, 0);
  EXPECT_THAT(worker.Stderr(), HasSubstr("drop --runner-only"));
  EXPECT_EQ(server->Snapshot().registrations, 0);
}

}  // namespace
}  // namespace tuneforge::worker::testing
