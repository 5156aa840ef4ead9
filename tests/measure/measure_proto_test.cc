#include "measure/measure_proto.h"

#include <set>
#include <string>

#include "gtest/gtest.h"
#include "measure/error_kind.h"

namespace tuneforge::measure {
namespace {

TEST(ErrorKindTest, EveryKindHasOneNameAndOneProtoValueBothWays) {
  std::set<std::string> names;
  std::set<int> protos;
  for (int i = 0; i < kNumMeasureErrorKinds; ++i) {
    auto kind = static_cast<MeasureErrorKind>(i);
    const std::string name = ErrorKindName(kind);
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_EQ(ParseErrorKind(name), kind) << name;
    v1::MeasureErrorKind proto = ErrorKindToProto(kind);
    EXPECT_NE(proto, v1::MEASURE_ERROR_KIND_UNSPECIFIED) << name;
    EXPECT_TRUE(protos.insert(proto).second) << name;
    EXPECT_EQ(ErrorKindFromProto(proto), kind) << name;
  }
  // Every proto value but UNSPECIFIED is one of ours.
  EXPECT_EQ(static_cast<int>(protos.size()), v1::MeasureErrorKind_ARRAYSIZE - 1);
}

TEST(ErrorKindTest, TheNamesUsersSeeAreStable) {
  // Stored in every record and printed by --json: renaming one breaks both.
  const char* expected[] = {"none",          "invalid_schedule", "lower_error",
                            "compile_error", "runtime_crash",    "timeout",
                            "out_of_memory", "wrong_answer",     "runner_error",
                            "worker_lost"};
  for (int i = 0; i < kNumMeasureErrorKinds; ++i)
    EXPECT_STREQ(ErrorKindName(static_cast<MeasureErrorKind>(i)), expected[i]);
  EXPECT_EQ(ErrorKindToProto(MeasureErrorKind::kTimeout), v1::MEASURE_ERROR_KIND_TIMEOUT);
  EXPECT_EQ(std::string(ErrorKindNameList()).substr(0, 24), "none, invalid_schedule, ");
}

TEST(ErrorKindTest, UnsetAndUnknownValuesAreNoKind) {
  EXPECT_EQ(ErrorKindFromProto(v1::MEASURE_ERROR_KIND_UNSPECIFIED), std::nullopt);
  EXPECT_EQ(ErrorKindFromProto(static_cast<v1::MeasureErrorKind>(77)), std::nullopt);
  EXPECT_EQ(ParseErrorKind("Compile Error"), std::nullopt);
  EXPECT_EQ(ParseErrorKind(""), std::nullopt);
}

TEST(MeasureOptionsProtoTest, ZeroFieldsTakeTheDefaultsOfTheCppStruct) {
  MeasureOptions local;
  local.runner_path = "/opt/tf/tuneforge-runner";
  local.memory_limit_mb = 512;
  MeasureOptions o = MeasureOptionsFromProto(v1::MeasureOptions(), local);
  const MeasureOptions defaults;
  EXPECT_EQ(o.number, defaults.number);
  EXPECT_EQ(o.repeat, defaults.repeat);
  EXPECT_EQ(o.min_repeat_ms, defaults.min_repeat_ms);
  EXPECT_EQ(o.timeout_s, defaults.timeout_s);
  EXPECT_FALSE(o.flush_cache);
  EXPECT_EQ(o.threads, 0);
  // What the proto does not carry stays as the caller had it.
  EXPECT_EQ(o.runner_path, "/opt/tf/tuneforge-runner");
  EXPECT_EQ(o.memory_limit_mb, 512);
}

TEST(MeasureOptionsProtoTest, RoundTripKeepsEveryWireField) {
  MeasureOptions in;
  in.number = 7;
  in.repeat = 4;
  in.min_repeat_ms = 0;  // 0 on the wire means the default again
  in.flush_cache = true;
  in.threads = 2;
  in.timeout_s = 2.5;
  v1::MeasureOptions p = MeasureOptionsToProto(in);
  EXPECT_EQ(p.number(), 7);
  EXPECT_EQ(p.repeat(), 4);
  EXPECT_EQ(p.min_repeat_ms(), 0);
  EXPECT_TRUE(p.flush_cache());
  EXPECT_EQ(p.threads(), 2);
  EXPECT_EQ(p.timeout_s(), 2.5);
  MeasureOptions out = MeasureOptionsFromProto(p);
  EXPECT_EQ(out.number, 7);
  EXPECT_EQ(out.repeat, 4);
  EXPECT_EQ(out.min_repeat_ms, MeasureOptions().min_repeat_ms);
  EXPECT_TRUE(out.flush_cache);
  EXPECT_EQ(out.threads, 2);
  EXPECT_EQ(out.timeout_s, 2.5);
}

TEST(MeasureResultProtoTest, RoundTripKeepsEveryField) {
  MeasureResult in;
  in.error_kind = MeasureErrorKind::kWrongAnswer;
  in.error = "output 'C': 3 of 4096 elements differ";
  in.correct = false;
  in.median_seconds = 1.5e-3;
  in.repeat_seconds = {1.4e-3, 1.5e-3, 1.7e-3};
  in.number = 12;
  in.compile_ms = 230;
  in.max_abs_error = 0.5;
  in.max_rel_error = 0.25;
  in.run_wall_ms = 40;
  in.timed_ms = 31;
  v1::MeasureResult p = MeasureResultToProto(in, "t-9");
  EXPECT_EQ(p.task_id(), "t-9");
  EXPECT_EQ(p.error_kind(), v1::MEASURE_ERROR_KIND_WRONG_ANSWER);
  absl::StatusOr<MeasureResult> out = MeasureResultFromProto(p);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->error_kind, in.error_kind);
  EXPECT_EQ(out->error, in.error);
  EXPECT_EQ(out->correct, in.correct);
  EXPECT_EQ(out->median_seconds, in.median_seconds);
  EXPECT_EQ(out->repeat_seconds, in.repeat_seconds);
  EXPECT_EQ(out->number, in.number);
  EXPECT_EQ(out->compile_ms, in.compile_ms);
  EXPECT_EQ(out->max_abs_error, in.max_abs_error);
  EXPECT_EQ(out->max_rel_error, in.max_rel_error);
  EXPECT_EQ(out->run_wall_ms, in.run_wall_ms);
  EXPECT_EQ(out->timed_ms, in.timed_ms);
}

TEST(MeasureResultProtoTest, AResultWithoutAKindIsRefusedNamingTheChoices) {
  v1::MeasureResult p;
  p.set_median_seconds(1e-3);
  absl::StatusOr<MeasureResult> r = MeasureResultFromProto(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unset"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("none, invalid_schedule"), std::string::npos) << r.status();
}

TEST(KernelObjectProtoTest, RoundTrip) {
  codegen::CompiledObject in;
  in.symbol = "tf_matmul";
  in.triple = "x86_64-unknown-linux-gnu";
  in.object = std::string("\x7f" "ELF\0\1", 6);
  codegen::CompiledObject out = KernelObjectFromProto(KernelObjectToProto(in));
  EXPECT_EQ(out.symbol, in.symbol);
  EXPECT_EQ(out.triple, in.triple);
  EXPECT_EQ(out.object, in.object);
}

}  // namespace
}  // namespace tuneforge::measure
