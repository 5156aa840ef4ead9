// Records/Import refuses what it cannot store as sent: a chunk that does not
// decode (a line that is not UTF-8, bytes that are no protobuf) fails the
// call and nothing of it is stored, as do forged records and numbers beyond
// a double.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "grpcpp/impl/rpc_method.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/sync_stream.h"
#include "nlohmann/json.hpp"
#include "tests/server/service/rpc_calls.h"

namespace tuneforge::server::testing {
namespace {

using ::testing::HasSubstr;

class ImportStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<TestServer>> source = TestServer::Start();
    ASSERT_TRUE(source.ok()) << source.status();
    absl::StatusOr<v1::Job> job = RunJobToCompletion((*source)->stubs(), SmallJobSpec(4));
    ASSERT_TRUE(job.ok()) << job.status();
    ASSERT_TRUE(CallExport((*source)->stubs(), Authed().get(), {}, &lines_).ok());
    ASSERT_GE(lines_.size(), 2u);
    absl::StatusOr<std::unique_ptr<TestServer>> target = TestServer::Start();
    ASSERT_TRUE(target.ok()) << target.status();
    target_ = *std::move(target);
  }
  size_t Stored() {
    std::vector<std::string> stored;
    EXPECT_TRUE(CallExport(target_->stubs(), Authed().get(), {}, &stored).ok());
    return stored.size();
  }
  v1::RecordLines Chunk(const std::vector<std::string>& lines) {
    v1::RecordLines chunk;
    for (const std::string& l : lines) chunk.add_lines(l);
    return chunk;
  }
  std::vector<std::string> lines_;
  std::unique_ptr<TestServer> target_;
};

TEST_F(ImportStreamTest, AChunkWithALineThatIsNotUtf8FailsTheWholeCall) {
  // proto3 strings must be UTF-8: the server cannot decode this chunk.
  v1::ImportRecordsResponse response;
  grpc::Status status = CallImport(target_->stubs(), Authed().get(),
                                   {Chunk({lines_[0]}), Chunk({lines_[1] + "\xff\xfe"})}, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("chunks[1]"));
  EXPECT_EQ(Stored(), 0u) << "a failed import stored records";
  // The good lines alone still import.
  status = CallImport(target_->stubs(), Authed().get(), {Chunk(lines_)}, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.imported(), static_cast<int64_t>(lines_.size()));
}

TEST_F(ImportStreamTest, RawBytesThatAreNoMessageFailTheCall) {
  auto channel = grpc::CreateChannel(target_->address(), grpc::InsecureChannelCredentials());
  std::unique_ptr<grpc::ClientContext> context = Authed();
  grpc::internal::RpcMethod method("/tuneforge.v1.Records/Import", grpc::internal::RpcMethod::CLIENT_STREAMING);
  grpc::ByteBuffer response;
  std::unique_ptr<grpc::ClientWriter<grpc::ByteBuffer>> writer(
      grpc::internal::ClientWriterFactory<grpc::ByteBuffer>::Create(channel.get(), method, context.get(),
                                                                    &response));
  const std::string good = Chunk({lines_[0]}).SerializeAsString();
  const std::string garbage = "\xff\xff\xff\xff\x0f not a protobuf";
  for (const std::string& bytes : {good, garbage, good}) {
    grpc::Slice slice(bytes);
    grpc::ByteBuffer buffer(&slice, 1);
    if (!writer->Write(buffer)) break;  // refused early
  }
  writer->WritesDone();
  grpc::Status status = writer->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("chunks[1]"));
  EXPECT_EQ(Stored(), 0u);
}

TEST_F(ImportStreamTest, ForgedRecordsAndHugeNumbersAreRefusedNamingTheLine) {
  struct Case {
    std::string line;
    std::string message;
  };
  nlohmann::json empty_schedule = nlohmann::json::parse(lines_[1]);
  empty_schedule["schedule_json"] = "{}";
  nlohmann::json fast = nlohmann::json::parse(lines_[1]);
  fast["gflops"] = 1e308;
  nlohmann::json huge = nlohmann::json::parse(lines_[1]);
  huge.erase("compile_ms");
  std::string huge_line = huge.dump();
  huge_line.insert(huge_line.size() - 1, ",\"compile_ms\":1e400");
  for (const Case& c : std::vector<Case>{{empty_schedule.dump(), "line 2: field 'schedule_json'"},
                                         {fast.dump(), "line 2: field 'gflops'"},
                                         {huge_line, "line 2: field 'compile_ms' holds a number out of range"}}) {
    grpc::Status status = CallImport(target_->stubs(), Authed().get(), {Chunk({lines_[0], c.line})});
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr(c.message));
  }
  EXPECT_EQ(Stored(), 0u);
}

}  // namespace
}  // namespace tuneforge::server::testing
