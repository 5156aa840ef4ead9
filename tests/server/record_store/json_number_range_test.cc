// A record line with a number no double holds (1e400) is refused naming
// the field, not ended with an exception from the JSON parser.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/record_store/record_store.h"

namespace tuneforge::server {
namespace {

using ::testing::HasSubstr;

std::string LineWith(const std::string& field_and_value) {
  return R"({"schema_version":1,"workload_key":"wk","device_key":"d","task_id":"t",)"
         R"("schedule_json":"{\"steps\":[]}","error_kind":"none","median_seconds":0.5,)"
         R"("created_unix_ms":5,)" +
         field_and_value + "}";
}

TEST(JsonNumberRangeTest, NumbersBeyondADoubleNameTheirField) {
  for (const std::string field : {"compile_ms", "gflops"}) {
    for (const std::string value : {"1e400", "-1e400", "1e99999999999"}) {
      auto record = RecordFromJsonLine(LineWith("\"" + field + "\":" + value));
      ASSERT_FALSE(record.ok()) << field << " " << value;
      EXPECT_EQ(record.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(record.status().message(), HasSubstr("field '" + field + "'"));
      EXPECT_THAT(record.status().message(), HasSubstr("out of range"));
    }
  }
  auto in_array = RecordFromJsonLine(LineWith(R"("repeat_seconds":[0.5,1e400])"));
  ASSERT_FALSE(in_array.ok());
  EXPECT_THAT(in_array.status().message(), HasSubstr("field 'repeat_seconds'"));
  // The largest double still parses (and other checks judge it).
  EXPECT_TRUE(RecordFromJsonLine(LineWith(R"("compile_ms":1.7976931348623157e308)")).ok());
}

}  // namespace
}  // namespace tuneforge::server
