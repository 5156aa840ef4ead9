// ImportChecker: an imported record is refused unless it is what it claims
// (its workload and key agree, its schedule replays on that workload, its
// figures agree with the FLOP count and are plausible).
#include "server/service/import_checks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/te/workload.h"
#include "nlohmann/json.hpp"
#include "server/record_store/record_store.h"

namespace tuneforge::server {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::ordered_json;

constexpr char kSpec[] = "matmul:K=64,M=64,N=64";
constexpr char kSplit[] = R"({"kind":"split","stage":2,"iter":0,"lengths":[8],"inner_to_outer":true})";

std::string KeyOf(const std::string& spec) {
  absl::StatusOr<te::Workload> w = te::ParseWorkload(spec);
  return w.ok() ? w->dag->workload_key() : "";
}
double FlopsOf(const std::string& spec) {
  absl::StatusOr<te::Workload> w = te::ParseWorkload(spec);
  return w.ok() ? w->dag->flops() : 0;
}

// A correct record of kSpec measured at 1 ms, with one split step.
Json GoodRecord() {
  const double seconds = 1e-3;
  return Json{{"schema_version", 1},
              {"workload_key", KeyOf(kSpec)},
              {"workload", kSpec},
              {"device_key", "x86_64-avx2-2c"},
              {"task_id", "t-1"},
              {"schedule_json", absl::StrCat(R"({"workload":")", kSpec, R"(","steps":[)", kSplit, "]}")},
              {"error_kind", "none"},
              {"median_seconds", seconds},
              {"gflops", FlopsOf(kSpec) / seconds / 1e9},
              {"created_unix_ms", 1700000000000}};
}

// As an import reads a line: the record, then the checks of what it claims.
absl::Status Check(const Json& line) {
  absl::StatusOr<Record> record = RecordFromJsonLine(line.dump());
  if (!record.ok()) return record.status();
  ImportChecker checker;
  return checker.Check(*record);
}

TEST(ImportChecksTest, AnHonestRecordPasses) {
  EXPECT_TRUE(Check(GoodRecord()).ok()) << Check(GoodRecord());
  Json naive = GoodRecord();  // no steps: the naive program is a schedule too
  naive["schedule_json"] = absl::StrCat(R"({"workload":")", kSpec, R"(","steps":[]})");
  EXPECT_TRUE(Check(naive).ok()) << Check(naive);
  Json retimed = GoodRecord();  // re-timing rescales gflops with rounding
  retimed["gflops"] = retimed["gflops"].get<double>() * (1 + 1e-9);
  EXPECT_TRUE(Check(retimed).ok()) << Check(retimed);
}

struct Forgery {
  std::string name;
  void (*edit)(Json&);
  std::string field;    // named in the error
  std::string problem;  // and this
};

TEST(ImportChecksTest, ForgedRecordsAreRefusedNamingTheField) {
  const std::vector<Forgery> forgeries = {
      {"empty schedule", [](Json& r) { r["schedule_json"] = "{}"; }, "schedule_json", ""},
      {"schedule of another workload",
       [](Json& r) {
         r["schedule_json"] = absl::StrCat(R"({"workload":"matmul:K=32,M=32,N=32","steps":[)", kSplit, "]}");
       },
       "schedule_json", "matmul:K=32,M=32,N=32"},
      {"schedule with another key",
       [](Json& r) { r["schedule_json"] = R"({"workload":"","workload_key":"abc","steps":[]})"; },
       "schedule_json", "abc"},
      {"schedule that does not replay",
       [](Json& r) {
         r["schedule_json"] = absl::StrCat(
             R"({"workload":")", kSpec,
             R"(","steps":[{"kind":"split","stage":7,"iter":0,"lengths":[8],"inner_to_outer":true}]})");
       },
       "schedule_json", "does not replay"},
      {"workload of another key", [](Json& r) { r["workload"] = "matmul:K=64,M=64,N=32"; }, "workload_key",
       "matmul:K=64,M=64,N=32"},
      {"workload that does not parse", [](Json& r) { r["workload"] = "matmul:M=-1"; }, "workload", ""},
      {"a picosecond", [](Json& r) { r["median_seconds"] = 1e-12; }, "median_seconds", "at least"},
      {"gflops 1e308", [](Json& r) { r["gflops"] = 1e308; }, "gflops", "disagree"},
      {"gflops 0", [](Json& r) { r["gflops"] = 0.0; }, "gflops", "disagree"},
      {"fast and consistent but impossible",
       [](Json& r) {
         const std::string big = "matmul:K=1024,M=1024,N=1024";  // 2.1 GFLOP in 100 ns: 21 PFLOPS
         r["workload"] = big;
         r["workload_key"] = KeyOf(big);
         r["schedule_json"] = absl::StrCat(R"({"workload":")", big, R"(","steps":[]})");
         r["median_seconds"] = 1e-7;
         r["gflops"] = FlopsOf(big) / 1e-7 / 1e9;
       },
       "median_seconds", "more than any device"},
      {"a definition, which cannot be replayed (nor read here)",
       [](Json& r) {
         r["workload"] = "def:/etc/passwd";
         r["schedule_json"] = R"({"workload":"def:/etc/passwd","steps":[]})";
       },
       "workload", "compute definition"},
      {"no workload anywhere",
       [](Json& r) {
         r.erase("workload");
         r["schedule_json"] = absl::StrCat(R"({"workload_key":")", KeyOf(kSpec), R"(","steps":[]})");
       },
       "schedule_json", "workload"},
      {"a workload only in the key",
       [](Json& r) {
         r.erase("workload");
         r["schedule_json"] = absl::StrCat(R"({"workload":"","workload_key":")", KeyOf(kSpec), R"(","steps":[]})");
       },
       "workload", "is missing"},
  };
  for (const Forgery& f : forgeries) {
    Json record = GoodRecord();
    f.edit(record);
    absl::Status s = Check(record);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << f.name << ": " << s;
    EXPECT_THAT(s.message(), HasSubstr("field '" + f.field + "'")) << f.name;
    EXPECT_THAT(s.message(), HasSubstr(f.problem)) << f.name;
  }
}

