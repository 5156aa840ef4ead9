// Compiles in child processes under a deadline. LLVM cannot be interrupted
// inside a process: a candidate whose code takes minutes to compile (a huge
// unrolled nest, a pathological vector shuffle) would hold a worker's build
// thread that long. Each build thread of the pool owns one tuneforge-runner
// child serving BuildRequests; a build past its deadline, or one that
// crashes the compiler, kills that child and fails only its candidate
// (compile_error); the next build starts a fresh child.
//
//   BuilderPool pool({runner path, memory limit}, jobs, timeout_s);
//   std::vector<BuiltKernel> built = pool.Build(requests, stop);
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "measure/builder.h"
#include "measure/child_process.h"
#include "measure/protocol.h"

namespace tuneforge::measure {

// One child compiling one request at a time.
class BuilderProcess {
 public:
  // `config.role` is set to kBuilder here.
  explicit BuilderProcess(ChildConfig config);

  // build_ms is the wall time seen here. Never fails as a call: a child that
  // cannot start, dies or overruns `timeout_s` is the kernel's error, whose
  // message names the limit as `limit_name`.
  BuiltKernel Build(const runner::BuildRequest& request, double timeout_s,
                    const char* limit_name = "build timeout");

  int starts() const { return child_.starts(); }
  pid_t pid() const { return child_.pid(); }

 private:
  ChildProcess child_;
};

class BuilderPool {
 public:
  // `jobs` children at most (0: the machine's cores), started on first use.
  BuilderPool(ChildConfig config, int jobs, double timeout_s);
  ~BuilderPool();  // removes the folder its children share functions through
  BuilderPool(const BuilderPool&) = delete;
  BuilderPool& operator=(const BuilderPool&) = delete;

  // One kernel per request, in order, built on up to `jobs` children at
  // once; once `stop()` is true the remaining ones are skipped (runner_error
  // "skipped"). A request may have a shorter deadline of its own,
  // `deadlines_s[i]` > 0 (a job's limit for a candidate); the pool's
  // timeout holds for the others. One caller at a time.
  std::vector<BuiltKernel> Build(const std::vector<runner::BuildRequest>& requests,
                                 const std::function<bool()>& stop = [] { return false; },
                                 const std::vector<double>& deadlines_s = {});

  double timeout_s() const { return timeout_s_; }
  int starts() const;  // children started so far, all slots

 private:
  ChildConfig config_;
  double timeout_s_;
  std::vector<std::unique_ptr<BuilderProcess>> slots_;
  // A temporary folder through which the children share the functions they
  // compile (BuildRequest.function_cache_dir); empty if none could be made.
  std::string function_cache_dir_;
  std::mutex mu_;  // one Build at a time
};

}  // namespace tuneforge::measure
