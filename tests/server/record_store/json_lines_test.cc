// Export and import as JSON lines: round trips between stores, and every
// way a line can be wrong.
#include <map>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "common/te/workload.h"
#include "nlohmann/json.hpp"
#include "server/marshal/to_proto.h"
#include "tests/server/record_store/store_test_util.h"

namespace tuneforge::server {
namespace {

using ::testing::HasSubstr;
using testing::MakeRecord;
using testing::OpenOrFail;
using testing::TempDir;
using testing::WithoutId;
using Json = nlohmann::ordered_json;

Record FullRecord() {
  Record record = MakeRecord("t-1", "wk-a", "dev-1", 0.00123456789012345);
  record.id = 42;
  record.created_unix_ms = 1700000000123;
  record.schema_version = kRecordSchemaVersion;
  record.timings = 2;
  record.compared_at_unix_ms = 1700000060000;
  return record;
}

TEST(JsonLineTest, RoundTripKeepsEveryField) {
  const Record record = FullRecord();
  const std::string line = RecordToJsonLine(record);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(line.rfind("{\"schema_version\":1,", 0), 0u) << line;
  absl::StatusOr<Record> back = RecordFromJsonLine(line);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(RecordToJsonLine(*back), line);
  EXPECT_EQ(ToProto(*back).DebugString(), ToProto(record).DebugString());
  // Every field of the API's record message is in the line.
  const Json json = Json::parse(line);
  const google::protobuf::Descriptor* descriptor = v1::Record::descriptor();
  for (int i = 0; i < descriptor->field_count(); ++i)
    EXPECT_TRUE(json.contains(descriptor->field(i)->name())) << descriptor->field(i)->name();
  EXPECT_EQ(json.size(), static_cast<size_t>(descriptor->field_count()));
}

TEST(JsonLineTest, OptionalFieldsMayBeLeftOut) {
  const std::string line =
      R"({"schema_version":1,"workload_key":"wk","device_key":"d","task_id":"t","schedule_json":"{\"steps\":[]}",)"
      R"("error_kind":"none","median_seconds":0.5,"created_unix_ms":5})";
  absl::StatusOr<Record> record = RecordFromJsonLine(line);
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->job_id, "");
  EXPECT_TRUE(record->repeat_seconds.empty());
  EXPECT_EQ(record->gflops, 0);
}

struct BadLineCase {
  std::string name;
  std::string field;
  Json value;          // replaces the field's value; discarded() removes it
  std::string expect;  // in the error message
};

void PrintTo(const BadLineCase& c, std::ostream* os) { *os << c.name; }

std::string LineWith(const BadLineCase& c) {
  Json json = Json::parse(RecordToJsonLine(FullRecord()));
  if (c.value.is_discarded()) {
    json.erase(c.field);
  } else {
    json[c.field] = c.value;
  }
  return json.dump();
}

class BadLineTest : public ::testing::TestWithParam<BadLineCase> {};

TEST_P(BadLineTest, NamesTheFieldAndProblem) {
  const BadLineCase& c = GetParam();
  absl::StatusOr<Record> record = RecordFromJsonLine(LineWith(c));
  ASSERT_FALSE(record.ok()) << LineWith(c);
  EXPECT_EQ(record.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(record.status().message(), HasSubstr(c.expect));
}

const Json kMissing = Json(Json::value_t::discarded);

INSTANTIATE_TEST_SUITE_P(
    EveryField, BadLineTest,
    ::testing::Values(
        BadLineCase{"schema_version_type", "schema_version", "1", "field 'schema_version' must be an integer; got string"},
        BadLineCase{"schema_version_newer", "schema_version", 2,
                    "field 'schema_version' is 2, but this tuneforge reads record schema versions 1 to 1: the "
                    "record comes from a newer tuneforge; upgrade"},
        BadLineCase{"schema_version_zero", "schema_version", 0, "field 'schema_version' is 0"},
        BadLineCase{"schema_version_missing", "schema_version", kMissing, "field 'schema_version' is missing"},
        BadLineCase{"id_type", "id", 1.5, "field 'id' must be an integer; got number 1.5"},
        BadLineCase{"id_too_large", "id", 18446744073709551615ull, "field 'id' is out of range"},
        BadLineCase{"id_negative", "id", -3, "field 'id' must be >= 0; got -3"},
        BadLineCase{"workload_key_type", "workload_key", 7, "field 'workload_key' must be a string; got number 7"},
        BadLineCase{"workload_key_empty", "workload_key", "", "field 'workload_key' is empty"},
        BadLineCase{"workload_key_missing", "workload_key", kMissing, "field 'workload_key' is missing; it is required"},
        BadLineCase{"workload_type", "workload", Json::array(), "field 'workload' must be a string; got array []"},
        BadLineCase{"device_key_type", "device_key", nullptr, "field 'device_key' must be a string; got null"},
        BadLineCase{"device_key_missing", "device_key", kMissing, "field 'device_key' is missing"},
        BadLineCase{"job_id_type", "job_id", true, "field 'job_id' must be a string; got boolean true"},
        BadLineCase{"task_id_type", "task_id", 12, "field 'task_id' must be a string"},
        BadLineCase{"task_id_empty", "task_id", "", "field 'task_id' is empty"},
        BadLineCase{"task_id_missing", "task_id", kMissing, "field 'task_id' is missing"},
        BadLineCase{"schedule_json_type", "schedule_json", Json::object(),
                    "field 'schedule_json' must be a string; got object {}"},
        BadLineCase{"schedule_json_not_json", "schedule_json", "{split",
                    "field 'schedule_json' must be the text of a schedule JSON object"},
        BadLineCase{"schedule_json_empty", "schedule_json", "", "field 'schedule_json' is empty"},
        BadLineCase{"error_kind_type", "error_kind", 0, "field 'error_kind' must be a string"},
        BadLineCase{"error_kind_form", "error_kind", "Compile Error",
                    "field 'error_kind' must be a lower-case name like \"none\""},
        BadLineCase{"error_kind_empty", "error_kind", "", "field 'error_kind' is empty"},
        BadLineCase{"error_kind_unknown", "error_kind", "exploded",
                    "field 'error_kind' is \"exploded\", which this tuneforge does not know; use one of none, "},
        BadLineCase{"error_type", "error", 3, "field 'error' must be a string"},
        BadLineCase{"median_seconds_type", "median_seconds", "0.1", "field 'median_seconds' must be a number; got string"},
        BadLineCase{"median_seconds_negative", "median_seconds", -0.5,
                    "field 'median_seconds' must be a finite number >= 0; got -0.5"},
        BadLineCase{"median_seconds_zero_when_correct", "median_seconds", 0,
                    "field 'median_seconds' must be > 0 for a correct record"},
        BadLineCase{"median_seconds_missing", "median_seconds", kMissing, "field 'median_seconds' is missing"},
        BadLineCase{"repeat_seconds_type", "repeat_seconds", 0.1, "field 'repeat_seconds' must be an array of numbers"},
        BadLineCase{"repeat_seconds_element", "repeat_seconds", Json::array({0.1, "x"}),
                    "field 'repeat_seconds' must be an array of numbers; element 1 is string \"x\""},
        BadLineCase{"repeat_seconds_negative", "repeat_seconds", Json::array({0.1, -1}),
                    "field 'repeat_seconds' must be a finite number >= 0; got -1"},
        BadLineCase{"gflops_type", "gflops", "fast", "field 'gflops' must be a number; got string \"fast\""},
        BadLineCase{"gflops_negative", "gflops", -1, "field 'gflops' must be a finite number >= 0"},
        BadLineCase{"compile_ms_type", "compile_ms", Json::array(), "field 'compile_ms' must be a number"},
        BadLineCase{"compile_ms_negative", "compile_ms", -2.5, "field 'compile_ms' must be a finite number >= 0"},
        BadLineCase{"worker_id_type", "worker_id", 1, "field 'worker_id' must be a string"},
        BadLineCase{"created_unix_ms_type", "created_unix_ms", 1.5, "field 'created_unix_ms' must be an integer"},
        BadLineCase{"created_unix_ms_negative", "created_unix_ms", -1, "field 'created_unix_ms' must be >= 0"},
        BadLineCase{"created_unix_ms_missing", "created_unix_ms", kMissing, "field 'created_unix_ms' is missing"},
        BadLineCase{"unknown_field", "gflop", 1.0, "unknown field 'gflop'; a record has: schema_version, id,"}),
    [](const ::testing::TestParamInfo<BadLineCase>& info) { return info.param.name; });

TEST(JsonLineTest, RefusesTextThatIsNotOneJsonObject) {
  auto not_json = RecordFromJsonLine("{\"schema_version\": 1,");
  EXPECT_THAT(not_json.status().message(), HasSubstr("not valid JSON (byte"));
  auto array = RecordFromJsonLine("[1, 2]");
  EXPECT_THAT(array.status().message(), HasSubstr("must be a JSON object (one record); got array"));
  auto empty = RecordFromJsonLine("");
  EXPECT_THAT(empty.status().message(), HasSubstr("not valid JSON"));
}

TEST(JsonLineTest, ErrorRecordsNeedNoTimeOrSchedule) {
  Record record = MakeRecord("t-9", "wk-a", "dev-1", 0, "timeout");
  record.schedule_json = "";
  record.created_unix_ms = 1;
  absl::StatusOr<Record> back = RecordFromJsonLine(RecordToJsonLine(record));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_STREQ(measure::ErrorKindName(back->error_kind), "timeout");
}

std::vector<std::string> ExportAll(RecordStore& store, RecordFilter filter = {}) {
  std::vector<std::string> lines;
  absl::Status status = store.Export(filter, [&](const std::string& line) {
    lines.push_back(line);
    return true;
  });
  EXPECT_TRUE(status.ok()) << status;
  return lines;
}

std::map<std::string, std::string> ByTask(RecordStore& store) {
  RecordFilter filter;
  filter.limit = 0;
  std::map<std::string, std::string> records;
  absl::StatusOr<std::vector<Record>> all = store.Query(filter);
  EXPECT_TRUE(all.ok()) << all.status();
  if (!all.ok()) return records;
  for (const Record& record : *all) records[record.task_id] = WithoutId(record);
  return records;
}

TEST(ExportImportTest, RoundTripBetweenTwoStores) {
  TempDir dir;
  auto from = OpenOrFail(dir.File("from.db"));
  auto to = OpenOrFail(dir.File("to.db"));
  ASSERT_NE(from, nullptr);
  ASSERT_NE(to, nullptr);
  std::vector<Record> records;
  for (int i = 0; i < 150; ++i) {
    records.push_back(MakeRecord(absl::StrCat("t-", i), absl::StrCat("wk-", i % 5), absl::StrCat("dev-", i % 2),
                                 0.0001 * (i + 1), i % 4 == 0 ? "wrong_answer" : "none"));
    records.back().created_unix_ms = 1700000000000 + i;
  }
  ASSERT_TRUE(from->AddRecords(records).ok());
  // The target already holds one of them, under another id.
  ASSERT_TRUE(to->AddRecords({MakeRecord("unrelated", "wk-x", "dev-9", 0.5), records[3]}).ok());

  std::vector<std::string> lines = ExportAll(*from);
  ASSERT_EQ(lines.size(), 150u);
  EXPECT_EQ(RecordFromJsonLine(lines.front())->task_id, "t-0");  // oldest first
  lines.push_back("");  // a trailing newline's empty line is skipped
  absl::StatusOr<AddOutcome> imported = to->Import(lines);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->accepted, 149);
  EXPECT_EQ(imported->duplicate, 1);

  std::map<std::string, std::string> expected = ByTask(*from);
  std::map<std::string, std::string> got = ByTask(*to);
  got.erase("unrelated");
  EXPECT_EQ(got, expected);
  for (int w = 0; w < 5; ++w) {
    const std::string key = absl::StrCat("wk-", w);
    EXPECT_EQ(WithoutId(**from->Best(key, "")), WithoutId(**to->Best(key, ""))) << key;
  }

  // Importing the same lines again stores nothing new.
  imported = to->Import(lines);
  ASSERT_TRUE(imported.ok());
  EXPECT_EQ(imported->accepted, 0);
  EXPECT_EQ(imported->duplicate, 150);
}

// A record of a compute definition names it "def:NAME"; its line carries
// the definition's text, so the store it is imported into can replay its
// schedule and export it on in turn.
TEST(ExportImportTest, ADefinitionsRecordCarriesItsTextToAnotherStore) {
  constexpr char kText[] =
      "input X: float32[8, 4]\ninput Y: float32[4, 8]\nZ[a: 8, b: 8] = sum(X[a, r] * Y[r, b], r: 4)\n";
  absl::StatusOr<te::Workload> tiny = te::ParseDefinition(kText, "tiny");
  ASSERT_TRUE(tiny.ok()) << tiny.status();
  const std::string key = tiny->dag->workload_key();
  const double flops = tiny->dag->flops();
  TempDir dir;
  auto from = OpenOrFail(dir.File("from.db"));
  auto to = OpenOrFail(dir.File("to.db"));
  ASSERT_NE(from, nullptr);
  ASSERT_NE(to, nullptr);
  ASSERT_TRUE(from->SaveWorkload(key, WorkloadSource::Definition(kText, "tiny"), flops).ok());
  Record defined = MakeRecord("t-def", key, "dev-1", 1e-6);
  defined.workload = "def:tiny";
  defined.gflops = flops / 1e-6 / 1e9;
  ASSERT_TRUE(from->AddRecords({defined, MakeRecord("t-spec", "wk-a", "dev-1", 1e-3)}).ok());

  std::vector<std::string> lines = ExportAll(*from);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(Json::parse(lines[0])["definition"], kText);
  EXPECT_FALSE(Json::parse(lines[1]).contains("definition"));  // a spec needs none

  absl::StatusOr<AddOutcome> imported = to->Import(lines);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(imported->accepted, 2);
  absl::StatusOr<std::optional<WorkloadRow>> stored = to->LoadWorkload(key);
  ASSERT_TRUE(stored.ok() && stored->has_value()) << stored.status();
  EXPECT_EQ((*stored)->workload, WorkloadSource::Definition(kText, "tiny"));
  EXPECT_DOUBLE_EQ((*stored)->flops, flops);
  std::vector<std::string> again = ExportAll(*to);
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(Json::parse(again[0])["definition"], kText);  // and on to the next store

  // A text that defines another workload, or a definition on a spec's
  // record, is refused with its line, and nothing of the import is stored.
  TempDir other;
  auto refusing = OpenOrFail(other.File("refusing.db"));
  ASSERT_NE(refusing, nullptr);
  Json wrong = Json::parse(lines[0]);
  wrong["definition"] = "input X: float32[8, 4]\nZ[a: 8, b: 4] = X[a, b] * 2.0\n";
  absl::StatusOr<AddOutcome> refused = refusing->Import({lines[1], wrong.dump()});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("import: line 2: field 'definition' defines the workload key"));
  Json misplaced = Json::parse(lines[1]);
  misplaced["definition"] = kText;
  refused = refusing->Import({misplaced.dump()});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("field 'definition' is for records of a compute definition"));
  EXPECT_EQ(*refusing->CountRecords(), 0);
  EXPECT_FALSE(refusing->LoadWorkload(key)->has_value());
}

