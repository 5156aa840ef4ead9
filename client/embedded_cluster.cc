#include "client/embedded_cluster.h"

#include "absl/strings/str_cat.h"
#include "common/rpc/auth.h"
#include "server/core/service_constants.h"
#include "worker/agent/device_key.h"

namespace tuneforge::cli {

absl::StatusOr<std::unique_ptr<EmbeddedCluster>> EmbeddedCluster::Start(EmbeddedOptions options) {
  std::unique_ptr<EmbeddedCluster> c(new EmbeddedCluster());
  c->device_key_ = worker::ProbeDevice("", /*runner_only=*/false).device_key();
  // This machine's key as an older build spelt it (no CPU model) is still
  // this machine: the job gets today's key.
  const std::string& requested = options.requested_device_key;
  if (!requested.empty() && requested != c->device_key_ && requested != worker::LegacyDeviceKey(c->device_key_))
    return absl::InvalidArgumentError(absl::StrCat(
        "--device-key ", requested, " is not this machine's device key (", c->device_key_,
        "), and the embedded worker measures here; drop --device-key, or tune on such a device with "
        "--server HOST:PORT of a cluster that has one"));
  // The token never leaves this process: it only keeps the in-process
  // server's one code path (every call carries a token).
  absl::StatusOr<std::string> token = rpc::GenerateToken();
  if (!token.ok()) return token.status();
  c->token_ = *std::move(token);

  server::ServerOptions server_options;
  server_options.listen = "";  // no port: in-process calls only
  server_options.db_path = options.db_path;
  // No worker of an earlier run can still report: resumed tasks go out at once.
  server_options.dispatcher.restart_grace_ms = 0;
  server_options.token = c->token_;
  absl::StatusOr<std::unique_ptr<server::Server>> server = server::Server::Start(server_options);
  if (!server.ok()) return server.status();
  c->server_ = *std::move(server);

  worker::WorkerOptions worker_options;
  worker_options.channel = c->server_->InProcessChannel();
  worker_options.connect.token = c->token_;
  worker_options.connect.address = "in-process";
  worker_options.device_key = c->device_key_;
  worker_options.build_jobs = options.build_jobs;
  // The only worker: it leases a whole round, so its builders meet once a
  // round, not once per 8 tasks. Each meeting waits for the slowest build
  // of its batch while the other builder idles: a conv tuning's time
  // outside search, builds and runs went 0.021-0.023 -> 0.010 s a trial.
  worker_options.max_tasks_per_lease = server::kDefaultBatchSize;
  worker_options.log = options.log;
  c->agent_ = std::make_unique<worker::WorkerAgent>(std::move(worker_options));
  EmbeddedCluster* self = c.get();
  c->agent_thread_ = std::thread([self, on_error = options.on_worker_error] {
    absl::Status s = self->agent_->Run();
    {
      absl::MutexLock lock(&self->mu_);
      self->worker_status_ = s;
    }
    if (!s.ok() && on_error) on_error(s);
  });
  return c;
}

EmbeddedCluster::~EmbeddedCluster() { Stop().IgnoreError(); }

client::Connection EmbeddedCluster::connection() const {
  return client::Connection::OverChannel(server_->InProcessChannel(), token_, "the embedded server");
}

absl::Status EmbeddedCluster::Stop() {
  if (stopped_) {
    absl::MutexLock lock(&mu_);
    return worker_status_;
  }
  stopped_ = true;
  if (agent_) agent_->Stop();
  if (agent_thread_.joinable()) agent_thread_.join();
  if (server_) server_->Shutdown();
  absl::MutexLock lock(&mu_);
  return worker_status_;
}

}  // namespace tuneforge::cli
