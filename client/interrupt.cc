#include "client/interrupt.h"

#include <signal.h>

#include <chrono>

namespace tuneforge::cli {
namespace {

// Only a lock-free atomic may be touched in a signal handler.
std::atomic<int> g_signals{0};
static_assert(std::atomic<int>::is_always_lock_free);

struct sigaction g_old_int, g_old_term;

void OnSignal(int) { g_signals.fetch_add(1); }

}  // namespace

InterruptGuard::InterruptGuard(std::function<void()> on_first, std::function<void()> on_second)
    : on_first_(std::move(on_first)), on_second_(std::move(on_second)) {
  g_signals.store(0);
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, &g_old_int);
  sigaction(SIGTERM, &action, &g_old_term);
  watcher_ = std::thread([this] { WatchLoop(); });
}

InterruptGuard::~InterruptGuard() {
  stop_.store(true);
  watcher_.join();
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

int InterruptGuard::count() const { return g_signals.load(); }

void InterruptGuard::WatchLoop() {
  int handled = 0;
  while (!stop_.load()) {
    int seen = g_signals.load();
    for (; handled < seen; ++handled) {
      if (handled == 0 && on_first_) on_first_();
      if (handled == 1 && on_second_) on_second_();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace tuneforge::cli
