// Exponential backoff with jitter for reconnecting to the server: the first
// wait is `min`, each failure doubles it up to `max`, and every wait is
// spread by +-20% so a fleet of workers does not retry in lockstep after a
// server restart.
#pragma once

#include <random>

#include "absl/time/time.h"

namespace tuneforge::worker {

class Backoff {
 public:
  Backoff(absl::Duration min, absl::Duration max);
  // The wait before the next attempt; grows with every call until Reset.
  absl::Duration Next();
  void Reset() { current_ = min_; }

 private:
  absl::Duration min_, max_, current_;
  std::mt19937_64 rng_;
};

}  // namespace tuneforge::worker
