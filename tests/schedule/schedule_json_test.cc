#include "common/schedule/schedule_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/schedule/step_fields.h"
#include "tests/schedule/test_dags.h"

namespace tuneforge::schedule {
namespace {

using ::testing::HasSubstr;

Schedule Example() {
  Schedule s;
  s.workload = "matmul:M=64,N=64,K=64";
  s.workload_key = "0123456789abcdef";
  s.steps = testing::OneStepOfEachKind();
  return s;
}

TEST(ScheduleJsonTest, TheExampleCoversEveryStepKind) {
  std::vector<bool> seen(std::variant_size_v<Step>, false);
  for (const Step& step : testing::OneStepOfEachKind()) seen[step.index()] = true;
  for (size_t i = 0; i < seen.size(); ++i) EXPECT_TRUE(seen[i]) << "variant index " << i;
}

TEST(ScheduleJsonTest, StepsRoundTripForEveryKind) {
  for (const Step& step : testing::OneStepOfEachKind()) {
    Json json = StepToJson(step);
    absl::StatusOr<Step> back = StepFromJson(json);
    ASSERT_TRUE(back.ok()) << back.status() << " for " << json.dump();
    EXPECT_EQ(StepToString(*back), StepToString(step));
  }
}

TEST(ScheduleJsonTest, StepsAreWrittenWithTheirKindFirstAndStructFieldNames) {
  EXPECT_EQ(StepToJson(SplitStep{2, 0, {32, 4}, true}).dump(),
            R"({"kind":"split","stage":2,"iter":0,"lengths":[32,4],"inner_to_outer":true})");
  EXPECT_EQ(StepToJson(AnnotationStep{1, 3, IterAnnotation::kThreadX}).dump(),
            R"({"kind":"annotation","stage":1,"iter":3,"annotation":"threadIdx.x"})");
  EXPECT_EQ(StepToJson(CacheReadStep{0, "shared", {2}}).dump(),
            R"({"kind":"cache_read","stage":0,"scope":"shared","readers":[2]})");
}

TEST(ScheduleJsonTest, SchedulesRoundTripThroughText) {
  Schedule s = Example();
  for (int indent : {-1, 2}) {
    absl::StatusOr<Schedule> back = ParseScheduleJson(ScheduleToJsonText(s, indent));
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->version, 1);
    EXPECT_EQ(back->workload, s.workload);
    EXPECT_EQ(back->workload_key, s.workload_key);
    ASSERT_EQ(back->steps.size(), s.steps.size());
    for (size_t i = 0; i < s.steps.size(); ++i)
      EXPECT_EQ(StepToString(back->steps[i]), StepToString(s.steps[i]));
  }
}

TEST(ScheduleJsonTest, TheMinimalInterfaceFormIsAccepted) {
  absl::StatusOr<Schedule> s = ParseScheduleJson(
      R"({"workload": "matmul:M=8,N=8,K=8", "steps": [{"kind": "compute_root", "stage": 2}]})");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->version, 1);
  EXPECT_EQ(s->workload_key, "");
  ASSERT_EQ(s->steps.size(), 1u);
  EXPECT_EQ(std::get<ComputeRootStep>(s->steps[0]).stage, 2);
}

TEST(ScheduleJsonTest, FilesSaveAndLoad) {
  std::string path = ::testing::TempDir() + "/schedule_json_test.json";
  ASSERT_TRUE(SaveScheduleFile(Example(), path).ok());
  absl::StatusOr<Schedule> back = LoadScheduleFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->steps.size(), Example().steps.size());
  std::remove(path.c_str());
  absl::StatusOr<Schedule> missing = LoadScheduleFile(path);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().ToString(), HasSubstr("cannot open schedule file"));
}

struct JsonErrorCase {
  std::string name;
  std::string text;
  std::string message;
};

void PrintTo(const JsonErrorCase& c, std::ostream* os) { *os << c.name; }

class ScheduleJsonErrorTest : public ::testing::TestWithParam<JsonErrorCase> {};

TEST_P(ScheduleJsonErrorTest, IsRejectedWithAMessage) {
  absl::StatusOr<Schedule> s = ParseScheduleJson(GetParam().text);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().ToString(), HasSubstr(GetParam().message));
}

constexpr char kHead[] = R"({"version": 1, "workload": "w", "steps": [)";

