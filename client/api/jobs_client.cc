#include "client/api/jobs_client.h"

#include "absl/strings/str_cat.h"

namespace tuneforge::client {

JobsClient::JobsClient(Connection connection)
    : connection_(std::move(connection)), stub_(v1::Jobs::NewStub(connection_.channel())) {}

absl::StatusOr<v1::Job> JobsClient::Submit(const v1::JobSpec& spec) {
  v1::SubmitJobRequest request;
  *request.mutable_spec() = spec;
  v1::SubmitJobResponse response;
  auto context = connection_.Context(CallKind::kUnary);
  absl::Status s = connection_.Check(stub_->Submit(context.get(), request, &response));
  if (!s.ok()) return s;
  return response.job();
}

absl::StatusOr<v1::Job> JobsClient::Get(const std::string& id) {
  v1::GetJobRequest request;
  request.set_id(id);
  v1::GetJobResponse response;
  auto context = connection_.Context(CallKind::kUnary);
  absl::Status s = connection_.Check(stub_->Get(context.get(), request, &response));
  if (!s.ok()) return s;
  return response.job();
}

absl::StatusOr<v1::Job> JobsClient::Cancel(const std::string& id) {
  v1::CancelJobRequest request;
  request.set_id(id);
  v1::CancelJobResponse response;
  auto context = connection_.Context(CallKind::kUnary);
  absl::Status s = connection_.Check(stub_->Cancel(context.get(), request, &response));
  if (!s.ok()) return s;
  return response.job();
}

absl::StatusOr<std::vector<v1::Job>> JobsClient::List(v1::JobState state, int limit) {
  v1::ListJobsRequest request;
  request.set_state(state);
  request.set_limit(limit);
  v1::ListJobsResponse response;
  auto context = connection_.Context(CallKind::kUnary);
  absl::Status s = connection_.Check(stub_->List(context.get(), request, &response));
  if (!s.ok()) return s;
  return std::vector<v1::Job>(response.jobs().begin(), response.jobs().end());
}

absl::StatusOr<v1::JobProgress> JobsClient::Watch(
    const std::string& id, const std::function<void(const v1::JobProgress&)>& on_progress,
    CallCanceller* canceller) {
  v1::WatchJobRequest request;
  request.set_id(id);
  auto context = connection_.Context(CallKind::kWatch);
  ScopedAttach attach(canceller, context.get());
  std::unique_ptr<grpc::ClientReader<v1::JobProgress>> reader = stub_->Watch(context.get(), request);
  v1::JobProgress progress, last;
  bool any = false;
  while (reader->Read(&progress)) {
    any = true;
    on_progress(progress);
    last = progress;
  }
  grpc::Status status = reader->Finish();
  if (canceller && canceller->cancelled())
    return absl::CancelledError(absl::StrCat("stopped watching job ", id));
  absl::Status s = connection_.Check(status);
  if (!s.ok()) return s;
  if (!any)
    return absl::InternalError(
        absl::StrCat("the server ended the watch of job ", id, " without sending its state"));
  return last;
}

const char* JobStateName(v1::JobState state) {
  switch (state) {
    case v1::JOB_STATE_QUEUED:
      return "queued";
    case v1::JOB_STATE_RUNNING:
      return "running";
    case v1::JOB_STATE_DONE:
      return "done";
    case v1::JOB_STATE_FAILED:
      return "failed";
    case v1::JOB_STATE_CANCELLED:
      return "cancelled";
    default:
      return "unknown";
  }
}

bool IsFinished(v1::JobState state) {
  return state == v1::JOB_STATE_DONE || state == v1::JOB_STATE_FAILED ||
         state == v1::JOB_STATE_CANCELLED;
}

}  // namespace tuneforge::client
