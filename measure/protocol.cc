#include "measure/protocol.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace tuneforge::measure {
namespace {

absl::Status Malformed(absl::string_view why) {
  return absl::DataLossError(absl::StrCat("malformed runner message (", why,
                                          "); the runner and its parent must come from the same build"));
}

}  // namespace

std::string EncodeFrame(const Message& message) {
  std::string out(sizeof(uint32_t), '\0');
  message.AppendToString(&out);
  const auto length = static_cast<uint32_t>(out.size() - sizeof(uint32_t));
  std::memcpy(out.data(), &length, sizeof(length));
  return out;
}

absl::StatusOr<Message> DecodePayload(std::string_view payload) {
  Message m;
  if (!m.ParseFromArray(payload.data(), static_cast<int>(payload.size())))
    return Malformed("not a runner.Message");
  if (m.body_case() == Message::BODY_NOT_SET) return Malformed("no body");
  return m;
}

void ArgSpecsToProto(const std::vector<ArgSpec>& args,
                     google::protobuf::RepeatedPtrField<runner::ArgSpec>* out) {
  for (const ArgSpec& a : args) {
    runner::ArgSpec* p = out->Add();
    p->set_name(a.name);
    p->set_scalar(static_cast<uint32_t>(a.dtype.scalar));
    p->set_lanes(a.dtype.lanes);
    p->mutable_shape()->Assign(a.shape.begin(), a.shape.end());
    p->set_is_output(a.is_output);
  }
}

absl::StatusOr<std::vector<ArgSpec>> ArgSpecsFromProto(
    const google::protobuf::RepeatedPtrField<runner::ArgSpec>& args) {
  std::vector<ArgSpec> out;
  out.reserve(args.size());
  for (const runner::ArgSpec& p : args) {
    if (p.scalar() > static_cast<uint32_t>(te::ScalarType::kFloat64) || p.lanes() < 1)
      return Malformed(absl::StrCat("argument '", p.name(), "' has scalar type ", p.scalar(), " and ",
                                    p.lanes(), " lanes"));
    ArgSpec a;
    a.name = p.name();
    a.dtype = te::DType{static_cast<te::ScalarType>(p.scalar()), p.lanes()};
    a.shape.assign(p.shape().begin(), p.shape().end());
    a.is_output = p.is_output();
    out.push_back(std::move(a));
  }
  return out;
}

absl::Status WriteMessage(int fd, const Message& message) {
  const std::string frame = EncodeFrame(message);
  // A write to a pipe whose reader died raises SIGPIPE, which would kill this
  // process. Block it for this thread, and swallow the one we caused.
  sigset_t pipe_set, old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  size_t done = 0;
  int error = 0;
  while (done < frame.size()) {
    ssize_t n = write(fd, frame.data() + done, frame.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = errno;
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (error == EPIPE) {
    struct timespec zero = {0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &zero) == SIGPIPE) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  if (error == EPIPE) return absl::UnavailableError("the other end of the pipe has exited");
  if (error != 0)
    return absl::InternalError(absl::StrCat("write to pipe failed: ", std::strerror(error)));
  return absl::OkStatus();
}

namespace {

// Reads exactly n bytes into out, waiting until the deadline.
absl::Status ReadExactly(int fd, char* out, size_t n, Deadline deadline) {
  size_t done = 0;
  while (done < n) {
    int timeout_ms = -1;
    if (deadline) {
      // Rounded up: poll must not give up before the deadline.
      auto left = std::chrono::ceil<std::chrono::milliseconds>(*deadline -
                                                               std::chrono::steady_clock::now());
      timeout_ms = static_cast<int>(std::max<int64_t>(0, left.count()));
    }
    struct pollfd p = {fd, POLLIN, 0};
    int ready = poll(&p, 1, timeout_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(absl::StrCat("poll on pipe failed: ", std::strerror(errno)));
    }
    if (ready == 0) return absl::DeadlineExceededError("no reply before the deadline");
    ssize_t got = read(fd, out + done, n - done);
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return absl::InternalError(absl::StrCat("read from pipe failed: ", std::strerror(errno)));
    }
    if (got == 0) return absl::UnavailableError("the other end of the pipe has exited");
    done += static_cast<size_t>(got);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Message> ReadMessage(int fd, Deadline deadline) {
  uint32_t length;
  if (absl::Status s = ReadExactly(fd, reinterpret_cast<char*>(&length), sizeof(length), deadline); !s.ok())
    return s;
  if (length > kMaxFrameBytes) return Malformed(absl::StrCat("a frame of ", length, " bytes"));
  std::string payload(length, '\0');
  if (absl::Status s = ReadExactly(fd, payload.data(), payload.size(), deadline); !s.ok()) return s;
  return DecodePayload(payload);
}

}  // namespace tuneforge::measure
