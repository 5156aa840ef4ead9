#include "search/sketch_selection/sketch_bandit.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace tuneforge::search {

SketchBandit::SketchBandit(int num_sketches, int64_t first_quota)
    : arms_(static_cast<size_t>(std::max(0, num_sketches))), quota_(std::max<int64_t>(1, first_quota)) {}

void SketchBandit::Record(int sketch, double throughput) {
  if (sketch < 0 || sketch >= num_sketches()) return;
  Arm& arm = arms_[sketch];
  ++arm.measured;
  if (throughput > arm.best) arm.best = throughput;
}

void SketchBandit::Unused(int sketch, int64_t slots) {
  if (sketch >= 0 && sketch < num_sketches() && slots > 0) arms_[sketch].unused += slots;
}

void SketchBandit::Exclude(int sketch) {
  if (sketch >= 0 && sketch < num_sketches()) arms_[sketch].in_contest = false;
}

// The better half (rounded up) of the sketches in the contest stays, with
// twice the quota.
void SketchBandit::Halve() {
  std::vector<int> contest;
  for (int s = 0; s < num_sketches(); ++s)
    if (arms_[s].in_contest) contest.push_back(s);
  std::stable_sort(contest.begin(), contest.end(), [&](int a, int b) { return arms_[a].best > arms_[b].best; });
  for (size_t i = (contest.size() + 1) / 2; i < contest.size(); ++i) arms_[contest[i]].in_contest = false;
  quota_ *= 2;
}

std::vector<int> SketchBandit::Allocate(int slots) {
  std::vector<int> given(arms_.size(), 0);
  for (int left = slots; left > 0;) {
    int contest = 0, leader = -1, neediest = -1;
    int64_t deficit = 0;
    bool all_measured = true;
    for (int s = 0; s < num_sketches(); ++s) {
      const Arm& arm = arms_[s];
      if (!arm.in_contest) continue;
      ++contest;
      if (leader < 0 || arm.best > arms_[leader].best) leader = s;
      const int64_t done = arm.measured + arm.unused;
      all_measured = all_measured && done >= quota_;
      const int64_t need = quota_ - done - given[s];
      if (need > deficit) {
        deficit = need;
        neediest = s;
      }
    }
    if (contest == 0) break;
    if (contest == 1) {
      given[leader] += left;
      break;
    }
    if (neediest >= 0) {  // a whole round to one sketch: an evolution of its own
      const int give = static_cast<int>(std::min<int64_t>(deficit, left));
      given[neediest] += give;
      left -= give;
    } else if (all_measured) {
      Halve();
    } else {  // quotas given but not all measured yet: the leader meanwhile
      given[leader] += left;
      break;
    }
  }
  return given;
}

std::string SketchBandit::Serialize() const {
  std::string out = absl::StrCat(quota_, " ", arms_.size());
  for (const Arm& arm : arms_)
    absl::StrAppend(&out, " ", arm.measured, " ", arm.unused, " ", absl::StrFormat("%.17g", arm.best), " ",
                    arm.in_contest ? 1 : 0);
  return out;
}

absl::StatusOr<SketchBandit> SketchBandit::Parse(absl::string_view text) {
  std::vector<absl::string_view> tokens = absl::StrSplit(text, ' ', absl::SkipEmpty());
  int64_t quota = 0, arms = 0;
  if (tokens.size() < 2 || !absl::SimpleAtoi(tokens[0], &quota) || !absl::SimpleAtoi(tokens[1], &arms) ||
      quota < 1 || arms < 0 || tokens.size() != 2 + 4 * static_cast<size_t>(arms))
    return absl::DataLossError(absl::StrCat("sketch bandit: '", text.substr(0, 40),
                                            "' is not 'quota arms' and four numbers per arm"));
  SketchBandit bandit(static_cast<int>(arms), quota);
  for (int64_t a = 0; a < arms; ++a) {
    Arm& arm = bandit.arms_[a];
    int contest = 0;
    const absl::string_view* t = &tokens[2 + 4 * a];
    if (!absl::SimpleAtoi(t[0], &arm.measured) || !absl::SimpleAtoi(t[1], &arm.unused) ||
        !absl::SimpleAtod(t[2], &arm.best) || !absl::SimpleAtoi(t[3], &contest) || arm.measured < 0 ||
        arm.unused < 0 || !std::isfinite(arm.best) || arm.best < 0 || (contest != 0 && contest != 1))
      return absl::DataLossError(absl::StrCat("sketch bandit: arm ", a, " is not 'measured unused best 0|1'"));
    arm.in_contest = contest == 1;
  }
  return bandit;
}

}  // namespace tuneforge::search
