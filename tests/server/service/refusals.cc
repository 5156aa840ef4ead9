#include "tests/server/service/refusals.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/server/service/rpc_calls.h"

namespace tuneforge::server::testing {

void ExpectRefusals(TestServer& server, const std::vector<Refusal>& cases) {
  for (const Refusal& c : cases) {
    grpc::Status status = c.call(server.stubs());
    EXPECT_EQ(status.error_code(), c.code) << c.name << ": " << status.error_message();
    EXPECT_THAT(status.error_message(), ::testing::HasSubstr(c.message_part)) << c.name;
  }
  v1::SubmitJobRequest submit;
  *submit.mutable_spec() = SmallJobSpec();
  grpc::Status status = CallSubmit(server.stubs(), Authed().get(), submit);
  EXPECT_TRUE(status.ok()) << "the server stopped serving after the refusals: " << status.error_message();
}

}  // namespace tuneforge::server::testing
