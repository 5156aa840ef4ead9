#include "tests/worker_agent/test_workers_server.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "common/codegen/target.h"
#include "common/rpc/auth.h"
#include "common/schedule/schedule_proto.h"
#include "common/te/workload.h"
#include "measure/builder.h"

namespace tuneforge::worker::testing {
namespace {

using Core = TestWorkersServer::Core;

grpc::Status CheckToken(const grpc::ServerContext& context, Core& core) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(rpc::kAuthMetadataKey);
  std::string given = it == metadata.end() ? "" : std::string(it->second.data(), it->second.size());
  if (rpc::ConstantTimeEquals(given, std::string(rpc::kBearerPrefix) + core.options.token))
    return grpc::Status::OK;
  absl::MutexLock lock(&core.mu);
  ++core.state.refused_calls;
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "missing or wrong token");
}

v1::BuiltKernel ToProto(const measure::BuiltKernel& k) {
  v1::BuiltKernel out;
  out.set_symbol(k.object.symbol);
  out.set_triple(k.object.triple);
  out.set_object(k.object.object);
  return out;
}

// What the real dispatcher does for a runner-only worker: compile the
// candidate and the reference for its target (here: this machine).
void AttachObjects(v1::MeasureTask& task) {
  absl::StatusOr<te::Workload> workload = te::ParseWorkload(task.workload().spec());
  absl::StatusOr<schedule::Schedule> schedule = schedule::ScheduleFromProto(task.schedule());
  if (!workload.ok() || !schedule.ok()) return;
  const codegen::Target host = codegen::Target::Host();
  measure::BuiltKernel candidate = measure::BuildSchedule(workload->dag, schedule->steps, host);
  measure::BuiltKernel reference = measure::BuildReference(workload->dag, host);
  if (candidate.ok()) *task.mutable_candidate() = ToProto(candidate);
  if (reference.ok()) *task.mutable_reference() = ToProto(reference);
}

class Service final : public v1::Workers::Service {
 public:
  explicit Service(std::shared_ptr<Core> core) : core_(std::move(core)) {}

  grpc::Status Register(grpc::ServerContext* context, const v1::RegisterWorkerRequest* request,
                        v1::RegisterWorkerResponse* response) override {
    if (grpc::Status s = CheckToken(*context, *core_); !s.ok()) return s;
    if (request->device().device_key().empty())
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "device.device_key is empty");
    absl::MutexLock lock(&core_->mu);
    ServerState& st = core_->state;
    std::string id = absl::StrCat("w-", st.next_worker++);
    st.workers[id] = request->device();
    ++st.registrations;
    response->set_worker_id(id);
    response->set_heartbeat_interval_ms(core_->options.heartbeat_interval_ms);
    return grpc::Status::OK;
  }

  grpc::Status Heartbeat(grpc::ServerContext* context, const v1::HeartbeatRequest* request,
                         v1::HeartbeatResponse* response) override {
    if (grpc::Status s = CheckToken(*context, *core_); !s.ok()) return s;
    absl::MutexLock lock(&core_->mu);
    ServerState& st = core_->state;
    ++st.heartbeats;
    response->set_known(st.workers.contains(request->worker_id()));
    if (!response->known()) ++st.unknown_heartbeats;
    return grpc::Status::OK;
  }

  grpc::Status Lease(grpc::ServerContext* context, const v1::LeaseRequest* request,
                     v1::LeaseResponse* response) override {
    if (grpc::Status s = CheckToken(*context, *core_); !s.ok()) return s;
    bool can_build = true;
    {
      absl::MutexLock lock(&core_->mu);
      ServerState& st = core_->state;
      auto worker = st.workers.find(request->worker_id());
      if (worker == st.workers.end())
        return grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown worker; register again");
      can_build = worker->second.can_build();
      auto deadline = absl::Now() + absl::Milliseconds(request->wait_ms());
      while (st.queue.empty() && absl::Now() < deadline && !context->IsCancelled())
        core_->mu.AwaitWithTimeout(absl::Condition(+[](ServerState* s) { return !s->queue.empty(); }, &st),
                                   absl::Milliseconds(20));
      if (context->IsCancelled())
        return grpc::Status(grpc::StatusCode::CANCELLED, "cancelled");
      if (st.queue.empty()) return grpc::Status::OK;
      response->set_lease_id(absl::StrCat("lease-", st.next_lease++));
      while (!st.queue.empty() && response->tasks_size() < request->max_tasks()) {
        v1::MeasureTask task = std::move(st.queue.front());
        st.queue.pop_front();
        st.leased[task.task_id()] = task;
        st.leased_to[task.task_id()] = request->worker_id();
        *response->add_tasks() = std::move(task);
      }
      ++st.leases_with_tasks;
    }
    if (!can_build && core_->options.build_for_runner_only)
      for (v1::MeasureTask& task : *response->mutable_tasks()) AttachObjects(task);
    response->set_deadline_unix_ms(absl::ToUnixMillis(absl::Now() + absl::Seconds(60)));
    return grpc::Status::OK;
  }

  grpc::Status Report(grpc::ServerContext* context, const v1::ReportRequest* request,
                      v1::ReportResponse* response) override {
    if (grpc::Status s = CheckToken(*context, *core_); !s.ok()) return s;
    absl::MutexLock lock(&core_->mu);
    ServerState& st = core_->state;
    ++st.report_calls;
    if (!core_->options.refuse_reports.ok()) return core_->options.refuse_reports;
    for (const v1::MeasureResult& result : request->results()) {
      const std::string& id = result.task_id();
      if (st.results.contains(id)) {
        ++st.duplicates;
        response->set_duplicate(response->duplicate() + 1);
        continue;
      }
      // Like the dispatcher: a result for an unfinished task is stored
      // whoever reports it (a worker reporting after a restart).
      bool queued = false;
      for (auto it = st.queue.begin(); it != st.queue.end(); ++it) {
        if (it->task_id() != id) continue;
        st.queue.erase(it);
        queued = true;
        break;
      }
      if (!queued && !st.leased.contains(id)) {
        ++st.rejected;
        response->set_rejected(response->rejected() + 1);
        continue;
      }
      st.leased.erase(id);
      st.leased_to.erase(id);
      st.results[id] = result;
      ++st.accepted;
      response->set_accepted(response->accepted() + 1);
    }
    return grpc::Status::OK;
  }

  grpc::Status Deregister(grpc::ServerContext* context, const v1::DeregisterWorkerRequest* request,
                          v1::DeregisterWorkerResponse* response) override {
    if (grpc::Status s = CheckToken(*context, *core_); !s.ok()) return s;
    absl::MutexLock lock(&core_->mu);
    ServerState& st = core_->state;
    if (st.workers.erase(request->worker_id()) == 0)
      return grpc::Status(grpc::StatusCode::NOT_FOUND, "unknown worker");
    ++st.deregistrations;
    for (auto it = st.leased_to.begin(); it != st.leased_to.end();) {
      if (it->second != request->worker_id()) {
        ++it;
        continue;
      }
      v1::MeasureTask task = st.leased[it->first];
      task.clear_candidate();
      task.clear_reference();
      st.queue.push_front(std::move(task));
      st.leased.erase(it->first);
      it = st.leased_to.erase(it);
      response->set_returned_tasks(response->returned_tasks() + 1);
    }
    st.returned_tasks += response->returned_tasks();
    return grpc::Status::OK;
  }

  grpc::Status List(grpc::ServerContext* context, const v1::ListWorkersRequest*,
                    v1::ListWorkersResponse* response) override {
    if (grpc::Status s = CheckToken(*context, *core_); !s.ok()) return s;
    absl::MutexLock lock(&core_->mu);
    for (const auto& [id, device] : core_->state.workers) {
      v1::WorkerStatus* w = response->add_workers();
      w->set_id(id);
      *w->mutable_device() = device;
      w->set_state("alive");
    }
    return grpc::Status::OK;
  }

 private:
  std::shared_ptr<Core> core_;
};

}  // namespace

