// A real tuneforge server for the service tests: record store in a
// temporary folder, dispatcher, job manager and the three services on
// 127.0.0.1 (a free port), plus client stubs and helpers to call it as a
// worker would.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "proto/tuneforge.grpc.pb.h"
#include "server/server.h"

namespace tuneforge::server::testing {

inline constexpr char kToken[] = "service-test-token-0123456789";
inline constexpr char kDeviceKey[] = "test-cpu-1c";

// A folder under $TMPDIR removed with everything in it.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

struct Stubs {
  explicit Stubs(const std::shared_ptr<grpc::Channel>& channel);
  std::unique_ptr<v1::Jobs::Stub> jobs;
  std::unique_ptr<v1::Workers::Stub> workers;
  std::unique_ptr<v1::Records::Stub> records;
};

class TestServer {
 public:
  // Starts on 127.0.0.1:0 with a fresh database in a new TempDir; the
  // token, listen address and database path of `options` are set here.
  static absl::StatusOr<std::unique_ptr<TestServer>> Start(ServerOptions options = {});
  ~TestServer();

  Server& server() { return *server_; }
  Stubs& stubs() { return *stubs_; }
  std::string address() const;

 private:
  TestServer() = default;
  TempDir dir_;
  std::unique_ptr<Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<Stubs> stubs_;
};

// Client contexts: with the right token, with none, and with a raw
// "authorization" value.
std::unique_ptr<grpc::ClientContext> Authed(absl::Duration deadline = absl::Seconds(20));
std::unique_ptr<grpc::ClientContext> NoToken();
std::unique_ptr<grpc::ClientContext> WithAuthorization(const std::string& value);

// Valid requests that the tests change one field of.
v1::JobSpec SmallJobSpec(int trials = 4);
v1::DeviceInfo TestDevice();
v1::MeasureResult GoodResult(const std::string& task_id, double seconds = 1e-5);

// A job submitted and measured to the end by a test-side worker that
// reports a synthetic time for every leased task: the real API, from the
// worker's side.
absl::StatusOr<v1::Job> RunJobToCompletion(Stubs& stubs, const v1::JobSpec& spec,
                                           absl::Duration timeout = absl::Seconds(60));
absl::StatusOr<std::string> RegisterWorker(Stubs& stubs);
// Leases up to `max_tasks` (waiting up to wait_ms) and reports each with a
// synthetic time; returns how many tasks it measured.
absl::StatusOr<int> LeaseAndReport(Stubs& stubs, const std::string& worker_id, int max_tasks, int wait_ms);

}  // namespace tuneforge::server::testing
