#include "worker/agent/backoff.h"

#include <algorithm>

namespace tuneforge::worker {

Backoff::Backoff(absl::Duration min, absl::Duration max)
    : min_(std::max(min, absl::Milliseconds(1))),
      max_(std::max(max, min_)),
      current_(min_),
      rng_(std::random_device{}()) {}

absl::Duration Backoff::Next() {
  std::uniform_real_distribution<double> spread(0.8, 1.2);
  absl::Duration wait = current_ * spread(rng_);
  current_ = std::min(current_ * 2, max_);
  return wait;
}

}  // namespace tuneforge::worker
