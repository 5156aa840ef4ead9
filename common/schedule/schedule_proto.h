// Schedules as protobuf (tuneforge.v1.Step / tuneforge.v1.Schedule): what
// travels between server and workers. The conversion walks the field lists
// of step_fields.h and finds the proto fields by the same names, so the
// proto messages must keep steps.h's field names (checked by the tests).
// Reading validates: a step kind must be set, indices must be >= 0,
// annotations must be known values, and the version must be supported.
#pragma once

#include "absl/status/statusor.h"
#include "common/schedule/schedule.h"
#include "proto/schedule.pb.h"

namespace tuneforge::schedule {

namespace v1 = ::tuneforge::v1;

v1::Step StepToProto(const Step& step);
// `step_index` only names the step in error messages.
absl::StatusOr<Step> StepFromProto(const v1::Step& proto, int step_index = 0);

v1::Schedule ScheduleToProto(const Schedule& schedule);
absl::StatusOr<Schedule> ScheduleFromProto(const v1::Schedule& proto);

}  // namespace tuneforge::schedule