INSTANTIATE_TEST_SUITE_P(
    Json, ScheduleJsonErrorTest,
    ::testing::Values(
        JsonErrorCase{
            "InvalidJson", R"({"workload": "w", "steps": [)",
            "schedule JSON is not valid JSON (at byte 29): parse error at line 1, column 29"},
        JsonErrorCase{"TrailingGarbage", R"({"workload": "w", "steps": []} x)",
                      "not valid JSON (at byte 32): parse error at line 1, column 32: syntax error "
                      "while parsing value - invalid literal"},
        JsonErrorCase{"TopLevelArray", "[]", "the top level must be an object"},
        JsonErrorCase{"UnknownTopField", R"({"workload": "w", "steps": [], "step": 1})",
                      "unknown field 'step'; a schedule has fields version, workload, "
                      "workload_key, steps"},
        JsonErrorCase{"MissingWorkload", R"({"steps": []})", "missing field 'workload'"},
        JsonErrorCase{"MissingSteps", R"({"workload": "w"})", "missing field 'steps'"},
        JsonErrorCase{"StepsNotArray", R"({"workload": "w", "steps": {}})",
                      "field 'steps' must be an array; got object"},
        JsonErrorCase{"UnknownVersion", R"({"version": 2, "workload": "w", "steps": []})",
                      "unsupported version 2; this build reads version 1"},
        JsonErrorCase{"VersionNotInteger", R"({"version": "1", "workload": "w", "steps": []})",
                      "field 'version' must be an integer; got string \"1\""},
        JsonErrorCase{"WorkloadNotString", R"({"workload": 3, "steps": []})",
                      "field 'workload' must be a string; got number 3"},
        JsonErrorCase{"StepNotObject", std::string(kHead) + "3]}",
                      "step 0 must be an object with a \"kind\"; got number 3"},
        JsonErrorCase{"MissingKind", std::string(kHead) + R"({"stage": 1}]})",
                      "step 0: missing field 'kind'; use one of split, follow_split"},
        JsonErrorCase{"UnknownKind", std::string(kHead) + R"({"kind": "tile"}]})",
                      "step 0: unknown kind 'tile'; use one of split, follow_split, "
                      "follow_fused_split, reorder, fuse, annotation, pragma, storage_align, "
                      "compute_at, compute_root, compute_inline, cache_read, cache_write, rfactor"},
        JsonErrorCase{
            "MissingField",
            std::string(kHead) + R"({"kind": "split", "stage": 1, "iter": 0, "lengths": [4]}]})",
            "step 0 (split): missing field 'inner_to_outer'; a split step needs stage, "
            "iter, lengths, inner_to_outer"},
        JsonErrorCase{"UnknownField",
                      std::string(kHead) + R"({"kind": "compute_root", "stage": 1, "iter": 0}]})",
                      "step 0 (compute_root): unknown field 'iter'; a compute_root step has "
                      "fields stage"},
        JsonErrorCase{
            "WrongType",
            std::string(kHead) +
                R"({"kind": "compute_root", "stage": 1}, {"kind": "fuse", "stage": 1, "iters": "0,1"}]})",
            "step 1 (fuse): field 'iters' must be an array of integers; got string"},
        JsonErrorCase{
            "WrongElementType",
            std::string(kHead) + R"({"kind": "reorder", "stage": 1, "order": [0, 1.5]}]})",
            "step 0 (reorder): field 'order' [1] must be an integer; got number 1.5"},
        JsonErrorCase{
            "NegativeIndex", std::string(kHead) + R"({"kind": "compute_inline", "stage": -1}]})",
            "step 0 (compute_inline): field 'stage' is an index and must be >= 0; got -1"},
        JsonErrorCase{
            "NegativeIndexInList",
            std::string(kHead) +
                R"({"kind": "cache_read", "stage": 0, "scope": "local", "readers": [-2]}]})",
            "field 'readers' [0] is an index and must be >= 0; got -2"},
        JsonErrorCase{
            "BoolNotBool",
            std::string(kHead) +
                R"({"kind": "split", "stage": 1, "iter": 0, "lengths": [4], "inner_to_outer": 1}]})",
            "field 'inner_to_outer' must be true or false; got number 1"},
        JsonErrorCase{
            "UnknownAnnotation",
            std::string(kHead) +
                R"({"kind": "annotation", "stage": 1, "iter": 0, "annotation": "paralel"}]})",
            "step 0 (annotation): field 'annotation' has unknown annotation 'paralel'; "
            "use one of none, unroll, vectorize, parallel, vthread, blockIdx.x"},
        JsonErrorCase{
            "HugeInteger",
            std::string(kHead) +
                R"({"kind": "pragma", "stage": 1, "iter": 0, "auto_unroll_max_step": 18446744073709551615}]})",
            "field 'auto_unroll_max_step' is too large for a 64-bit integer"},
        JsonErrorCase{"IndexTooLarge",
                      std::string(kHead) + R"({"kind": "compute_root", "stage": 4294967296}]})",
                      "field 'stage' is too large: 4294967296"}),
    [](const ::testing::TestParamInfo<JsonErrorCase>& info) { return info.param.name; });

// tests/errors/schedules: each NAME.json must fail to load, or to replay on
// the test DAG named by its "workload", with an error containing the text of
// NAME.expected.
TEST(ScheduleJsonTest, ErrorFilesFailWithTheExpectedMessage) {
  const std::filesystem::path dir =
      std::filesystem::path(TF_TEST_DATA_DIR) / ".." / "errors" / "schedules";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    std::filesystem::path expected_path = entry.path();
    expected_path.replace_extension(".expected");
    std::ifstream expected_file(expected_path);
    ASSERT_TRUE(expected_file) << "missing " << expected_path;
    std::string expected;
    std::getline(expected_file, expected);
    ASSERT_FALSE(expected.empty()) << expected_path << " is empty";

    absl::Status error;
    absl::StatusOr<Schedule> schedule = LoadScheduleFile(entry.path().string());
    if (!schedule.ok()) {
      error = schedule.status();
    } else {
      te::ComputeDagPtr dag = testing::DagByName(schedule->workload);
      ASSERT_NE(dag, nullptr) << entry.path() << ": no test DAG named " << schedule->workload;
      error = State::Replay(dag, schedule->steps).status();
    }
    EXPECT_FALSE(error.ok()) << entry.path() << " was accepted";
    EXPECT_THAT(error.ToString(), HasSubstr(expected)) << entry.path();
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

}  // namespace
}  // namespace tuneforge::schedule