TEST(ExportImportTest, ExportFiltersAndStopsEarly) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store
                  ->AddRecords({MakeRecord("a", "wk-1", "dev-1", 0.1), MakeRecord("b", "wk-2", "dev-1", 0.1),
                                MakeRecord("c", "wk-1", "dev-2", 0.1), MakeRecord("d", "wk-1", "dev-1", 0.1, "timeout")})
                  .ok());
  RecordFilter filter;
  filter.workload_key = "wk-1";
  filter.limit = 1;  // not used by Export
  std::vector<std::string> lines = ExportAll(*store, filter);
  ASSERT_EQ(lines.size(), 3u);
  filter.device_key = "dev-1";
  filter.only_ok = true;
  lines = ExportAll(*store, filter);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(RecordFromJsonLine(lines[0])->task_id, "a");

  int calls = 0;
  ASSERT_TRUE(store->Export({}, [&](const std::string&) { return ++calls < 2; }).ok());
  EXPECT_EQ(calls, 2);
}

TEST(ExportImportTest, ABadLineStopsTheWholeImportAndIsNamed) {
  TempDir dir;
  auto store = OpenOrFail(dir.File("store.db"));
  ASSERT_NE(store, nullptr);
  std::vector<std::string> lines;
  for (int i = 0; i < 3; ++i) lines.push_back(RecordToJsonLine(MakeRecord(absl::StrCat("t-", i), "wk", "dev", 0.1)));
  Json bad = Json::parse(lines[0]);
  bad["task_id"] = "t-bad";
  bad["gflops"] = "many";
  lines.insert(lines.begin() + 2, bad.dump());  // line 3
  auto result = store->Import(lines);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(result.status().message(), HasSubstr("import: line 3: field 'gflops' must be a number"));
  EXPECT_THAT(result.status().message(), HasSubstr("nothing of this import was stored"));
  EXPECT_EQ(*store->CountRecords(), 0);

  lines.erase(lines.begin() + 2);
  result = store->Import(lines);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->accepted, 3);
}

}  // namespace
}  // namespace tuneforge::server
