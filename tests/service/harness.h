// The service as users run it, for the end-to-end tests: a real
// tuneforge-server on 127.0.0.1 (free port, temporary database, token file),
// real tuneforge-worker processes, the tuneforge CLI, and gRPC stubs with
// the token. Every process is killed and reaped when the Cluster goes away.
//
//   auto cluster = Cluster::Start();           // server up, port known
//   cluster->StartWorker();                     // waits until registered
//   auto job = cluster->Submit(SmallJob("matmul:M=32,N=32,K=32", 8));
//   auto done = cluster->WaitForJobEnd(job->id(), absl::Seconds(60));
//   auto records = cluster->JobRecords(job->id());
//
// Binaries come from $TF_BIN_DIR (tests/CMakeLists.txt sets it), else the
// test executable's own folder (build/bin).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "nlohmann/json.hpp"
#include "proto/tuneforge.grpc.pb.h"
#include "tests/service/child_process.h"

namespace tuneforge::service_test {

namespace v1 = ::tuneforge::v1;

// The device key the harness's workers announce and SmallJob targets.
inline constexpr char kTestDeviceKey[] = "e2e-cpu";
// Given as a worker's device key: no --device-key, the worker announces the
// key it probes.
inline constexpr char kProbedDeviceKey[] = "<probed>";

// The matmuls the tests tune, shared by name: the unity build (the top-level
// CMakeLists.txt) compiles several test files as one, so file-local constants
// must not repeat.
inline constexpr char kMatmul32[] = "matmul:M=32,N=32,K=32";
inline constexpr double kMatmul32Flops = 2.0 * 32 * 32 * 32;
inline constexpr char kMatmul64[] = "matmul:M=64,N=64,K=64";
inline constexpr double kMatmul64Flops = 2.0 * 64 * 64 * 64;

// CLI measure flags that take milliseconds per candidate.
inline const std::vector<std::string> kQuickMeasure = {"--repeat", "1", "--number", "1",
                                                       "--min-repeat-ms", "1", "--threads", "1"};

// `args` followed by `more`.
inline std::vector<std::string> With(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::string BinDir();

struct ClusterOptions {
  std::vector<std::string> server_args;  // added to --listen/--db/--token-file
  std::string device_key = kTestDeviceKey;
};

struct CliResult {
  int exit_code = -1;     // -1: killed by a signal or timed out
  std::string out;        // stdout
  std::string err;        // stderr
  nlohmann::json json;    // stdout parsed, null when it is not JSON
};

struct Worker {
  std::unique_ptr<ChildProcess> process;
  std::string id;  // as the server registered it ("" once it is gone)
};

class Cluster {
 public:
  // A fresh temporary folder, token file and database; the server started.
  static absl::StatusOr<std::unique_ptr<Cluster>> Start(ClusterOptions options = {});
  ~Cluster();  // kills every process; prints their logs if the test failed

  // ---- Server ----------------------------------------------------------------
  // Starts tuneforge-server on the port it had before (a free one the first
  // time) and the same database; waits for its ready line and a Jobs.List.
  absl::Status StartServer();
  // Signals the server and reaps it (SIGKILL: at once; others: up to 30 s).
  void StopServer(int signal);
  ChildProcess& server() { return *server_; }
  int port() const { return port_; }
  std::string address() const;
  const std::string& token() const { return token_; }
  const std::string& token_file() const { return token_file_; }
  const std::string& db_path() const { return db_path_; }
  const std::string& dir() const { return dir_; }

  // ---- Workers ---------------------------------------------------------------
  // Starts tuneforge-worker (--server, --token-file, --device-key, then
  // `extra_args`) and waits until the server lists a new worker; returns
  // its index.
  absl::StatusOr<int> StartWorker(const std::vector<std::string>& extra_args = {});
  // The same with another command than build/bin/tuneforge-worker (a
  // bundle's run-worker, maybe behind `env VAR=VALUE`) and, if given,
  // another device key than the cluster's (kProbedDeviceKey: its own).
  absl::StatusOr<int> StartWorkerWith(const std::vector<std::string>& command,
                                      const std::vector<std::string>& extra_args = {},
                                      const std::string& device_key = "");
  Worker& worker(int index) { return workers_.at(index); }
  int num_workers() const { return static_cast<int>(workers_.size()); }

  // ---- CLI -------------------------------------------------------------------
  // Runs build/bin/tuneforge ARGS (nothing added); killed after `timeout`.
  CliResult RunCli(const std::vector<std::string>& args, absl::Duration timeout = absl::Seconds(60),
                   const std::vector<std::string>& unset_env = {"TUNEFORGE_TOKEN"});
  // ARGS --server ADDR --token-file F --json.
  CliResult RunCliOnServer(const std::vector<std::string>& args,
                           absl::Duration timeout = absl::Seconds(60));

  // ---- gRPC ------------------------------------------------------------------
  // A new channel to the server (after a restart too).
  std::shared_ptr<grpc::Channel> NewChannel() const;
  v1::Jobs::Stub& jobs() { return *jobs_; }
  v1::Workers::Stub& workers_rpc() { return *workers_rpc_; }
  v1::Records::Stub& records() { return *records_; }
  // A context carrying the token and a deadline.
  std::unique_ptr<grpc::ClientContext> Context(absl::Duration deadline = absl::Seconds(30)) const;

  absl::StatusOr<v1::Job> Submit(const v1::JobSpec& spec);
  absl::StatusOr<v1::Job> GetJob(const std::string& id);
  // Polls Get until the job is done, failed or cancelled.
  absl::StatusOr<v1::Job> WaitForJobEnd(const std::string& id, absl::Duration timeout);
  // Polls Get until trials_done >= `trials`.
  absl::StatusOr<v1::Job> WaitForTrials(const std::string& id, int trials, absl::Duration timeout);
  // Every record of the job (Records.Query, newest first).
  absl::StatusOr<std::vector<v1::Record>> JobRecords(const std::string& id);
  absl::StatusOr<std::vector<v1::WorkerStatus>> ListWorkers();
  // The worker's status, or NOT_FOUND when the server no longer lists it.
  absl::StatusOr<v1::WorkerStatus> WorkerStatus(const std::string& worker_id);

 private:
  Cluster() = default;
  void ConnectStubs();
  void PrintLogs() const;

  ClusterOptions options_;
  std::string dir_;
  std::string token_;
  std::string token_file_;
  std::string db_path_;
  int port_ = 0;
  int server_starts_ = 0;
  std::unique_ptr<ChildProcess> server_;
  std::vector<Worker> workers_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Jobs::Stub> jobs_;
  std::unique_ptr<v1::Workers::Stub> workers_rpc_;
  std::unique_ptr<v1::Records::Stub> records_;
  int cli_runs_ = 0;
};

// A job small enough for a test: measure options that take milliseconds
// per candidate (1 run, 1 repeat, 1 ms minimum, 1 thread).
v1::JobSpec SmallJob(const std::string& workload_spec, int trials, int batch_size = 0);

// Distinct values of a field over records (worker ids, task ids).
std::vector<std::string> DistinctWorkerIds(const std::vector<v1::Record>& records);
std::vector<std::string> DistinctTaskIds(const std::vector<v1::Record>& records);

// "DONE", "RUNNING", ...
std::string StateName(v1::JobState state);
bool IsFinished(v1::JobState state);

}  // namespace tuneforge::service_test
