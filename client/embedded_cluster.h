// The embedded default of `tuneforge tune`: the server (no port, its
// records in a local SQLite file) and one local worker in this process,
// talking over the server's in-process gRPC channel. The same server and
// worker code as a cluster; only the channel differs.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "client/api/connection.h"
#include "server/server.h"
#include "worker/agent/worker_agent.h"

namespace tuneforge::cli {

struct EmbeddedOptions {
  std::string db_path;
  // The device key the user asked for ("": this machine's). The local
  // worker measures on this machine, so any other key is an error.
  std::string requested_device_key;
  int build_jobs = 0;  // parallel compiles of the worker (0: all cores)
  // Called (on the worker's thread) if the worker stops with an error while
  // running: the job cannot progress any more.
  std::function<void(const absl::Status&)> on_worker_error;
  std::function<void(const std::string& line)> log;  // worker log lines; null: silent
};

class EmbeddedCluster {
 public:
  // Errors: a --device-key that is not this machine's key, an unopenable
  // database, no token source.
  static absl::StatusOr<std::unique_ptr<EmbeddedCluster>> Start(EmbeddedOptions options);
  ~EmbeddedCluster();

  client::Connection connection() const;
  const std::string& device_key() const { return device_key_; }
  // Stops the worker (its unstarted tasks go back), then the server.
  // Returns the worker's error, if it had one.
  absl::Status Stop();

 private:
  EmbeddedCluster() = default;

  std::string token_;
  std::string device_key_;
  std::unique_ptr<server::Server> server_;
  std::unique_ptr<worker::WorkerAgent> agent_;
  std::thread agent_thread_;
  absl::Mutex mu_;
  absl::Status worker_status_ ABSL_GUARDED_BY(mu_);
  bool stopped_ = false;
};

}  // namespace tuneforge::cli
