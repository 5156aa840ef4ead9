// The pipe between a measuring process and its tuneforge-runner child: the
// messages are protobufs (proto/runner.proto, where each is declared once
// and the session is described), each framed as
//
//   u32 length of the serialized Message (host byte order) | Message bytes
//
// Both ends are the same build on the same machine; Hello carries
// kProtocolVersion so a stale runner binary is named, not misread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "measure/kernel_args.h"
#include "proto/runner.pb.h"

namespace tuneforge::measure {

inline constexpr uint32_t kProtocolVersion = 2;
inline constexpr uint32_t kMaxFrameBytes = 1u << 30;

using Message = runner::Message;
// The requests by their measure:: names.
using RunRequest = runner::RunRequest;
using BuildRequest = runner::BuildRequest;

// The whole frame (length, then the message).
std::string EncodeFrame(const Message& message);
// Errors (DataLoss): bytes that are not a Message, or a Message with no body.
absl::StatusOr<Message> DecodePayload(std::string_view payload);

using Deadline = std::optional<std::chrono::steady_clock::time_point>;

// Writes a frame. A closed pipe is an Unavailable error, never SIGPIPE.
absl::Status WriteMessage(int fd, const Message& message);
// Reads one frame, waiting until `deadline` (forever if unset). Errors:
// DeadlineExceeded (nothing complete in time), Unavailable (the other end
// closed the pipe), DataLoss (malformed frame).
absl::StatusOr<Message> ReadMessage(int fd, Deadline deadline);

// Kernel arguments on the pipe. Errors (DataLoss): a scalar type or lane
// count this build does not know.
void ArgSpecsToProto(const std::vector<ArgSpec>& args,
                     google::protobuf::RepeatedPtrField<runner::ArgSpec>* out);
absl::StatusOr<std::vector<ArgSpec>> ArgSpecsFromProto(
    const google::protobuf::RepeatedPtrField<runner::ArgSpec>& args);

}  // namespace tuneforge::measure
