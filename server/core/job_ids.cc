#include "server/core/job_ids.h"

#include <mutex>
#include <random>

#include "absl/strings/str_format.h"

namespace tuneforge::server {

std::string NewJobId() {
  // One engine for the process; concurrent submits draw under the lock.
  static std::mutex mu;
  static std::mt19937_64 rng(std::random_device{}());
  uint64_t bits;
  {
    std::lock_guard<std::mutex> lock(mu);
    bits = rng();
  }
  return absl::StrFormat("job-%012x", bits & 0xffffffffffffull);
}

uint64_t SearchSeed(const Job& job) {
  if (job.spec.seed != 0) return job.spec.seed;
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : job.id) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace tuneforge::server
