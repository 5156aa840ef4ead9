// The learned sketch selection's bandit: how many of a round's measurements
// each sketch of a workload gets. Its arms are the sketches; a sketch's value
// is its best measured speed over the best of all sketches (in [0, 1]), and
// each measurement goes to the highest upper confidence bound (UCB1):
//
//   value(s) + exploration * sqrt(ln(measured in all) / measured of s)
//
// The value is the best, not the mean, because tuning keeps only the best
// program: a sketch that produced one fast program among many slow ones is
// worth searching. A sketch never measured comes first. Two 1,000-trial
// tunings of one conv spent 912 and 934 trials on the sketch that led after
// its first dozen random samples (a different one each time, ending 30%
// apart); with the bonus, every sketch within reach of the leader gets
// evolved programs measured before it is left behind.
#pragma once

#include <cstdint>
#include <vector>

namespace tuneforge::search {

class SketchBandit {
 public:
  // 1.0 spreads the second round over the sketches within ~30% of the
  // leader and leaves it most of each later round.
  static constexpr double kDefaultExploration = 1.0;

  explicit SketchBandit(int num_sketches, double exploration = kDefaultExploration);

  // One measured program of `sketch`: its throughput, 0 when it failed.
  void Record(int sketch, double throughput);
  // A sketch that cannot produce programs gets no more measurements.
  void Exclude(int sketch);
  // How many of `slots` measurements each sketch gets (sums to `slots`
  // unless every sketch is excluded).
  std::vector<int> Allocate(int slots) const;

  int num_sketches() const { return static_cast<int>(arms_.size()); }
  int64_t measured(int sketch) const { return arms_[sketch].measured; }
  double best(int sketch) const { return arms_[sketch].best; }

 private:
  struct Arm {
    int64_t measured = 0;
    double best = 0;
    bool excluded = false;
  };
  std::vector<Arm> arms_;
  double exploration_;
};

}  // namespace tuneforge::search
