#include "common/schedule/schedule_proto.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/schedule/step_fields.h"
#include "google/protobuf/descriptor.h"
#include "tests/schedule/test_dags.h"

namespace tuneforge::schedule {
namespace {

using ::testing::HasSubstr;

TEST(ScheduleProtoTest, EveryStepKindAndFieldExistsInTheProtoUnderItsName) {
  const auto* step_desc = v1::Step::descriptor();
  for (const Step& step : testing::OneStepOfEachKind()) {
    const auto* kind = step_desc->FindFieldByName(StepKindName(step));
    ASSERT_NE(kind, nullptr) << StepKindName(step);
    EXPECT_EQ(kind->containing_oneof(), step_desc->FindOneofByName("kind"));
    const auto* msg = kind->message_type();
    ASSERT_NE(msg, nullptr);
    EXPECT_EQ(msg->field_count(), static_cast<int>(StepFieldNames(step).size())) << msg->name();
    for (const std::string& field : StepFieldNames(step))
      EXPECT_NE(msg->FindFieldByName(field), nullptr) << msg->name() << "." << field;
  }
}

TEST(ScheduleProtoTest, StepsRoundTripForEveryKind) {
  for (const Step& step : testing::OneStepOfEachKind()) {
    v1::Step proto = StepToProto(step);
    absl::StatusOr<Step> back = StepFromProto(proto);
    ASSERT_TRUE(back.ok()) << back.status() << " for " << proto.ShortDebugString();
    EXPECT_EQ(StepToString(*back), StepToString(step));
  }
}

TEST(ScheduleProtoTest, FieldsLandInTheMatchingProtoFields) {
  v1::Step split = StepToProto(SplitStep{2, 1, {32, 4}, false});
  ASSERT_TRUE(split.has_split());
  EXPECT_EQ(split.split().stage(), 2);
  EXPECT_EQ(split.split().iter(), 1);
  ASSERT_EQ(split.split().lengths_size(), 2);
  EXPECT_EQ(split.split().lengths(1), 4);
  EXPECT_FALSE(split.split().inner_to_outer());
  v1::Step annotation = StepToProto(AnnotationStep{1, 0, IterAnnotation::kBlockZ});
  EXPECT_EQ(annotation.annotation().annotation(), v1::ITER_ANNOTATION_BLOCK_Z);
  v1::Step cache = StepToProto(CacheReadStep{0, "shared", {2, 3}});
  EXPECT_EQ(cache.cache_read().scope(), "shared");
  EXPECT_EQ(cache.cache_read().readers(1), 3);
}

TEST(ScheduleProtoTest, SchedulesRoundTripThroughBytes) {
  Schedule s;
  s.workload = "conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3";
  s.workload_key = "feedfacecafebeef";
  s.steps = testing::OneStepOfEachKind();
  std::string bytes = ScheduleToProto(s).SerializeAsString();
  v1::Schedule parsed;
  ASSERT_TRUE(parsed.ParseFromString(bytes));
  absl::StatusOr<Schedule> back = ScheduleFromProto(parsed);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->version, kScheduleVersion);
  EXPECT_EQ(back->workload, s.workload);
  EXPECT_EQ(back->workload_key, s.workload_key);
  ASSERT_EQ(back->steps.size(), s.steps.size());
  for (size_t i = 0; i < s.steps.size(); ++i)
    EXPECT_EQ(StepToString(back->steps[i]), StepToString(s.steps[i]));
}

TEST(ScheduleProtoTest, RejectsAStepWithoutKind) {
  v1::Schedule proto;
  proto.set_version(1);
  *proto.add_steps() = StepToProto(ComputeRootStep{2});
  proto.add_steps();
  EXPECT_THAT(ScheduleFromProto(proto).status().ToString(),
              HasSubstr("schedule proto: step 1: no step kind is set"));
}

TEST(ScheduleProtoTest, RejectsNegativeIndices) {
  v1::Step step;
  step.mutable_fuse()->set_stage(1);
  step.mutable_fuse()->add_iters(0);
  step.mutable_fuse()->add_iters(-1);
  EXPECT_THAT(StepFromProto(step, 4).status().ToString(),
              HasSubstr("schedule proto: step 4 (fuse): field 'iters' is an index and must be "
                        ">= 0; got -1"));
  v1::Step at;
  at.mutable_compute_at()->set_target_stage(-3);
  EXPECT_THAT(StepFromProto(at).status().ToString(),
              HasSubstr("(compute_at): field 'target_stage' is an index and must be >= 0; got -3"));
}

TEST(ScheduleProtoTest, RejectsUnknownAnnotationValues) {
  v1::Step step;
  step.mutable_annotation()->set_stage(1);
  step.mutable_annotation()->set_annotation(static_cast<v1::IterAnnotation>(42));
  EXPECT_THAT(StepFromProto(step).status().ToString(),
              HasSubstr("(annotation): field 'annotation' has unknown annotation value 42"));
}

TEST(ScheduleProtoTest, RejectsUnsetOrUnknownVersions) {
  v1::Schedule proto;
  EXPECT_THAT(ScheduleFromProto(proto).status().ToString(),
              HasSubstr("schedule proto: unsupported version 0; this build reads version 1 (set "
                        "Schedule.version)"));
  proto.set_version(2);
  EXPECT_THAT(ScheduleFromProto(proto).status().ToString(), HasSubstr("unsupported version 2"));
}

}  // namespace
}  // namespace tuneforge::schedule
