// A small Workers service on a real gRPC server (127.0.0.1), holding its
// tasks in memory: enough of a dispatcher to drive a WorkerAgent, with every
// call counted so tests can see what the worker did (a report re-sent after
// an outage, a Deregister on SIGTERM). It can stop listening and come back on
// the same port as a "restarted" server that has forgotten its workers.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "proto/tuneforge.grpc.pb.h"

namespace tuneforge::worker::testing {

namespace v1 = ::tuneforge::v1;

struct TestServerOptions {
  std::string token = "agent-test-token";
  int heartbeat_interval_ms = 200;
  // For a worker that cannot build, compile each leased task's candidate
  // and reference for this machine at lease time, as the real dispatcher
  // does for runner-only workers.
  bool build_for_runner_only = true;
  // Not OK: every Report is answered with this (a server whose database
  // cannot be written answers PERMISSION_DENIED).
  grpc::Status refuse_reports = grpc::Status::OK;
};

// What the server has seen; read with Snapshot or WaitUntil.
struct ServerState {
  std::deque<v1::MeasureTask> queue;
  std::map<std::string, v1::MeasureTask> leased;       // by task id
  std::map<std::string, std::string> leased_to;        // task id -> worker id
  std::map<std::string, v1::MeasureResult> results;    // stored once per task id
  std::map<std::string, v1::DeviceInfo> workers;       // registered now, by id
  int registrations = 0;
  int heartbeats = 0;
  int unknown_heartbeats = 0;  // answered known=false
  int leases_with_tasks = 0;
  int report_calls = 0;
  int accepted = 0;
  int duplicates = 0;
  int rejected = 0;
  int deregistrations = 0;
  int returned_tasks = 0;
  int refused_calls = 0;  // wrong or missing token
  int next_worker = 1;
  int next_lease = 1;
};

class TestWorkersServer {
 public:
  // Listens on 127.0.0.1 on a free port.
  static std::unique_ptr<TestWorkersServer> Start(TestServerOptions options = {});
  ~TestWorkersServer();

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  const std::string& token() const { return options_.token; }
  std::shared_ptr<grpc::Channel> InProcessChannel();

  // Stops listening; calls in flight are cancelled; the tasks stay.
  void Stop();
  // Listens again on the same port as a restarted server: the workers are
  // forgotten, their leased tasks are queued again (results are kept).
  bool Restart();

  void AddTasks(const std::vector<v1::MeasureTask>& tasks);
  ServerState Snapshot() const;
  // Waits until `done` holds (checked every 20 ms).
  bool WaitUntil(const std::function<bool(const ServerState&)>& done, absl::Duration timeout) const;

  // The shared state the service implementation works on.
  struct Core {
    TestServerOptions options;
    mutable absl::Mutex mu;
    ServerState state ABSL_GUARDED_BY(mu);
  };

 private:
  explicit TestWorkersServer(TestServerOptions options);
  bool Listen(int port);

  TestServerOptions options_;
  std::shared_ptr<Core> core_;
  std::unique_ptr<grpc::Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace tuneforge::worker::testing
