// ExtractFeaturesBatch: states are handed out one at a time through an
// atomic counter, so uneven states (one big nest, many small ones) still
// balance; each result goes to its own slot, so no lock is needed.
#include <algorithm>
#include <atomic>
#include <thread>

#include "search/features/features.h"

namespace tuneforge::search {

std::vector<absl::StatusOr<ProgramFeatures>> ExtractFeaturesBatch(
    const std::vector<schedule::State>& states, int threads) {
  std::vector<absl::StatusOr<ProgramFeatures>> out(states.size(),
                                                   absl::UnknownError("not extracted"));
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = static_cast<int>(std::min<size_t>(threads, states.size()));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < states.size(); i = next++) out[i] = ExtractFeatures(states[i]);
  };
  if (threads <= 1) {
    work();
    return out;
  }
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();  // the calling thread is a worker too
  for (std::thread& t : pool) t.join();
  return out;
}

}  // namespace tuneforge::search
