#include "common/codegen/llvm/pass_clock.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace tuneforge::codegen {
namespace {

using Clock = std::chrono::steady_clock;

// Seconds and runs per pass name, over every thread of the process.
struct PassTotals {
  std::mutex mu;
  std::map<std::string, std::pair<double, int>> by_pass;

  void Print() {
    std::lock_guard<std::mutex> lock(mu);
    std::vector<std::tuple<double, int, std::string>> rows;  // seconds, runs, pass
    double total = 0;
    for (const auto& [pass, t] : by_pass) {
      rows.push_back({t.first, t.second, pass});
      total += t.first;
    }
    std::sort(rows.rbegin(), rows.rend());
    std::fprintf(stderr, "LLVM optimization passes, own time summed over this process: %.3f s\n", total);
    std::fprintf(stderr, "%10s %6s %7s  %s\n", "seconds", "share", "runs", "pass");
    for (const auto& [seconds, runs, pass] : rows)
      std::fprintf(stderr, "%10.3f %5.1f%% %7d  %s\n", seconds, total > 0 ? 100 * seconds / total : 0.0, runs,
                   pass.c_str());
  }
};

PassTotals& Totals() {
  static PassTotals* totals = new PassTotals;  // printed at exit, never destroyed
  return *totals;
}

// The passes running on this thread, innermost last, with the time their
// nested passes took (not theirs).
struct OpenPass {
  std::string name;
  Clock::time_point start;
  double nested_seconds = 0;
};
thread_local std::vector<OpenPass> open_passes;

}  // namespace

void MaybeTimePasses(llvm::PassInstrumentationCallbacks& callbacks) {
  // Read once: this runs for every function a builder optimizes.
  static const bool wanted = std::getenv("TUNEFORGE_PASS_TIMES") != nullptr;
  if (!wanted) return;
  static const bool printed_at_exit = (std::atexit([] { Totals().Print(); }), true);
  (void)printed_at_exit;
  callbacks.registerBeforeNonSkippedPassCallback([](llvm::StringRef pass, llvm::Any) {
    open_passes.push_back({pass.str(), Clock::now()});
  });
  // A loop pass that deletes its loop ends in the "invalidated" callback
  // instead of the plain one: both close the pass.
  auto close = [] {
    if (open_passes.empty()) return;
    OpenPass done = std::move(open_passes.back());
    open_passes.pop_back();
    const double seconds = std::chrono::duration<double>(Clock::now() - done.start).count();
    if (!open_passes.empty()) open_passes.back().nested_seconds += seconds;
    std::lock_guard<std::mutex> lock(Totals().mu);
    auto& [own, runs] = Totals().by_pass[done.name];
    own += seconds - done.nested_seconds;
    ++runs;
  };
  callbacks.registerAfterPassCallback([close](llvm::StringRef, llvm::Any, const llvm::PreservedAnalyses&) { close(); });
  callbacks.registerAfterPassInvalidatedCallback(
      [close](llvm::StringRef, const llvm::PreservedAnalyses&) { close(); });
}

}  // namespace tuneforge::codegen
