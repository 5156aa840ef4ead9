// WorkerAgent: one device worker's life against the scheduler server.
//
//   Run:  Register ──► Lease(max_tasks, wait) ──► build in parallel ──► time one at a time
//            ▲            │                        (or take the objects     (sandboxed runner)
//            │            │                         the server shipped)           │
//            │            ▼                                                       ▼
//            └── NOT_FOUND / heartbeat known=false    Report ◄────────────────────┘
//                (the server forgot us: register       kept and re-sent until the server
//                 again, new worker id)                acknowledges it (idempotent by task id)
//
//   A heartbeat thread beats at the server's interval (it also keeps the
//   leases of a long measurement alive). An unreachable server means retry
//   with jittered exponential backoff, never exit; only a refused token or a
//   refused device is fatal. Stop: the task being timed finishes, the
//   finished results are reported, the unstarted tasks go back to the server
//   (Deregister), and Run returns OK.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/codegen/target.h"
#include "common/rpc/channel.h"
#include "grpcpp/grpcpp.h"
#include "proto/tuneforge.pb.h"

namespace tuneforge::worker {

namespace v1 = ::tuneforge::v1;

struct WorkerOptions {
  rpc::ConnectOptions connect;             // address, token, TLS CA
  std::shared_ptr<grpc::Channel> channel;  // if set, used instead (embedded: in-process);
                                           // connect.token is still sent
  std::string device_key;                  // empty: probed (codegen::Target::device_key())
  // The device measured on: a GPU worker's probed GPU; unset: this CPU.
  std::optional<codegen::Target> target;
  bool runner_only = false;  // never compiles: measures objects the server built for it
  // Registered as running under emulation (qemu-user: $TUNEFORGE_EMULATOR
  // set), so its timings are known to mean nothing.
  bool emulated = false;
  int build_jobs = 0;        // parallel compiles (0: all cores)
  double build_timeout_s = 60;  // a longer compile is that candidate's compile_error
  int max_tasks_per_lease = 8;  // 1..256
  int lease_wait_ms = 2000;     // how long the server may hold a Lease when it has no work
  std::string runner_path;      // tuneforge-runner; empty: $TUNEFORGE_RUNNER, else next to
                                // the executable
  // Reconnect backoff: starts at the minimum, doubles up to the maximum,
  // each wait jittered by +-20%.
  absl::Duration min_backoff = absl::Milliseconds(100);
  absl::Duration max_backoff = absl::Seconds(5);
  // Calls that end a session (the final report, Deregister) wait at most this.
  absl::Duration shutdown_call_timeout = absl::Seconds(5);
  // Human-readable progress lines ("tuneforge-worker w-3 (x86_64-avx512-2c)
  // connected to ..."); per-lease lines only when verbose. Null: silent.
  std::function<void(const std::string& line)> log;
  bool verbose = false;
};

// What the agent has done so far (for tests and the --verbose summary).
struct WorkerCounters {
  int64_t registrations = 0;     // successful Register calls (1 + re-registrations)
  int64_t leases = 0;            // leases that brought at least one task
  int64_t tasks_measured = 0;    // results produced (any error kind)
  int64_t reports_acknowledged = 0;
  int64_t report_failures = 0;   // report attempts the server did not acknowledge
  int64_t reconnects = 0;        // times the server answered again after being unreachable
  int64_t returned_tasks = 0;    // tasks Deregister gave back to the server
};

class WorkerAgent {
 public:
  explicit WorkerAgent(WorkerOptions options);
  ~WorkerAgent();
  WorkerAgent(const WorkerAgent&) = delete;
  WorkerAgent& operator=(const WorkerAgent&) = delete;

  // Works until Stop(). Errors (returned at once, nothing retried): a bad
  // address or max_tasks_per_lease, no runner binary, the server refusing
  // the token (UNAUTHENTICATED / PERMISSION_DENIED) or the device
  // (INVALID_ARGUMENT on Register). Call at most once.
  absl::Status Run();
  // Thread-safe, callable from a signal-watching thread, before or during Run.
  void Stop();

  WorkerCounters counters() const;
  // The id the server gave on the latest registration ("" before the first).
  std::string worker_id() const;

 private:
  class Session;
  std::unique_ptr<Session> session_;
};

// This machine as a DeviceInfo: LLVM's host probe (triple, CPU, features,
// cores, caches), the hostname, can_build = !runner_only. The device key is
// `device_key_override` when not empty, else Target::device_key()
// ("x86_64-avx512-2c"). With `gpu` (a GPU worker's target) the device is
// that GPU: its key ("cuda-sm90-h100"), arch as the CPU, SMs as the cores.
v1::DeviceInfo ProbeDevice(const std::string& device_key_override, bool runner_only,
                           bool emulated = false, const std::optional<codegen::Target>& gpu = std::nullopt);

}  // namespace tuneforge::worker
