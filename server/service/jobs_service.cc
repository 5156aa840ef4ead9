// The Jobs service: straight to the JobManager; Watch streams its updates.
#include "absl/strings/str_cat.h"
#include "server/service/field_checks.h"
#include "server/service/handle_call.h"
#include "server/service/limits.h"
#include "server/service/request_checks.h"
#include "server/service/services.h"

namespace tuneforge::server {
namespace {

class JobsService final : public v1::Jobs::Service {
 public:
  explicit JobsService(const ServiceDeps& deps)
      : jobs_(*deps.jobs), dispatcher_(deps.dispatcher), env_{deps.token, deps.log_calls} {}

  grpc::Status Submit(grpc::ServerContext* context, const v1::SubmitJobRequest* request,
                      v1::SubmitJobResponse* response) override {
    return HandleCall(env_, context, "Jobs.Submit", [&]() -> absl::Status {
      TF_RETURN_IF_ERROR(CheckSubmitJob(*request));
      absl::StatusOr<Job> job = jobs_.Submit(FromProto(request->spec()));
      if (!job.ok()) return job.status();
      *response->mutable_job() = WithWorkerWait(*job);
      return absl::OkStatus();
    });
  }

  grpc::Status Get(grpc::ServerContext* context, const v1::GetJobRequest* request,
                   v1::GetJobResponse* response) override {
    return HandleCall(env_, context, "Jobs.Get", [&]() -> absl::Status {
      TF_RETURN_IF_ERROR(CheckJobId(request->id()));
      absl::StatusOr<Job> job = jobs_.Get(request->id());
      if (!job.ok()) return NameNotFoundField("id", job.status());
      *response->mutable_job() = WithWorkerWait(*job);
      return absl::OkStatus();
    });
  }

  grpc::Status Cancel(grpc::ServerContext* context, const v1::CancelJobRequest* request,
                      v1::CancelJobResponse* response) override {
    return HandleCall(env_, context, "Jobs.Cancel", [&]() -> absl::Status {
      TF_RETURN_IF_ERROR(CheckJobId(request->id()));
      absl::StatusOr<Job> job = jobs_.Cancel(request->id());
      if (!job.ok()) return NameNotFoundField("id", job.status());
      *response->mutable_job() = WithWorkerWait(*job);
      return absl::OkStatus();
    });
  }

  grpc::Status List(grpc::ServerContext* context, const v1::ListJobsRequest* request,
                    v1::ListJobsResponse* response) override {
    return HandleCall(env_, context, "Jobs.List", [&]() -> absl::Status {
      TF_RETURN_IF_ERROR(CheckListJobs(*request));
      int limit = request->limit() == 0 ? limits::kDefaultListLimit : request->limit();
      for (const Job& job : jobs_.List(FromProto(request->state()), limit)) *response->add_jobs() = WithWorkerWait(job);
      return absl::OkStatus();
    });
  }

  grpc::Status Watch(grpc::ServerContext* context, const v1::WatchJobRequest* request,
                     grpc::ServerWriter<v1::JobProgress>* writer) override {
    return HandleCall(env_, context, "Jobs.Watch", [&]() -> absl::Status {
      TF_RETURN_IF_ERROR(CheckJobId(request->id()));
      return StreamUpdates(request->id(), *context, *writer);
    });
  }

 private:
  // A queued job says whether it waits for a worker of its device key; any
  // job whether its key's workers are all emulated.
  v1::Job WithWorkerWait(const Job& job) const {
    v1::Job p = ToProto(job);
    p.set_waiting_for_worker(job.state == JobState::kQueued && dispatcher_ &&
                             !dispatcher_->HasWorkerFor(job.spec.device_key));
    if (dispatcher_) {
      bool any = false, all_emulated = true;
      for (const WorkerStatus& w : dispatcher_->ListWorkers()) {
        if (w.device.device_key != job.spec.device_key || w.state != WorkerState::kAlive) continue;
        any = true;
        all_emulated = all_emulated && w.device.kind == DeviceInfo::Kind::kEmulated;
      }
      p.set_emulated_device(any && all_emulated);
    }
    return p;
  }

  // The first message is the job as it is now, then one per change, until
  // the job finishes (OK), the client goes away (CANCELLED) or the server
  // shuts down (UNAVAILABLE). Waits are short so a quiet job still notices
  // a client that left.
  absl::Status StreamUpdates(const std::string& id, grpc::ServerContext& context,
                             grpc::ServerWriter<v1::JobProgress>& writer) {
    absl::StatusOr<JobUpdate> update = jobs_.WaitForUpdate(id, 0, absl::ZeroDuration());
    if (!update.ok()) return NameNotFoundField("id", update.status());
    while (true) {
      v1::JobProgress progress = ToProto(update->progress);
      *progress.mutable_job() = WithWorkerWait(update->progress.job);
      if (!writer.Write(progress))
        return absl::CancelledError("the client stopped reading the watch stream");
      if (update->finished) return absl::OkStatus();
      uint64_t version = update->version;
      do {
        if (context.IsCancelled()) return absl::CancelledError("the client cancelled the watch");
        absl::Time start = absl::Now();
        update = jobs_.WaitForUpdate(id, version, limits::kWatchPollInterval);
        if (!update.ok()) return update.status();
        // The job manager ends a wait early only for a change or its own
        // shutdown: an early answer without a change means the server stops.
        bool changed = update->version != version || update->finished;
        if (!changed && absl::Now() - start < limits::kWatchPollInterval / 2)
          return absl::UnavailableError("the server is shutting down; watch the job again once it is back");
      } while (update->version == version && !update->finished);
    }
  }

  JobManager& jobs_;
  const Dispatcher* dispatcher_;  // null in tests without workers
  const CallEnv env_;
};

}  // namespace

std::unique_ptr<v1::Jobs::Service> MakeJobsService(const ServiceDeps& deps) {
  return std::make_unique<JobsService>(deps);
}

}  // namespace tuneforge::server