// A compute definition's record carries the definition's text: its
// schedule is checked against that, as a spec's is against the spec.
TEST(ImportChecksTest, ADefinitionsRecordIsCheckedAgainstItsText) {
  const std::string text =
      "input X: float32[16, 8]\ninput Y: float32[8, 16]\nZ[a: 16, b: 16] = sum(X[a, r] * Y[r, b], r: 8)\n";
  absl::StatusOr<te::Workload> w = te::ParseDefinition(text, "tiny");
  ASSERT_TRUE(w.ok()) << w.status();
  const double seconds = 1e-6;
  const Json honest{{"schema_version", 1},
                    {"workload_key", w->dag->workload_key()},
                    {"workload", "def:tiny"},
                    {"device_key", "x86_64-avx2-2c"},
                    {"task_id", "t-def"},
                    {"schedule_json", R"({"workload":"def:tiny","steps":[]})"},
                    {"error_kind", "none"},
                    {"median_seconds", seconds},
                    {"gflops", w->dag->flops() / seconds / 1e9},
                    {"created_unix_ms", 1700000000000},
                    {"definition", text}};
  EXPECT_TRUE(Check(honest).ok()) << Check(honest);

  Json no_replay = honest;
  no_replay["schedule_json"] =
      R"({"workload":"def:tiny","steps":[{"kind":"split","stage":7,"iter":0,"lengths":[8],"inner_to_outer":true}]})";
  EXPECT_THAT(Check(no_replay).message(), HasSubstr("does not replay"));
  Json other_text = honest;
  other_text["definition"] = "input X: float32[4]\nZ[a: 4] = X[a] * 2.0\n";
  absl::Status s = Check(other_text);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("field 'definition' defines the workload key"));
  Json wrong_figures = honest;
  wrong_figures["gflops"] = 1e6;
  EXPECT_THAT(Check(wrong_figures).message(), HasSubstr("disagree"));
}

TEST(ImportChecksTest, ErrorRecordsNeedOnlyTheirWorkloadAndKey) {
  Json failed = GoodRecord();
  failed["error_kind"] = "compile_error";
  failed["schedule_json"] = "{}";
  failed["median_seconds"] = 0.0;
  failed["gflops"] = 0.0;
  EXPECT_TRUE(Check(failed).ok()) << Check(failed);
  failed["workload"] = "def:conv_custom";  // nothing to check it against, and it never wins
  EXPECT_TRUE(Check(failed).ok()) << Check(failed);
  failed["workload"] = "matmul:K=8,M=8,N=8";
  EXPECT_THAT(Check(failed).message(), HasSubstr("field 'workload_key'"));
}

}  // namespace
}  // namespace tuneforge::server
