// Records: best, query, export and import on a server that measured a job;
// malformed requests refused with the field named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/te/workload.h"
#include "tests/server/service/refusals.h"
#include "tests/server/service/rpc_calls.h"

namespace tuneforge::server::testing {
namespace {

using Code = grpc::StatusCode;
using ::testing::HasSubstr;

constexpr int kTrials = 6;

class RecordsRequestsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<TestServer>> server = TestServer::Start();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }
  // Runs SmallJobSpec(kTrials) to the end with a test-side worker.
  void MeasureAJob() {
    absl::StatusOr<v1::Job> job = RunJobToCompletion(server_->stubs(), SmallJobSpec(kTrials));
    ASSERT_TRUE(job.ok()) << job.status();
    ASSERT_EQ(job->state(), v1::JOB_STATE_DONE);
    job_ = *job;
  }
  std::unique_ptr<TestServer> server_;
  v1::Job job_;
};

std::string SmallWorkloadKey() {
  absl::StatusOr<te::Workload> w = te::ParseWorkload(SmallJobSpec().workloads(0).spec());
  return w.ok() ? w->dag->workload_key() : "";
}

std::vector<v1::RecordLines> Chunks(const std::vector<std::vector<std::string>>& lines) {
  std::vector<v1::RecordLines> chunks;
  for (const auto& chunk_lines : lines) {
    v1::RecordLines& chunk = chunks.emplace_back();
    for (const std::string& line : chunk_lines) chunk.add_lines(line);
  }
  return chunks;
}

TEST_F(RecordsRequestsTest, BestByWorkloadOrKeyFindsTheFastestRecord) {
  MeasureAJob();
  v1::BestRequest by_spec;
  by_spec.mutable_workload()->set_spec("matmul:K=16,M=16,N=16");  // any key order: the same workload
  v1::BestResponse best;
  ASSERT_TRUE(CallBest(server_->stubs(), Authed().get(), by_spec, &best).ok());
  ASSERT_TRUE(best.found());
  EXPECT_EQ(best.record().workload_key(), SmallWorkloadKey());
  EXPECT_EQ(best.record().device_key(), kDeviceKey);
  EXPECT_EQ(best.record().error_kind(), "none");
  EXPECT_DOUBLE_EQ(best.record().median_seconds(), 1e-5);  // the fastest time the test worker reports
  EXPECT_GT(best.record().gflops(), 0);
  EXPECT_EQ(best.record().job_id(), job_.id());

  v1::BestRequest by_key;
  by_key.set_workload_key(SmallWorkloadKey());
  by_key.set_device_key(kDeviceKey);
  v1::BestResponse best_by_key;
  ASSERT_TRUE(CallBest(server_->stubs(), Authed().get(), by_key, &best_by_key).ok());
  ASSERT_TRUE(best_by_key.found());
  EXPECT_EQ(best_by_key.record().id(), best.record().id());

  by_key.set_device_key("other-device");
  ASSERT_TRUE(CallBest(server_->stubs(), Authed().get(), by_key, &best_by_key).ok());
  EXPECT_FALSE(best_by_key.found());
}

TEST_F(RecordsRequestsTest, QueryFiltersAndLimits) {
  MeasureAJob();
  v1::QueryRecordsRequest query;
  query.set_job_id(job_.id());
  v1::QueryRecordsResponse records;
  ASSERT_TRUE(server_->stubs().records->Query(Authed().get(), query, &records).ok());
  EXPECT_EQ(records.records_size(), kTrials);
  query.set_limit(2);
  query.set_fastest_first(true);
  ASSERT_TRUE(server_->stubs().records->Query(Authed().get(), query, &records).ok());
  ASSERT_EQ(records.records_size(), 2);
  EXPECT_LE(records.records(0).median_seconds(), records.records(1).median_seconds());
  query.set_device_key("other-device");
  ASSERT_TRUE(server_->stubs().records->Query(Authed().get(), query, &records).ok());
  EXPECT_EQ(records.records_size(), 0);
}

