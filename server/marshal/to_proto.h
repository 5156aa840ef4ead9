// The server's types to the API's protobuf messages: one direction of the
// one marshalling unit (from_proto.h is the other). Used at the gRPC
// service's edge and by the record store's row codec, which keeps jobs,
// tasks, workloads and devices as message bytes. Nothing here can fail.
#pragma once

#include "proto/tuneforge.pb.h"
#include "server/domain/device.h"
#include "server/domain/job.h"
#include "server/domain/record.h"
#include "server/domain/task.h"
#include "server/domain/worker.h"

namespace tuneforge::server {

namespace v1 = ::tuneforge::v1;

v1::Workload ToProto(const WorkloadSource& workload);
v1::JobState ToProto(JobState state);
v1::JobSpec ToProto(const JobSpec& spec);
v1::SearchCost ToProto(const SearchCost& cost);
v1::MeasureCost ToProto(const MeasureCost& cost);
v1::Job ToProto(const Job& job);
v1::JobProgress ToProto(const JobProgress& progress);
v1::DeviceInfo ToProto(const DeviceInfo& device);
// Built kernels go along when the task has them.
v1::MeasureTask ToProto(const MeasureTask& task);
v1::Record ToProto(const Record& record);
v1::RegisterWorkerResponse ToProto(const Registration& registration);
v1::LeaseResponse ToProto(const LeaseGrant& lease);
v1::ReportResponse ToProto(const ReportOutcome& outcome);
v1::WorkerStatus ToProto(const WorkerStatus& worker);

}  // namespace tuneforge::server
