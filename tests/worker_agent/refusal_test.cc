// A server that refuses a worker for good says why, and the worker says it
// on: a server that cannot store results (its database is read-only) is not
// a refused token.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/worker_agent/test_tasks.h"
#include "tests/worker_agent/test_workers_server.h"
#include "worker/agent/worker_client.h"

namespace tuneforge::worker::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(RefusalTest, AServerThatCannotStoreIsNamedNotTheToken) {
  TestServerOptions options;
  options.refuse_reports = grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                                        "the database cannot be written: attempt to write a readonly database");
  auto server = TestWorkersServer::Start(options);
  ASSERT_NE(server, nullptr);
  server->AddTasks({MakeTask("t-naive", "matmul:M=16,N=16,K=16", {})});
  RunningAgent run(AgentOptions(server->address(), server->token()));
  absl::Status s = run.Join();
  EXPECT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("cannot store this worker's results"));
  EXPECT_THAT(s.message(), HasSubstr("read-only"));
  EXPECT_THAT(s.message(), HasSubstr("make the server's --db file and folder writable"));
  EXPECT_THAT(s.message(), Not(HasSubstr("token")));
  EXPECT_GE(server->Snapshot().report_calls, 1);
}

TEST(RefusalTest, ATokenRefusalStillNamesTheToken) {
  absl::Status s = RefusalError("127.0.0.1:7", absl::UnauthenticatedError("invalid token"));
  EXPECT_TRUE(absl::IsUnauthenticated(s));
  EXPECT_THAT(s.message(), HasSubstr("refused this worker's token"));
  EXPECT_THAT(s.message(), HasSubstr("--token-file"));
}

}  // namespace
}  // namespace tuneforge::worker::testing
