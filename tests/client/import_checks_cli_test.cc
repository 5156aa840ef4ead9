// tuneforge import refuses a file whose records are not what they claim
// (forged schedules, workloads, figures) or hold numbers beyond a double,
// naming the line and field, into a database and into a server alike, and
// stores nothing of it. Records imported under a device key without the
// CPU model (older builds) are found by `best` for that device's key today.
#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tests/client/cli_child.h"

namespace tuneforge::client_test {
namespace {

using service_test::Cluster;
using ::testing::HasSubstr;
using Json = nlohmann::json;

class ImportChecksCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir();
    CliResult shown = RunCliIn(dir_, {"show", kMatmul32, "--json"});
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    key_ = shown.json["workload_key"].get<std::string>();
    flops_ = shown.json["flops"].get<double>();
  }
  // An honest record of kMatmul32, naive schedule, 1 ms.
  Json Record(const std::string& task_id) const {
    return Json{{"schema_version", 1},
                {"workload_key", key_},
                {"workload", shown_spec()},
                {"device_key", "x86_64-avx2-2c"},
                {"task_id", task_id},
                {"schedule_json", Json{{"workload", shown_spec()}, {"steps", Json::array()}}.dump()},
                {"error_kind", "none"},
                {"median_seconds", 1e-3},
                {"gflops", flops_ / 1e-3 / 1e9},
                {"created_unix_ms", 1700000000000}};
  }
  std::string shown_spec() const { return kMatmul32; }
  std::string File(const std::vector<std::string>& lines) {
    std::string path = absl::StrCat(dir_, "/import-", ++files_, ".jsonl");
    std::ofstream out(path);
    for (const std::string& l : lines) out << l << "\n";
    return path;
  }
  std::string dir_;
  std::string key_;
  double flops_ = 0;
  int files_ = 0;
};

TEST_F(ImportChecksCliTest, ForgedRecordsAreRefusedAndNothingIsStored) {
  const std::string good = Record("t-good").dump();
  std::string huge = Record("t-huge").dump();
  huge.insert(huge.size() - 1, ",\"compile_ms\":1e400");
  Json empty_schedule = Record("t-1");
  empty_schedule["schedule_json"] = "{}";
  Json other_workload = Record("t-2");
  other_workload["schedule_json"] =
      Json{{"workload", "matmul:M=64,N=64,K=64"}, {"steps", Json::array()}}.dump();
  Json wrong_key = Record("t-3");
  wrong_key["workload"] = "matmul:M=32,N=32,K=16";
  Json picosecond = Record("t-4");
  picosecond["median_seconds"] = 1e-12;
  Json fast = Record("t-5");
  fast["gflops"] = 1e308;
  struct Case {
    std::string line;
    std::string field;
  };
  const std::string db = dir_ + "/records.db";
  for (const Case& c : std::vector<Case>{{huge, "compile_ms"},
                                         {empty_schedule.dump(), "schedule_json"},
                                         {other_workload.dump(), "schedule_json"},
                                         {wrong_key.dump(), "workload_key"},
                                         {picosecond.dump(), "median_seconds"},
                                         {fast.dump(), "gflops"}}) {
    const std::string file = File({good, c.line});
    CliResult r = RunCliIn(dir_, {"import", file, "--db", db});
    ExpectOneLineError(r, file + " line 2: field '" + c.field + "'");
    EXPECT_THAT(r.err, HasSubstr("nothing was imported"));
    CliResult json = RunCliIn(dir_, {"import", file, "--db", db, "--json"});
    EXPECT_EQ(json.exit_code, 1);
    ASSERT_TRUE(json.json.is_object()) << json.out;
    EXPECT_THAT(json.json["error"].get<std::string>(), HasSubstr("line 2"));
  }
  // Nothing was stored (the file was refused before the database was
  // opened), then the honest line imports and is the best.
  EXPECT_FALSE(std::filesystem::exists(db));
  CliResult imported = RunCliIn(dir_, {"import", File({good}), "--db", db, "--json"});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  EXPECT_EQ(imported.json["imported"], 1);
  CliResult best = RunCliIn(dir_, {"best", kMatmul32, "--db", db, "--device-key", "x86_64-avx2-2c", "--json"});
  EXPECT_EQ(best.json["found"], true) << best.out << best.err;
  EXPECT_EQ(best.json["seconds"], 1e-3);
}

TEST_F(ImportChecksCliTest, ThroughAServerTheSameLinesAreRefused) {
  absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  std::string huge = Record("t-huge").dump();
  huge.insert(huge.size() - 1, ",\"compile_ms\":1e400");
  Json fast = Record("t-5");
  fast["gflops"] = 1e308;
  for (const std::string& line : {huge, fast.dump()}) {
    CliResult r = (*cluster)->RunCliOnServer({"import", File({line})});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    ASSERT_TRUE(r.json.is_object()) << r.out;
    EXPECT_THAT(r.json["error"].get<std::string>(), HasSubstr("line 1: field '"));
  }
  CliResult exported = (*cluster)->RunCliOnServer({"export", "--out", dir_ + "/back.jsonl"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_EQ(exported.json["exported"], 0);
}

TEST_F(ImportChecksCliTest, BestFindsRecordsStoredUnderTheKeyWithoutTheCpuModel) {
  const std::string db = dir_ + "/old.db";
  Json old = Record("t-old");
  old["device_key"] = "x86_64-avx2-2c";  // as builds before the model was in the key wrote it
  CliResult imported = RunCliIn(dir_, {"import", File({old.dump()}), "--db", db, "--json"});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  CliResult best = RunCliIn(dir_, {"best", kMatmul32, "--db", db, "--device-key", "x86_64-avx2-epyc9r14-2c", "--json"});
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_EQ(best.json["found"], true) << best.out;
  EXPECT_EQ(best.json["target"], "x86_64-avx2-2c");
  // Another model's key is another device: not found there.
  CliResult other =
      RunCliIn(dir_, {"best", kMatmul32, "--db", db, "--device-key", "x86_64-avx512-epyc9r14-2c", "--json"});
  EXPECT_EQ(other.json["found"], false) << other.out;
  // The old spelling --target still selects the device key, with a note.
  CliResult legacy = RunCliIn(dir_, {"best", kMatmul32, "--db", db, "--target", "x86_64-avx2-2c", "--json"});
  EXPECT_EQ(legacy.json["found"], true) << legacy.out;
  EXPECT_THAT(legacy.err, HasSubstr("use --device-key for device keys"));
}

}  // namespace
}  // namespace tuneforge::client_test
