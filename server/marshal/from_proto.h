// The API's protobuf messages to the server's types: the other direction
// of the one marshalling unit (to_proto.h). A conversion that can meet a
// value the server's type cannot hold returns an error naming the field;
// the service checks requests (server/service/) before converting them.
#pragma once

#include "absl/status/statusor.h"
#include "proto/tuneforge.pb.h"
#include "server/domain/device.h"
#include "server/domain/job.h"
#include "server/domain/task.h"
#include "server/domain/worker.h"

namespace tuneforge::server {

namespace v1 = ::tuneforge::v1;

WorkloadSource FromProto(const v1::Workload& workload);
JobState FromProto(v1::JobState state);
// Measure options the submitter left 0 take MeasureOptions' defaults.
JobSpec FromProto(const v1::JobSpec& spec);
SearchCost FromProto(const v1::SearchCost& cost);
MeasureCost FromProto(const v1::MeasureCost& cost);
Job FromProto(const v1::Job& job);
DeviceInfo FromProto(const v1::DeviceInfo& device);
// Errors: a schedule that does not read ("schedule: ...").
absl::StatusOr<MeasureTask> FromProto(const v1::MeasureTask& task);
// Errors: a result whose error kind is unset or unknown ("results[2]: ...").
absl::StatusOr<WorkerReport> FromProto(const v1::ReportRequest& report);

}  // namespace tuneforge::server
