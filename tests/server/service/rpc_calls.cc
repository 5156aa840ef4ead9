#include "tests/server/service/rpc_calls.h"

namespace tuneforge::server::testing {

grpc::Status CallSubmit(Stubs& s, grpc::ClientContext* c, const v1::SubmitJobRequest& r) {
  v1::SubmitJobResponse out;
  return s.jobs->Submit(c, r, &out);
}
grpc::Status CallGet(Stubs& s, grpc::ClientContext* c, const v1::GetJobRequest& r) {
  v1::GetJobResponse out;
  return s.jobs->Get(c, r, &out);
}
grpc::Status CallCancel(Stubs& s, grpc::ClientContext* c, const v1::CancelJobRequest& r) {
  v1::CancelJobResponse out;
  return s.jobs->Cancel(c, r, &out);
}
grpc::Status CallListJobs(Stubs& s, grpc::ClientContext* c, const v1::ListJobsRequest& r) {
  v1::ListJobsResponse out;
  return s.jobs->List(c, r, &out);
}
grpc::Status CallWatch(Stubs& s, grpc::ClientContext* c, const v1::WatchJobRequest& r,
                       std::vector<v1::JobProgress>* progress) {
  std::unique_ptr<grpc::ClientReader<v1::JobProgress>> reader = s.jobs->Watch(c, r);
  v1::JobProgress message;
  while (reader->Read(&message))
    if (progress) progress->push_back(message);
  return reader->Finish();
}

grpc::Status CallRegister(Stubs& s, grpc::ClientContext* c, const v1::RegisterWorkerRequest& r) {
  v1::RegisterWorkerResponse out;
  return s.workers->Register(c, r, &out);
}
grpc::Status CallHeartbeat(Stubs& s, grpc::ClientContext* c, const v1::HeartbeatRequest& r) {
  v1::HeartbeatResponse out;
  return s.workers->Heartbeat(c, r, &out);
}
grpc::Status CallLease(Stubs& s, grpc::ClientContext* c, const v1::LeaseRequest& r) {
  v1::LeaseResponse out;
  return s.workers->Lease(c, r, &out);
}
grpc::Status CallReport(Stubs& s, grpc::ClientContext* c, const v1::ReportRequest& r) {
  v1::ReportResponse out;
  return s.workers->Report(c, r, &out);
}
grpc::Status CallDeregister(Stubs& s, grpc::ClientContext* c, const v1::DeregisterWorkerRequest& r) {
  v1::DeregisterWorkerResponse out;
  return s.workers->Deregister(c, r, &out);
}
grpc::Status CallListWorkers(Stubs& s, grpc::ClientContext* c, const v1::ListWorkersRequest& r) {
  v1::ListWorkersResponse out;
  return s.workers->List(c, r, &out);
}

grpc::Status CallBest(Stubs& s, grpc::ClientContext* c, const v1::BestRequest& r, v1::BestResponse* response) {
  v1::BestResponse out;
  return s.records->Best(c, r, response ? response : &out);
}
grpc::Status CallQuery(Stubs& s, grpc::ClientContext* c, const v1::QueryRecordsRequest& r) {
  v1::QueryRecordsResponse out;
  return s.records->Query(c, r, &out);
}
grpc::Status CallExport(Stubs& s, grpc::ClientContext* c, const v1::ExportRecordsRequest& r,
                        std::vector<std::string>* lines) {
  std::unique_ptr<grpc::ClientReader<v1::RecordLines>> reader = s.records->Export(c, r);
  v1::RecordLines chunk;
  while (reader->Read(&chunk))
    if (lines) lines->insert(lines->end(), chunk.lines().begin(), chunk.lines().end());
  return reader->Finish();
}
grpc::Status CallImport(Stubs& s, grpc::ClientContext* c, const std::vector<v1::RecordLines>& chunks,
                        v1::ImportRecordsResponse* response) {
  v1::ImportRecordsResponse out;
  std::unique_ptr<grpc::ClientWriter<v1::RecordLines>> writer =
      s.records->Import(c, response ? response : &out);
  for (const v1::RecordLines& chunk : chunks)
    if (!writer->Write(chunk)) break;  // the server answered early (a refusal)
  writer->WritesDone();
  return writer->Finish();
}

std::vector<NamedCall> AllRpcs() {
  v1::SubmitJobRequest submit;
  *submit.mutable_spec() = SmallJobSpec();
  v1::WatchJobRequest watch;
  watch.set_id("job-000000000000");
  v1::RegisterWorkerRequest register_worker;
  *register_worker.mutable_device() = TestDevice();
  v1::LeaseRequest lease;
  lease.set_worker_id("w1-1234");
  lease.set_max_tasks(1);
  v1::ReportRequest report;
  report.set_worker_id("w1-1234");
  report.set_lease_id("l1");
  *report.add_results() = GoodResult("t1");
  v1::BestRequest best;
  best.mutable_workload()->set_spec("matmul:M=16,N=16,K=16");
  auto id = [](auto request) {
    request.set_id("job-000000000000");
    return request;
  };
  auto worker = [](auto request) {
    request.set_worker_id("w1-1234");
    return request;
  };
  return {
      {"Jobs.Submit", [=](Stubs& s, grpc::ClientContext* c) { return CallSubmit(s, c, submit); }},
      {"Jobs.Get", [=](Stubs& s, grpc::ClientContext* c) { return CallGet(s, c, id(v1::GetJobRequest())); }},
      {"Jobs.Cancel", [=](Stubs& s, grpc::ClientContext* c) { return CallCancel(s, c, id(v1::CancelJobRequest())); }},
      {"Jobs.List", [=](Stubs& s, grpc::ClientContext* c) { return CallListJobs(s, c, {}); }},
      {"Jobs.Watch", [=](Stubs& s, grpc::ClientContext* c) { return CallWatch(s, c, watch); }},
      {"Workers.Register", [=](Stubs& s, grpc::ClientContext* c) { return CallRegister(s, c, register_worker); }},
      {"Workers.Heartbeat",
       [=](Stubs& s, grpc::ClientContext* c) { return CallHeartbeat(s, c, worker(v1::HeartbeatRequest())); }},
      {"Workers.Lease", [=](Stubs& s, grpc::ClientContext* c) { return CallLease(s, c, lease); }},
      {"Workers.Report", [=](Stubs& s, grpc::ClientContext* c) { return CallReport(s, c, report); }},
      {"Workers.Deregister",
       [=](Stubs& s, grpc::ClientContext* c) { return CallDeregister(s, c, worker(v1::DeregisterWorkerRequest())); }},
      {"Workers.List", [=](Stubs& s, grpc::ClientContext* c) { return CallListWorkers(s, c, {}); }},
      {"Records.Best", [=](Stubs& s, grpc::ClientContext* c) { return CallBest(s, c, best); }},
      {"Records.Query", [=](Stubs& s, grpc::ClientContext* c) { return CallQuery(s, c, {}); }},
      {"Records.Export", [=](Stubs& s, grpc::ClientContext* c) { return CallExport(s, c, {}); }},
      {"Records.Import", [=](Stubs& s, grpc::ClientContext* c) { return CallImport(s, c, {v1::RecordLines()}); }},
  };
}

}  // namespace tuneforge::server::testing
