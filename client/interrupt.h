// Ctrl-C while a command waits on a job. The first SIGINT (or SIGTERM)
// calls `on_first` (cancel the job cleanly), a second calls `on_second`
// (stop waiting). The callbacks run on a watcher thread, not in the signal
// handler. The previous handlers come back on destruction; processes
// started meanwhile get the default handlers when they exec.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace tuneforge::cli {

class InterruptGuard {
 public:
  InterruptGuard(std::function<void()> on_first, std::function<void()> on_second);
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // Signals received so far.
  int count() const;

 private:
  void WatchLoop();

  std::function<void()> on_first_;
  std::function<void()> on_second_;
  std::atomic<bool> stop_{false};
  std::thread watcher_;
};

}  // namespace tuneforge::cli
