// The learned sketch selection's bandit: how many of a round's measurements
// each sketch of a workload gets. Its arms are the sketches, and it looks
// for the best arm by successive halving: every sketch first gets
// `first_quota` measured programs (a round goes to the sketch furthest
// below its quota, so each gets evolutions of its own), then the better
// half by best measured speed goes on with twice the quota, and so on until
// one sketch is left, which gets every later measurement.
//
// Why not Ansor's way (samples of every sketch, then the cost model's
// scores decide): two 1,000-trial tunings of one conv spent 912 and 934
// trials on the sketch that led after its first dozen random samples, a
// different one each time, and ended 30% apart. Why not UCB on the best
// speed: a sketch whose random samples are all middling leads early and,
// evolved, stays where it is; UCB kept feeding it (a conv tuning at 142
// GFLOPS after 320 trials, against 220-280 for Ansor's).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tuneforge::search {

class SketchBandit {
 public:
  // A first evolution of a sketch past its random samples. Halving costs
  // about sketches x quota per rung: a 3x3 conv has 10 sketches, so 16
  // spends ~460 trials before one sketch is left (32: ~930 of 1,000).
  static constexpr int64_t kDefaultFirstQuota = 16;

  explicit SketchBandit(int num_sketches, int64_t first_quota = kDefaultFirstQuota);

  // One measured program of `sketch`: its throughput, 0 when it failed.
  void Record(int sketch, double throughput);
  // Slots a sketch was given but could not fill (its evolution found
  // fewer new programs): they count towards its quota, so a sketch with a
  // small space does not hold the contest up.
  void Unused(int sketch, int64_t slots);
  // A sketch with nothing more to propose leaves the contest.
  void Exclude(int sketch);
  // How many of `slots` measurements each sketch gets (sums to `slots`
  // unless every sketch is excluded). Moves to the next rung when every
  // sketch still in the contest has its quota measured.
  std::vector<int> Allocate(int slots);

  int num_sketches() const { return static_cast<int>(arms_.size()); }
  int64_t measured(int sketch) const { return arms_[sketch].measured; }
  double best(int sketch) const { return arms_[sketch].best; }
  // Still in the contest (not halved away, not excluded).
  bool in_contest(int sketch) const { return arms_[sketch].in_contest; }
  int64_t quota() const { return quota_; }

  // "quota arms (measured unused best in_contest)..." on one line, for the
  // target's learned state (learned_search_state.h); Parse reads it back
  // (DATA_LOSS when it is not a bandit's).
  std::string Serialize() const;
  static absl::StatusOr<SketchBandit> Parse(absl::string_view text);

 private:
  struct Arm {
    int64_t measured = 0;
    int64_t unused = 0;
    double best = 0;
    bool in_contest = true;
  };
  void Halve();

  std::vector<Arm> arms_;
  int64_t quota_;
};

}  // namespace tuneforge::search
