// Crossover: a child takes each stage's steps from one of two parents of the
// same sketch. Parents of one sketch have step lists of the same shape (the
// same kinds on the same stages, differing in lengths, locations and
// annotation counts), so steps can be exchanged position by position.
#include "search/mutations/mutations.h"

namespace tuneforge::search {

absl::StatusOr<schedule::State> Crossover(const schedule::State& a, const schedule::State& b,
                                          const std::function<bool(int stage)>& take_from_b) {
  const auto& sa = a.steps();
  const auto& sb = b.steps();
  if (sa.size() != sb.size()) return absl::InvalidArgumentError("parents have different step counts");
  std::vector<schedule::Step> child;
  child.reserve(sa.size());
  for (size_t i = 0; i < sa.size(); ++i) {
    if (sa[i].index() != sb[i].index() || schedule::StepStage(sa[i]) != schedule::StepStage(sb[i]))
      return absl::InvalidArgumentError("parents are not of the same sketch");
    child.push_back(take_from_b(schedule::StepStage(sa[i])) ? sb[i] : sa[i]);
  }
  return schedule::State::Replay(a.original_dag(), child);
}

}  // namespace tuneforge::search