TEST_F(RecordsRequestsTest, ExportThenImportIntoAnotherServerKeepsEveryRecordOnce) {
  MeasureAJob();
  std::vector<std::string> lines;
  ASSERT_TRUE(CallExport(server_->stubs(), Authed().get(), {}, &lines).ok());
  ASSERT_EQ(static_cast<int>(lines.size()), kTrials);

  absl::StatusOr<std::unique_ptr<TestServer>> other = TestServer::Start();
  ASSERT_TRUE(other.ok()) << other.status();
  // Two chunks, as a client streaming a large file would send them.
  std::vector<v1::RecordLines> chunks =
      Chunks({{lines.begin(), lines.begin() + 2}, {lines.begin() + 2, lines.end()}});
  v1::ImportRecordsResponse imported;
  grpc::Status status = CallImport((*other)->stubs(), Authed().get(), chunks, &imported);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(imported.imported(), kTrials);
  EXPECT_EQ(imported.duplicate(), 0);
  // Again: every record is already there.
  ASSERT_TRUE(CallImport((*other)->stubs(), Authed().get(), chunks, &imported).ok());
  EXPECT_EQ(imported.imported(), 0);
  EXPECT_EQ(imported.duplicate(), kTrials);

  v1::BestRequest by_key;
  by_key.set_workload_key(SmallWorkloadKey());
  v1::BestResponse here, there;
  ASSERT_TRUE(CallBest(server_->stubs(), Authed().get(), by_key, &here).ok());
  ASSERT_TRUE(CallBest((*other)->stubs(), Authed().get(), by_key, &there).ok());
  ASSERT_TRUE(there.found());
  EXPECT_EQ(there.record().schedule_json(), here.record().schedule_json());
  EXPECT_EQ(there.record().task_id(), here.record().task_id());
}

TEST_F(RecordsRequestsTest, MalformedRecordRequestsAreRefusedNamingTheField) {
  auto best = [](const std::function<void(v1::BestRequest&)>& change) {
    v1::BestRequest r = Changed(v1::BestRequest(), change);
    return [r](Stubs& s) { return CallBest(s, Authed().get(), r); };
  };
  auto query = [](const std::function<void(v1::QueryRecordsRequest&)>& change) {
    v1::QueryRecordsRequest r = Changed(v1::QueryRecordsRequest(), change);
    return [r](Stubs& s) { return CallQuery(s, Authed().get(), r); };
  };
  auto export_with = [](const std::function<void(v1::ExportRecordsRequest&)>& change) {
    v1::ExportRecordsRequest r = Changed(v1::ExportRecordsRequest(), change);
    return [r](Stubs& s) { return CallExport(s, Authed().get(), r); };
  };
  std::vector<Refusal> cases = {
      {"best of nothing", best([](v1::BestRequest&) {}), Code::INVALID_ARGUMENT,
       "workload or workload_key is required"},
      {"best of both",
       best([](v1::BestRequest& r) {
         r.mutable_workload()->set_spec("matmul:M=16,N=16,K=16");
         r.set_workload_key("0123456789abcdef");
       }),
       Code::INVALID_ARGUMENT, "workload and workload_key are both set"},
      {"best of a bad key", best([](v1::BestRequest& r) { r.set_workload_key("xyz"); }), Code::INVALID_ARGUMENT,
       "workload_key 'xyz' is not a workload key"},
      {"best of an upper-case key", best([](v1::BestRequest& r) { r.set_workload_key("0123456789ABCDEF"); }),
       Code::INVALID_ARGUMENT, "workload_key '0123456789ABCDEF' is not a workload key"},
      {"best of a workload naming a file",
       best([](v1::BestRequest& r) { r.mutable_workload()->set_spec("def:/etc/shadow"); }), Code::INVALID_ARGUMENT,
       "workload.spec 'def:/etc/shadow' names a file"},
      {"best of an unknown op", best([](v1::BestRequest& r) { r.mutable_workload()->set_spec("matmull:M=2"); }),
       Code::INVALID_ARGUMENT, "workload.spec: "},
      {"best of a bad key value",
       best([](v1::BestRequest& r) { r.mutable_workload()->set_spec("matmul:M=0,N=16,K=16"); }),
       Code::INVALID_ARGUMENT, "workload.spec: "},
      {"best of a broken definition",
       best([](v1::BestRequest& r) { r.mutable_workload()->set_definition("this is not a definition"); }),
       Code::INVALID_ARGUMENT, "workload.definition: "},
      {"best on a bad device key",
       best([](v1::BestRequest& r) {
         r.set_workload_key("0123456789abcdef");
         r.set_device_key("a b");
       }),
       Code::INVALID_ARGUMENT, "device_key 'a b' is not a device key"},
      {"query over the cap", query([](v1::QueryRecordsRequest& r) { r.set_limit(10001); }), Code::INVALID_ARGUMENT,
       "limit must be 0..10000, got 10001"},
      {"query negative limit", query([](v1::QueryRecordsRequest& r) { r.set_limit(-1); }), Code::INVALID_ARGUMENT,
       "limit must be 0..10000, got -1"},
      {"query bad workload key", query([](v1::QueryRecordsRequest& r) { r.set_workload_key("zz"); }),
       Code::INVALID_ARGUMENT, "workload_key 'zz' is not a workload key"},
      {"query bad job id", query([](v1::QueryRecordsRequest& r) { r.set_job_id("job 1"); }), Code::INVALID_ARGUMENT,
       "job_id 'job 1' is not an id"},
      {"query bad device key", query([](v1::QueryRecordsRequest& r) { r.set_device_key("cpu/1"); }),
       Code::INVALID_ARGUMENT, "device_key 'cpu/1' is not a device key"},
      {"export bad workload key", export_with([](v1::ExportRecordsRequest& r) { r.set_workload_key("12"); }),
       Code::INVALID_ARGUMENT, "workload_key '12' is not a workload key"},
      {"export bad device key", export_with([](v1::ExportRecordsRequest& r) { r.set_device_key("x y"); }),
       Code::INVALID_ARGUMENT, "device_key 'x y' is not a device key"},
  };
  ExpectRefusals(*server_, cases);
}

