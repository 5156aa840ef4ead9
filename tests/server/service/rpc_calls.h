// Every RPC of the three services as one call shape: (stubs, context,
// request) -> final status, streams drained. The tables of the service
// tests are lists of these.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "tests/server/service/test_server.h"

namespace tuneforge::server::testing {

grpc::Status CallSubmit(Stubs& s, grpc::ClientContext* c, const v1::SubmitJobRequest& r);
grpc::Status CallGet(Stubs& s, grpc::ClientContext* c, const v1::GetJobRequest& r);
grpc::Status CallCancel(Stubs& s, grpc::ClientContext* c, const v1::CancelJobRequest& r);
grpc::Status CallListJobs(Stubs& s, grpc::ClientContext* c, const v1::ListJobsRequest& r);
// Drains the stream into `progress` when given.
grpc::Status CallWatch(Stubs& s, grpc::ClientContext* c, const v1::WatchJobRequest& r,
                       std::vector<v1::JobProgress>* progress = nullptr);

grpc::Status CallRegister(Stubs& s, grpc::ClientContext* c, const v1::RegisterWorkerRequest& r);
grpc::Status CallHeartbeat(Stubs& s, grpc::ClientContext* c, const v1::HeartbeatRequest& r);
grpc::Status CallLease(Stubs& s, grpc::ClientContext* c, const v1::LeaseRequest& r);
grpc::Status CallReport(Stubs& s, grpc::ClientContext* c, const v1::ReportRequest& r);
grpc::Status CallDeregister(Stubs& s, grpc::ClientContext* c, const v1::DeregisterWorkerRequest& r);
grpc::Status CallListWorkers(Stubs& s, grpc::ClientContext* c, const v1::ListWorkersRequest& r);

grpc::Status CallBest(Stubs& s, grpc::ClientContext* c, const v1::BestRequest& r,
                      v1::BestResponse* response = nullptr);
grpc::Status CallQuery(Stubs& s, grpc::ClientContext* c, const v1::QueryRecordsRequest& r);
// Collects the exported lines when `lines` is given.
grpc::Status CallExport(Stubs& s, grpc::ClientContext* c, const v1::ExportRecordsRequest& r,
                        std::vector<std::string>* lines = nullptr);
// Sends each chunk in turn.
grpc::Status CallImport(Stubs& s, grpc::ClientContext* c, const std::vector<v1::RecordLines>& chunks,
                        v1::ImportRecordsResponse* response = nullptr);

// One RPC with a fixed request, for tables: "Jobs.Get" and a call.
struct NamedCall {
  std::string name;
  std::function<grpc::Status(Stubs&, grpc::ClientContext*)> call;
};
// All fifteen RPCs, each with a well-formed request.
std::vector<NamedCall> AllRpcs();

}  // namespace tuneforge::server::testing
