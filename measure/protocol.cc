#include "measure/protocol.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/overloaded.h"

namespace tuneforge::measure {
namespace {

class Writer {
 public:
  template <class T>
  void Raw(T v) {
    out_.append(reinterpret_cast<const char*>(&v), sizeof(v));
  }
  void Str(std::string_view s) {
    Raw(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  void Arg(const ArgSpec& a) {
    Str(a.name);
    Raw(static_cast<uint8_t>(a.dtype.scalar));
    Raw(static_cast<int32_t>(a.dtype.lanes));
    Raw(static_cast<uint32_t>(a.shape.size()));
    for (int64_t d : a.shape) Raw(d);
    Raw(static_cast<uint8_t>(a.is_output));
  }
  void Blob(const KernelBlob& b) {
    Str(b.symbol);
    Str(b.triple);
    Str(b.object);
  }
  std::string& out() { return out_; }

 private:
  std::string out_;
};

// Reads fields in order; the first short read sets failed() and every later
// read returns zeros, so decoders check once at the end.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <class T>
  T Raw() {
    T v{};
    if (failed_ || in_.size() < sizeof(T)) {
      failed_ = true;
      return v;
    }
    std::memcpy(&v, in_.data(), sizeof(T));
    in_.remove_prefix(sizeof(T));
    return v;
  }
  std::string Str() {
    uint32_t n = Raw<uint32_t>();
    if (failed_ || in_.size() < n) {
      failed_ = true;
      return {};
    }
    std::string s(in_.substr(0, n));
    in_.remove_prefix(n);
    return s;
  }
  // Element counts are bounded by the bytes left, so a corrupt count cannot
  // make us allocate gigabytes.
  uint32_t Count(size_t min_element_bytes) {
    uint32_t n = Raw<uint32_t>();
    if (static_cast<uint64_t>(n) * min_element_bytes > in_.size()) failed_ = true;
    return failed_ ? 0 : n;
  }
  ArgSpec Arg() {
    ArgSpec a;
    a.name = Str();
    uint8_t scalar = Raw<uint8_t>();
    if (scalar > static_cast<uint8_t>(te::ScalarType::kFloat64)) failed_ = true;
    a.dtype = te::DType{static_cast<te::ScalarType>(scalar), Raw<int32_t>()};
    uint32_t rank = Count(sizeof(int64_t));
    for (uint32_t i = 0; i < rank; ++i) a.shape.push_back(Raw<int64_t>());
    a.is_output = Raw<uint8_t>() != 0;
    return a;
  }
  KernelBlob Blob() {
    KernelBlob b;
    b.symbol = Str();
    b.triple = Str();
    b.object = Str();
    return b;
  }
  MeasureErrorKind Kind() {
    uint8_t k = Raw<uint8_t>();
    if (k >= kNumMeasureErrorKinds) failed_ = true;
    return static_cast<MeasureErrorKind>(failed_ ? 0 : k);
  }
  bool Done() const { return !failed_ && in_.empty(); }

 private:
  std::string_view in_;
  bool failed_ = false;
};

MessageType TypeOf(const Message& m) {
  return std::visit(Overloaded{
                        [](const HelloMessage&) { return MessageType::kHello; },
                        [](const RunRequest&) { return MessageType::kRunRequest; },
                        [](const PhaseMessage&) { return MessageType::kPhase; },
                        [](const RunReply&) { return MessageType::kRunReply; },
                        [](const BuildRequest&) { return MessageType::kBuildRequest; },
                        [](const BuildReply&) { return MessageType::kBuildReply; },
                    },
                    m);
}

void EncodePayload(const Message& message, Writer& w) {
  std::visit(Overloaded{
                 [&](const HelloMessage& m) {
                   w.Raw(m.version);
                   w.Raw(m.pid);
                 },
                 [&](const RunRequest& m) {
                   w.Str(m.workload_key);
                   w.Raw(m.seed);
                   w.Raw(static_cast<uint32_t>(m.args.size()));
                   for (const ArgSpec& a : m.args) w.Arg(a);
                   w.Blob(m.reference);
                   w.Blob(m.candidate);
                   w.Raw(m.number);
                   w.Raw(m.repeat);
                   w.Raw(m.min_repeat_ms);
                   w.Raw(static_cast<uint8_t>(m.flush_cache));
                   w.Raw(m.threads);
                   w.Raw(m.time_budget_s);
                 },
                 [&](const PhaseMessage& m) { w.Raw(static_cast<uint8_t>(m.phase)); },
                 [&](const RunReply& m) {
                   w.Raw(static_cast<uint8_t>(m.error_kind));
                   w.Str(m.error);
                   w.Raw(static_cast<uint8_t>(m.correct));
                   w.Raw(m.max_abs_error);
                   w.Raw(m.max_rel_error);
                   w.Raw(m.number);
                   w.Raw(static_cast<uint32_t>(m.repeat_seconds.size()));
                   for (double s : m.repeat_seconds) w.Raw(s);
                   w.Raw(m.median_seconds);
                   w.Raw(m.timed_ms);
                 },
                 [&](const BuildRequest& m) {
                   w.Str(m.spec);
                   w.Str(m.definition);
                   w.Str(m.name);
                   w.Str(m.workload_key);
                   w.Str(m.schedule_json);
                   w.Str(m.target);
                   w.Raw(m.l1_bytes);
                   w.Raw(m.l2_bytes);
                   w.Raw(m.l3_bytes);
                 },
                 [&](const BuildReply& m) {
                   w.Raw(static_cast<uint8_t>(m.error_kind));
                   w.Str(m.error);
                   w.Blob(m.object);
                   w.Raw(static_cast<uint32_t>(m.args.size()));
                   for (const ArgSpec& a : m.args) w.Arg(a);
                 },
             },
             message);
}

absl::Status Malformed(uint8_t type) {
  return absl::DataLossError(
      absl::StrCat("malformed runner message of type ", type,
                   "; the runner and its parent must come from the same build"));
}

}  // namespace

std::string EncodeFrame(const Message& message) {
  Writer w;
  w.Raw(uint32_t{0});  // length, patched below
  w.Raw(static_cast<uint8_t>(TypeOf(message)));
  EncodePayload(message, w);
  std::string& out = w.out();
  uint32_t length = static_cast<uint32_t>(out.size() - sizeof(uint32_t));
  std::memcpy(out.data(), &length, sizeof(length));
  return std::move(out);
}

absl::StatusOr<Message> DecodePayload(uint8_t type, std::string_view payload) {
  Reader r(payload);
  Message out;
  switch (static_cast<MessageType>(type)) {
    case MessageType::kHello: {
      HelloMessage m;
      m.version = r.Raw<uint32_t>();
      m.pid = r.Raw<int32_t>();
      out = m;
      break;
    }
    case MessageType::kRunRequest: {
      RunRequest m;
      m.workload_key = r.Str();
      m.seed = r.Raw<uint64_t>();
      uint32_t n = r.Count(4);
      for (uint32_t i = 0; i < n; ++i) m.args.push_back(r.Arg());
      m.reference = r.Blob();
      m.candidate = r.Blob();
      m.number = r.Raw<int32_t>();
      m.repeat = r.Raw<int32_t>();
      m.min_repeat_ms = r.Raw<int32_t>();
      m.flush_cache = r.Raw<uint8_t>() != 0;
      m.threads = r.Raw<int32_t>();
      m.time_budget_s = r.Raw<double>();
      out = std::move(m);
      break;
    }
    case MessageType::kPhase: {
      uint8_t p = r.Raw<uint8_t>();
      if (p != static_cast<uint8_t>(RunPhase::kReference) &&
          p != static_cast<uint8_t>(RunPhase::kCandidate))
        return Malformed(type);
      out = PhaseMessage{static_cast<RunPhase>(p)};
      break;
    }
    case MessageType::kRunReply: {
      RunReply m;
      m.error_kind = r.Kind();
      m.error = r.Str();
      m.correct = r.Raw<uint8_t>() != 0;
      m.max_abs_error = r.Raw<double>();
      m.max_rel_error = r.Raw<double>();
      m.number = r.Raw<int32_t>();
      uint32_t n = r.Count(sizeof(double));
      for (uint32_t i = 0; i < n; ++i) m.repeat_seconds.push_back(r.Raw<double>());
      m.median_seconds = r.Raw<double>();
      m.timed_ms = r.Raw<double>();
      out = std::move(m);
      break;
    }
    case MessageType::kBuildRequest: {
      BuildRequest m;
      m.spec = r.Str();
      m.definition = r.Str();
      m.name = r.Str();
      m.workload_key = r.Str();
      m.schedule_json = r.Str();
      m.target = r.Str();
      m.l1_bytes = r.Raw<int64_t>();
      m.l2_bytes = r.Raw<int64_t>();
      m.l3_bytes = r.Raw<int64_t>();
      out = std::move(m);
      break;
    }
    case MessageType::kBuildReply: {
      BuildReply m;
      m.error_kind = r.Kind();
      m.error = r.Str();
      m.object = r.Blob();
      uint32_t n = r.Count(4);
      for (uint32_t i = 0; i < n; ++i) m.args.push_back(r.Arg());
      out = std::move(m);
      break;
    }
    default:
      return Malformed(type);
  }
  if (!r.Done()) return Malformed(type);
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
  char header[5];
  if (absl::Status s = ReadExactly(fd, header, sizeof(header), deadline); !s.ok()) return s;
  uint32_t length;
  std::memcpy(&length, header, sizeof(length));
  const auto type = static_cast<uint8_t>(header[4]);
  if (length < 1 || length > kMaxFrameBytes) return Malformed(type);
  std::string payload(length - 1, '\0');
  if (absl::Status s = ReadExactly(fd, payload.data(), payload.size(), deadline); !s.ok()) return s;
  return DecodePayload(type, payload);
}

}  // namespace tuneforge::measure