TestWorkersServer::TestWorkersServer(TestServerOptions options)
    : options_(std::move(options)), core_(std::make_shared<Core>()) {
  core_->options = options_;
}

std::unique_ptr<TestWorkersServer> TestWorkersServer::Start(TestServerOptions options) {
  std::unique_ptr<TestWorkersServer> server(new TestWorkersServer(std::move(options)));
  if (!server->Listen(0)) return nullptr;
  return server;
}

TestWorkersServer::~TestWorkersServer() { Stop(); }

bool TestWorkersServer::Listen(int port) {
  // A grpc::Service serves one server in its life: a fresh one per start.
  service_ = std::make_unique<Service>(core_);
  grpc::ServerBuilder builder;
  int bound = 0;
  builder.AddListeningPort(absl::StrCat("127.0.0.1:", port), grpc::InsecureServerCredentials(),
                           &bound);
  builder.RegisterService(service_.get());
  server_ = builder.BuildAndStart();
  if (!server_ || bound == 0) return false;
  port_ = bound;
  return true;
}

std::shared_ptr<grpc::Channel> TestWorkersServer::InProcessChannel() {
  return server_->InProcessChannel(grpc::ChannelArguments());
}

void TestWorkersServer::Stop() {
  if (!server_) return;
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
  server_->Wait();
  server_.reset();
  service_.reset();
}

bool TestWorkersServer::Restart() {
  Stop();
  {
    absl::MutexLock lock(&core_->mu);
    ServerState& st = core_->state;
    st.workers.clear();
    for (auto& [id, task] : st.leased) st.queue.push_back(task);
    st.leased.clear();
    st.leased_to.clear();
  }
  // The port was just released; binding it again can take a moment.
  for (int attempt = 0; attempt < 50; ++attempt) {
    if (Listen(port_)) return true;
    absl::SleepFor(absl::Milliseconds(100));
  }
  return false;
}

void TestWorkersServer::AddTasks(const std::vector<v1::MeasureTask>& tasks) {
  absl::MutexLock lock(&core_->mu);
  for (const v1::MeasureTask& t : tasks) core_->state.queue.push_back(t);
}

ServerState TestWorkersServer::Snapshot() const {
  absl::MutexLock lock(&core_->mu);
  return core_->state;
}

bool TestWorkersServer::WaitUntil(const std::function<bool(const ServerState&)>& done,
                                  absl::Duration timeout) const {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    {
      absl::MutexLock lock(&core_->mu);
      if (done(core_->state)) return true;
    }
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(absl::Milliseconds(20));
  }
}

}  // namespace tuneforge::worker::testing
