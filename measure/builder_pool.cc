#include "measure/builder_pool.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/millis_since.h"
#include "measure/measure_proto.h"

namespace tuneforge::measure {
namespace {

BuiltKernel FromReply(const runner::BuildReply& reply) {
  std::optional<MeasureErrorKind> kind = ErrorKindFromProto(reply.error_kind());
  absl::StatusOr<std::vector<ArgSpec>> args = ArgSpecsFromProto(reply.args());
  if (!kind || !args.ok())
    return BuiltKernel::Failed(MeasureErrorKind::kRunnerError,
                  absl::StrCat("the builder process sent a malformed reply (",
                               !kind ? "no error kind" : args.status().message(), ")"));
  BuiltKernel k;
  k.error_kind = *kind;
  k.error = reply.error();
  k.object = KernelObjectFromProto(reply.object());
  k.args = *std::move(args);
  return k;
}

}  // namespace

BuilderProcess::BuilderProcess(ChildConfig config)
    : child_([&config] {
        config.role = ChildRole::kBuilder;
        return std::move(config);
      }()) {}

BuiltKernel BuilderProcess::Build(const runner::BuildRequest& request, double timeout_s,
                                  const char* limit_name) {
  auto start = std::chrono::steady_clock::now();
  Message message;
  *message.mutable_build_request() = request;
  BuiltKernel k = [&]() -> BuiltKernel {
    // A child that died while idle is replaced and the request sent once
    // more; one that dies while compiling is this request's result.
    for (int attempt = 0;; ++attempt) {
      if (!child_.running())
        if (absl::Status s = child_.Start(); !s.ok())
          return BuiltKernel::Failed(MeasureErrorKind::kRunnerError, std::string(s.message()));
      if (absl::Status sent = child_.Send(message); !sent.ok()) {
        child_.Stop();
        if (attempt == 0) continue;
        return BuiltKernel::Failed(MeasureErrorKind::kRunnerError,
                      absl::StrCat("cannot send the build to the builder process: ", sent.message()));
      }
      absl::StatusOr<Message> reply = child_.Receive(After(timeout_s));
      if (reply.ok()) {
        if (reply->has_build_reply()) return FromReply(reply->build_reply());
        child_.Stop();
        return BuiltKernel::Failed(MeasureErrorKind::kRunnerError,
                                   "the builder process sent an unexpected message; it was restarted");
      }
      if (absl::IsDeadlineExceeded(reply.status())) {
        child_.Kill();
        return BuiltKernel::Failed(MeasureErrorKind::kCompileError,
                      absl::StrCat("compiling did not finish within ", timeout_s, " s (", limit_name,
                                   "); the builder process was killed"));
      }
      if (absl::IsUnavailable(reply.status())) {
        int status = child_.Stop();
        return BuiltKernel::Failed(MeasureErrorKind::kCompileError,
                      absl::StrCat("the compiler died (", DescribeExit(status),
                                   ") building this candidate; the builder process will be restarted"));
      }
      child_.Stop();
      return BuiltKernel::Failed(MeasureErrorKind::kRunnerError,
                    absl::StrCat("talking to the builder process failed: ", reply.status().message()));
    }
  }();
  k.build_ms = MillisSince(start);
  return k;
}

namespace {

// The shared cache folders are named for the process that made them, so a
// pool can tell the folders of processes that died without removing theirs
// (a killed worker) and remove them: each holds a tuning's objects.
constexpr char kCacheDirPrefix[] = "tuneforge-functions-";

void RemoveCacheDirsOfDeadProcesses(const std::filesystem::path& temp) {
  std::error_code ec;
  for (const std::filesystem::directory_entry& e : std::filesystem::directory_iterator(temp, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(kCacheDirPrefix, 0) != 0) continue;
    const std::string rest = name.substr(sizeof(kCacheDirPrefix) - 1);
    const size_t dash = rest.find('-');
    if (dash == std::string::npos || dash == 0) continue;  // not of this naming
    char* end = nullptr;
    const long pid = std::strtol(rest.c_str(), &end, 10);
    if (end != rest.c_str() + dash || pid <= 0) continue;
    // ESRCH: no such process. EPERM (another user's) counts as alive.
    if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      std::filesystem::remove_all(e.path(), ignored);
    }
  }
}

}  // namespace

BuilderPool::BuilderPool(ChildConfig config, int jobs, double timeout_s)
    : config_(std::move(config)), timeout_s_(timeout_s) {
  if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 0; i < jobs; ++i) slots_.push_back(std::make_unique<BuilderProcess>(config_));
  // Shared only between two or more children; a folder that cannot be made
  // leaves each child its own cache. mkdtemp makes it 0700: the objects in
  // it are loaded and run, and no other user can put one there.
  if (jobs > 1) {
    std::error_code ec;
    const std::filesystem::path temp = std::filesystem::temp_directory_path(ec);
    if (ec) return;
    RemoveCacheDirsOfDeadProcesses(temp);
    std::string dir = (temp / absl::StrCat(kCacheDirPrefix, getpid(), "-XXXXXX")).string();
    if (mkdtemp(dir.data())) function_cache_dir_ = std::move(dir);
  }
}

BuilderPool::~BuilderPool() {
  slots_.clear();  // the children first: none writes into the folder as it goes
  std::error_code ignored;
  if (!function_cache_dir_.empty()) std::filesystem::remove_all(function_cache_dir_, ignored);
}

std::vector<BuiltKernel> BuilderPool::Build(const std::vector<runner::BuildRequest>& requests,
                                            const std::function<bool()>& stop,
                                            const std::vector<double>& deadlines_s) {
  std::lock_guard<std::mutex> lock(mu_);
  const int n = static_cast<int>(requests.size());
  std::vector<BuiltKernel> out(n);
  std::atomic<int> next{0};
  auto build = [&](BuilderProcess& builder, int i) {
    runner::BuildRequest request = requests[i];
    request.set_function_cache_dir(function_cache_dir_);
    const double own = i < static_cast<int>(deadlines_s.size()) ? deadlines_s[i] : 0;
    if (own > 0 && own < timeout_s_) return builder.Build(request, own, "the task's build deadline");
    return builder.Build(request, timeout_s_);
  };
  auto work = [&](BuilderProcess& builder) {
    for (int i; (i = next.fetch_add(1)) < n;)
      out[i] = stop() ? BuiltKernel::Failed(MeasureErrorKind::kRunnerError, "skipped: the worker is stopping")
                      : build(builder, i);
  };
  const int threads = std::min(n, static_cast<int>(slots_.size()));
  std::vector<std::thread> helpers;
  for (int t = 1; t < threads; ++t) helpers.emplace_back(work, std::ref(*slots_[t]));
  if (threads > 0) work(*slots_[0]);
  for (std::thread& h : helpers) h.join();
  return out;
}

int BuilderPool::starts() const {
  int total = 0;
  for (const auto& s : slots_) total += s->starts();
  return total;
}

}  // namespace tuneforge::measure
