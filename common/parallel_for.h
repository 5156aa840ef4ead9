// body(i) for every i < n on `threads` threads (0: the machine's cores),
// the calling thread among them. Items are handed out one at a time through
// an atomic counter, so a few big items among small ones (one big loop nest
// to lower or extract features from, many small ones) still balance; a body
// writing to its own slot of a result needs no lock. For the search's
// batches of independent programs; kernels use common/runtime/parallel.h.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace tuneforge {

template <class Body>
void ParallelFor(size_t n, int threads, const Body& body) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = static_cast<int>(std::min<size_t>(threads, n));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < n;) body(i);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

}  // namespace tuneforge
