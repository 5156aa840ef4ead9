// Edge validation of every request, one function per request type. A
// refusal is INVALID_ARGUMENT whose message starts with the field path
// ("spec.workloads[2].spec is empty; ..."). What only the core can judge
// (does a workload parse, is a job id known) is left to the core.
#pragma once

#include "absl/status/status.h"
#include "proto/tuneforge.pb.h"

namespace tuneforge::server {

// Jobs.
absl::Status CheckSubmitJob(const v1::SubmitJobRequest& request);
absl::Status CheckListJobs(const v1::ListJobsRequest& request);
// Get, Cancel and Watch carry just a job id.
absl::Status CheckJobId(const std::string& id);

// Workers.
absl::Status CheckRegisterWorker(const v1::RegisterWorkerRequest& request);
absl::Status CheckLease(const v1::LeaseRequest& request);
absl::Status CheckReport(const v1::ReportRequest& request);
// Heartbeat and Deregister carry just a worker id.
absl::Status CheckWorkerId(const std::string& worker_id);

// Records. Best's workload is also parsed by the handler (records_service.cc).
absl::Status CheckBest(const v1::BestRequest& request);
absl::Status CheckQueryRecords(const v1::QueryRecordsRequest& request);
absl::Status CheckExportRecords(const v1::ExportRecordsRequest& request);

}  // namespace tuneforge::server
