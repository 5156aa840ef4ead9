// The server assembled: record store, dispatcher, job manager and the three
// gRPC services behind one token. tuneforge-server runs it on a port; the
// embedded mode (`tuneforge tune`) runs it with no port and talks to it
// over an in-process channel, with a local worker: one code path.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/grpcpp.h"
#include "server/core/dispatcher.h"
#include "server/core/job_manager.h"
#include "server/record_store/record_store.h"

namespace tuneforge::server {

struct ServerOptions {
  // "HOST:PORT" to listen on ("127.0.0.1:0" picks a free port); empty for
  // in-process use only.
  std::string listen = "127.0.0.1:7070";
  std::string db_path;
  std::string token;  // required: calls without it are refused
  std::string tls_cert_file;  // both or neither
  std::string tls_key_file;
  bool log_calls = false;  // a stderr line per call (tuneforge-server --verbose)
  DispatcherOptions dispatcher;
  JobManagerOptions jobs;
};

class Server {
 public:
  // Errors: no token, unopenable database, a port that cannot be bound,
  // unreadable TLS files.
  static absl::StatusOr<std::unique_ptr<Server>> Start(const ServerOptions& options);
  ~Server();

  // The port actually bound (0 when not listening).
  int port() const { return port_; }
  std::shared_ptr<grpc::Channel> InProcessChannel();
  RecordStore& store() { return *store_; }
  // Stops accepting calls, ends streams, stops the job manager and dispatcher.
  void Shutdown();
  // Blocks until Shutdown.
  void Wait();

 private:
  Server() = default;
  std::unique_ptr<RecordStore> store_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::unique_ptr<JobManager> jobs_;
  std::vector<std::unique_ptr<grpc::Service>> services_;
  std::unique_ptr<grpc::Server> grpc_;
  int port_ = 0;
  bool shut_down_ = false;
};

}  // namespace tuneforge::server
