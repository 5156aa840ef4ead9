// export / import: records as JSON lines from a database file and from a
// server, into a second database and back into a server, with duplicates
// counted and malformed lines refused before anything is stored.
#include <filesystem>
#include <fstream>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/client/cli_child.h"

namespace tuneforge::client_test {
namespace {

using service_test::Cluster;
using service_test::SmallJob;
using ::testing::HasSubstr;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::set<std::string> TaskIds(const std::vector<std::string>& lines) {
  std::set<std::string> ids;
  for (const std::string& l : lines) ids.insert(nlohmann::json::parse(l)["task_id"].get<std::string>());
  return ids;
}

class RecordsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
    ASSERT_TRUE(c().StartWorker().ok());
    absl::StatusOr<v1::Job> job = c().Submit(SmallJob(kMatmul32, 10, 5));
    ASSERT_TRUE(job.ok()) << job.status();
    absl::StatusOr<v1::Job> done = c().WaitForJobEnd(job->id(), absl::Seconds(90));
    ASSERT_TRUE(done.ok()) << done.status();
    ASSERT_EQ(done->state(), v1::JOB_STATE_DONE) << done->error();
  }
  Cluster& c() { return *cluster_; }
  std::unique_ptr<Cluster> cluster_;
};

TEST_F(RecordsCliTest, ExportImportRoundTripIntoASecondDatabase) {
  std::string jsonl = c().dir() + "/records.jsonl";
  CliResult exported = c().RunCli({"export", "--db", c().db_path(), "--out", jsonl, "--json"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_EQ(exported.json["exported"], 10);
  std::vector<std::string> lines = Lines(ReadFile(jsonl));
  ASSERT_EQ(lines.size(), 10u);
  EXPECT_EQ(TaskIds(lines).size(), 10u);

  // The server exports the same lines (to stdout without --out).
  CliResult from_server = c().RunCli({"export", "--server", c().address(), "--token-file",
                                      c().token_file(), "--workload", kMatmul32});
  ASSERT_EQ(from_server.exit_code, 0) << from_server.err;
  EXPECT_EQ(Lines(from_server.out), lines);
  EXPECT_THAT(from_server.err, HasSubstr("exported 10 records"));

  std::string second_db = c().dir() + "/second.db";
  CliResult imported = c().RunCli({"import", jsonl, "--db", second_db, "--json"});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_EQ(imported.json["imported"], 10);
  EXPECT_EQ(imported.json["duplicate"], 0);
  // Again: every record is already there.
  CliResult again = c().RunCli({"import", jsonl, "--db", second_db, "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.json["imported"], 0);
  EXPECT_EQ(again.json["duplicate"], 10);

  // The second database answers as the first.
  CliResult best1 = c().RunCli({"best", kMatmul32, "--db", c().db_path(), "--json"});
  CliResult best2 = c().RunCli({"best", kMatmul32, "--db", second_db, "--json"});
  ASSERT_EQ(best2.exit_code, 0) << best2.err;
  EXPECT_TRUE(best2.json["found"].get<bool>());
  EXPECT_EQ(best2.json["schedule"], best1.json["schedule"]);
  EXPECT_DOUBLE_EQ(best2.json["seconds"].get<double>(), best1.json["seconds"].get<double>());
  std::string round_trip = c().dir() + "/round_trip.jsonl";
  ASSERT_EQ(c().RunCli({"export", "--db", second_db, "--out", round_trip}).exit_code, 0);
  EXPECT_EQ(TaskIds(Lines(ReadFile(round_trip))), TaskIds(lines));

  // Into the server they came from: all duplicates.
  CliResult into_server = c().RunCliOnServer({"import", jsonl});
  ASSERT_EQ(into_server.exit_code, 0) << into_server.err;
  EXPECT_EQ(into_server.json["duplicate"], 10);
  EXPECT_EQ(into_server.json["imported"], 0);
}

TEST_F(RecordsCliTest, ExportFiltersByWorkloadAndTarget) {
  std::string out = c().dir() + "/none.jsonl";
  CliResult other = c().RunCli({"export", "--db", c().db_path(), "--workload", "matmul:M=8,N=8,K=8",
                                "--out", out, "--json"});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_EQ(other.json["exported"], 0);
  CliResult target = c().RunCli({"export", "--db", c().db_path(), "--target", "no-such-device",
                                 "--out", out, "--json"});
  EXPECT_EQ(target.json["exported"], 0);
  CliResult mine = c().RunCli({"export", "--db", c().db_path(), "--target",
                               service_test::kTestDeviceKey, "--out", out, "--json"});
  EXPECT_EQ(mine.json["exported"], 10);
}

TEST_F(RecordsCliTest, MalformedLineIsRefusedWithItsLineNumberAndNothingIsStored) {
  std::string jsonl = c().dir() + "/records.jsonl";
  ASSERT_EQ(c().RunCli({"export", "--db", c().db_path(), "--out", jsonl}).exit_code, 0);
  std::vector<std::string> lines = Lines(ReadFile(jsonl));
  std::string bad = c().dir() + "/bad.jsonl";
  {
    std::ofstream out(bad);
    out << lines[0] << "\n\n" << lines[1] << "\n" << R"({"task_id": "x", "gflops": "fast"})" << "\n";
  }
  std::string db = c().dir() + "/untouched.db";
  CliResult r = c().RunCli({"import", bad, "--db", db});
  ExpectOneLineError(r, "bad.jsonl line 4");
  EXPECT_THAT(r.err, HasSubstr("nothing was imported"));
  EXPECT_FALSE(std::filesystem::exists(db));
}

}  // namespace
}  // namespace tuneforge::client_test
