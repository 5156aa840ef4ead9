// Every RPC refuses a call without the right token, before looking at the
// request, and the server keeps serving.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/server/service/rpc_calls.h"
#include "tests/server/service/test_server.h"

namespace tuneforge::server::testing {
namespace {

using ::testing::HasSubstr;

class AuthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<TestServer>> server = TestServer::Start();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  std::unique_ptr<TestServer> server_;
};

TEST_F(AuthTest, EveryRpcWithoutTokenIsUnauthenticatedAndSaysHowToGiveOne) {
  for (const NamedCall& rpc : AllRpcs()) {
    grpc::Status status = rpc.call(server_->stubs(), NoToken().get());
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << rpc.name;
    EXPECT_THAT(status.error_message(), HasSubstr("no token")) << rpc.name;
    EXPECT_THAT(status.error_message(), HasSubstr("--token-file")) << rpc.name;
    EXPECT_THAT(status.error_message(), HasSubstr("TUNEFORGE_TOKEN")) << rpc.name;
  }
}

TEST_F(AuthTest, EveryRpcWithWrongTokenIsUnauthenticated) {
  const std::string real(kToken);
  const std::vector<std::string> wrong = {
      "Bearer not-the-token",
      "Bearer ",                                   // empty token
      "Bearer " + real.substr(0, real.size() - 1),  // a prefix of the real one
      "Bearer " + real + "x",                       // the real one and more
      "Bearer " + std::string(real.size(), 'a'),    // same length
  };
  for (const NamedCall& rpc : AllRpcs()) {
    for (const std::string& value : wrong) {
      grpc::Status status = rpc.call(server_->stubs(), WithAuthorization(value).get());
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << rpc.name << " with " << value;
      EXPECT_THAT(status.error_message(), HasSubstr("wrong token")) << rpc.name << " with " << value;
    }
  }
}

TEST_F(AuthTest, EveryRpcWithMalformedAuthorizationIsUnauthenticated) {
  for (const NamedCall& rpc : AllRpcs()) {
    for (const std::string value : {"Basic dXNlcjpwYXNz", kToken, "Bearer"}) {
      grpc::Status status = rpc.call(server_->stubs(), WithAuthorization(value).get());
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << rpc.name << " with " << value;
      EXPECT_THAT(status.error_message(), HasSubstr("Bearer <token>")) << rpc.name << " with " << value;
    }
  }
}

TEST_F(AuthTest, TheSchemeIsCaseInsensitiveButTheTokenIsNot) {
  grpc::Status status = CallListJobs(server_->stubs(), WithAuthorization(std::string("bearer ") + kToken).get(), {});
  EXPECT_TRUE(status.ok()) << status.error_message();
  std::string upper(kToken);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  status = CallListJobs(server_->stubs(), WithAuthorization("Bearer " + upper).get(), {});
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(AuthTest, RefusedCallsChangeNothingAndTheServerKeepsServing) {
  for (const NamedCall& rpc : AllRpcs()) {
    rpc.call(server_->stubs(), NoToken().get());
    rpc.call(server_->stubs(), WithAuthorization("Bearer wrong").get());
  }
  // Submit and Register did not run: no job, no worker.
  v1::ListJobsResponse jobs;
  ASSERT_TRUE(server_->stubs().jobs->List(Authed().get(), {}, &jobs).ok());
  EXPECT_EQ(jobs.jobs_size(), 0);
  v1::ListWorkersResponse workers;
  ASSERT_TRUE(server_->stubs().workers->List(Authed().get(), {}, &workers).ok());
  EXPECT_EQ(workers.workers_size(), 0);
  // And a call with the token works.
  v1::SubmitJobRequest submit;
  *submit.mutable_spec() = SmallJobSpec();
  v1::SubmitJobResponse submitted;
  grpc::Status status = server_->stubs().jobs->Submit(Authed().get(), submit, &submitted);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_FALSE(submitted.job().id().empty());
}

}  // namespace
}  // namespace tuneforge::server::testing
