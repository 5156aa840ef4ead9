// The binary protocol between a measuring process and its tuneforge-runner
// child, over two pipes. Both ends are the same build on the same machine,
// so integers travel in host byte order. Every message is one frame:
//
//   u32 length of the rest | u8 MessageType | payload
//
// Payload fields in declaration order: u8/u32/i32/u64/i64/f64 as raw
// bytes, strings as u32 length + bytes, vectors as u32 count + elements.
//
// A session:  runner -> Hello (once, at start)
//             parent -> RunRequest
//             runner -> Phase(kReference)   only when it runs the reference
//             runner -> Phase(kCandidate)
//             runner -> RunReply
//             ... more requests; the runner exits when its input closes.
// A builder session (the same binary, builder_process.h) is Hello, then
// BuildRequest -> BuildReply pairs.
// The Phase messages let the parent tell a crash or hang of the reference
// from one of the candidate, and give each its own deadline.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "measure/error_kind.h"
#include "measure/kernel_args.h"

namespace tuneforge::measure {

inline constexpr uint32_t kProtocolVersion = 1;
inline constexpr uint32_t kMaxFrameBytes = 1u << 30;

enum class MessageType : uint8_t {
  kHello = 1,
  kRunRequest = 2,
  kPhase = 3,
  kRunReply = 4,
  kBuildRequest = 5,
  kBuildReply = 6,
};

struct HelloMessage {
  uint32_t version = kProtocolVersion;
  int32_t pid = 0;
};

struct KernelBlob {
  std::string symbol;
  std::string triple;
  std::string object;  // ELF relocatable bytes
};

struct RunRequest {
  std::string workload_key;  // caches arguments and reference outputs
  uint64_t seed = 0;         // input contents
  std::vector<ArgSpec> args;
  KernelBlob reference;  // the unscheduled program
  KernelBlob candidate;
  int32_t number = 1;
  int32_t repeat = 3;
  int32_t min_repeat_ms = 100;
  bool flush_cache = false;
  int32_t threads = 0;  // 0: all cores
  // Seconds the check run and the timing may take together (0: no limit):
  // a slow candidate gets fewer repeats, or just its check run's time,
  // rather than running into the parent's deadline.
  double time_budget_s = 0;
};

enum class RunPhase : uint8_t { kReference = 1, kCandidate = 2 };
struct PhaseMessage {
  RunPhase phase = RunPhase::kCandidate;
};

struct RunReply {
  MeasureErrorKind error_kind = MeasureErrorKind::kNone;
  std::string error;
  bool correct = false;
  double max_abs_error = 0;
  double max_rel_error = 0;
  int32_t number = 0;
  std::vector<double> repeat_seconds;
  double median_seconds = 0;
  double timed_ms = 0;  // inside timed kernel runs, calibration included
};

// Compile one schedule of a workload in a builder process: the workload as
// the user gave it (the child rebuilds the DAG and checks its key), the
// steps as schedule JSON ("" builds the unscheduled reference), the target.
struct BuildRequest {
  std::string spec;        // "matmul:M=..."; empty when `definition` is set
  std::string definition;  // compute-definition text
  std::string name;        // the definition's name
  std::string workload_key;
  std::string schedule_json;
  std::string target;  // codegen::Target::ToString()
  int64_t l1_bytes = 0, l2_bytes = 0, l3_bytes = 0;  // not in the target string
};

struct BuildReply {
  MeasureErrorKind error_kind = MeasureErrorKind::kNone;
  std::string error;
  KernelBlob object;
  std::vector<ArgSpec> args;
};

using Message = std::variant<HelloMessage, RunRequest, PhaseMessage, RunReply, BuildRequest, BuildReply>;

// The whole frame (length, type, payload).
std::string EncodeFrame(const Message& message);
// Errors (DataLoss): unknown type, truncated or trailing bytes, bad enum.
absl::StatusOr<Message> DecodePayload(uint8_t type, std::string_view payload);

using Deadline = std::optional<std::chrono::steady_clock::time_point>;

// Writes a frame. A closed pipe is an Unavailable error, never SIGPIPE.
absl::Status WriteMessage(int fd, const Message& message);
// Reads one frame, waiting until `deadline` (forever if unset). Errors:
// DeadlineExceeded (nothing complete in time), Unavailable (the other end
// closed the pipe), DataLoss (malformed frame).
absl::StatusOr<Message> ReadMessage(int fd, Deadline deadline);

}  // namespace tuneforge::measure