TEST_F(RecordsRequestsTest, ABadImportLineIsNamedAcrossChunksAndNothingIsStored) {
  MeasureAJob();
  std::vector<std::string> lines;
  ASSERT_TRUE(CallExport(server_->stubs(), Authed().get(), {}, &lines).ok());
  absl::StatusOr<std::unique_ptr<TestServer>> other = TestServer::Start();
  ASSERT_TRUE(other.ok()) << other.status();
  Stubs& stubs = (*other)->stubs();

  std::vector<Refusal> cases = {
      {"not json in chunk 2",
       [&](Stubs& s) { return CallImport(s, Authed().get(), Chunks({{lines[0], lines[1]}, {lines[2], "{not json"}})); },
       Code::INVALID_ARGUMENT, "line 4: "},
      {"a record of a newer schema",
       [&](Stubs& s) {
         std::string newer = lines[0];
         size_t at = newer.find("\"schema_version\":1");
         if (at != std::string::npos) newer.replace(at, 18, "\"schema_version\":99");
         return CallImport(s, Authed().get(), Chunks({{newer}}));
       },
       Code::INVALID_ARGUMENT, "line 1: "},
      {"a chunk over 64 MiB",
       [&](Stubs& s) {
         v1::RecordLines huge;
         for (int i = 0; i < 65; ++i) huge.add_lines(std::string(1 << 20, 'x'));
         return CallImport(s, Authed().get(), {huge});
       },
       Code::INVALID_ARGUMENT, "chunks[0] holds 68157440 bytes of lines; send chunks of at most 67108864"},
      {"a line over 16 MiB",
       [&](Stubs& s) {
         v1::RecordLines chunk;
         chunk.add_lines(std::string((16 << 20) + 1, 'x'));
         return CallImport(s, Authed().get(), {chunk});
       },
       Code::INVALID_ARGUMENT, "line 1: too long (16777217 bytes)"},
  };
  ExpectRefusals(**other, cases);
  std::vector<std::string> stored;
  ASSERT_TRUE(CallExport(stubs, Authed().get(), {}, &stored).ok());
  EXPECT_TRUE(stored.empty()) << "a refused import stored " << stored.size() << " records";
}

TEST_F(RecordsRequestsTest, ExportStreamsManyRecordsInChunks) {
  // 2,500 records through import, then exported back in chunks of <= 1000 lines.
  MeasureAJob();
  std::vector<std::string> lines;
  ASSERT_TRUE(CallExport(server_->stubs(), Authed().get(), {}, &lines).ok());
  ASSERT_FALSE(lines.empty());
  std::vector<std::string> many;
  const std::string task_id = "\"task_id\":\"";
  for (int i = 0; i < 2500; ++i) {
    std::string line = lines[0];
    size_t at = line.find(task_id);
    ASSERT_NE(at, std::string::npos) << line;
    line.insert(at + task_id.size(), "copy" + std::to_string(i) + "-");
    // The copy gets its own id from the store.
    size_t id_at = line.find("\"id\":");
    if (id_at != std::string::npos) {
      size_t end = line.find_first_of(",}", id_at);
      line.erase(id_at, end - id_at + (line[end] == ',' ? 1 : 0));
    }
    many.push_back(line);
  }
  absl::StatusOr<std::unique_ptr<TestServer>> other = TestServer::Start();
  ASSERT_TRUE(other.ok()) << other.status();
  v1::ImportRecordsResponse imported;
  grpc::Status status = CallImport((*other)->stubs(), Authed().get(), Chunks({many}), &imported);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(imported.imported(), 2500);

  std::unique_ptr<grpc::ClientContext> context = Authed();
  auto reader = (*other)->stubs().records->Export(context.get(), {});
  v1::RecordLines chunk;
  int chunks = 0, total = 0;
  while (reader->Read(&chunk)) {
    ++chunks;
    total += chunk.lines_size();
    // At most 1000 lines, and about 1 MiB (a chunk closes at the line that
    // passes 1 MiB).
    EXPECT_LE(chunk.lines_size(), 1000);
    int64_t bytes = 0;
    for (const std::string& line : chunk.lines()) bytes += static_cast<int64_t>(line.size());
    EXPECT_LT(bytes, (1 << 20) + 64 * 1024);
  }
  ASSERT_TRUE(reader->Finish().ok());
  EXPECT_EQ(total, 2500);
  EXPECT_GE(chunks, 3);
}

}  // namespace
}  // namespace tuneforge::server::testing
