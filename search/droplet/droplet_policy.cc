#include "search/droplet/droplet_policy.h"

#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "search/droplet/neighbours.h"
#include "search/droplet/program_space.h"
#include "search/droplet/significance.h"

namespace tuneforge::search {
namespace {

struct Timed {
  schedule::State state;
  double seconds = 0;
  std::vector<double> repeats;
};

// Droplet's first phase is Ansor's search as published: the ansor policy's
// own exploitation of its best (best_neighbour_share) would take the
// descent's part.
SketchPolicyOptions AnsorPhase(SketchPolicyOptions options) {
  options.best_neighbour_share = 0;
  return options;
}

class DropletPolicy : public SearchPolicy {
 public:
  DropletPolicy(te::ComputeDagPtr dag, const HardwareParams& hw, std::shared_ptr<SharedCostModel> model,
                uint64_t seed, const DropletOptions& options, const SketchPolicyOptions& ansor,
                DropletStats* stats)
      : dag_(dag), hw_(hw), model_(model), rng_(seed ^ 0x9e3779b97f4a7c15ULL), options_(options),
        stats_(stats ? stats : &own_stats_),
        programs_(std::make_shared<LoweredPrograms>(hw.gpu, /*skip_scattering=*/true)),
        ansor_(MakeSketchPolicy(std::move(dag), hw, std::move(model), seed, AnsorPhase(ansor), nullptr, programs_)) {}

  std::vector<std::vector<schedule::Step>> Propose(int n) override {
    if (n <= 0) return {};
    // The descent starts after Ansor's share, and again from any program
    // the fallback finds faster than the last center (not from a neighbour
    // that was faster by noise only).
    if (!descending_ && measured_ >= options_.after && ansor_best_ &&
        (!center_ || ansor_best_->seconds < center_->seconds) && !(exhausted_ && options_.stop_when_exhausted))
      StartDescent(*ansor_best_);
    if (!descending_) {
      if (exhausted_ && options_.stop_when_exhausted) return {};
      std::vector<std::vector<schedule::Step>> out = ansor_->Propose(n);
      for (const auto& steps : out) seen_.insert(schedule::HashSteps(steps));
      return out;
    }
    // Coordinate moves first (every one, while they fit in n), then the
    // model's best moves of several knobs.
    std::vector<schedule::State> ranked;
    for (;;) {
      NeighbourPrograms fresh = StepNeighbours();
      ranked = NewCode(Ranked(std::move(fresh.single)), n);
      if (const int left = n - static_cast<int>(ranked.size()); left > 0)
        for (schedule::State& s : NewCode(Ranked(std::move(fresh.several)), left))
          ranked.push_back(std::move(s));
      if (!ranked.empty()) break;
      if (!GrowStep()) return Propose(n);  // exhausted: Ansor again, or nothing
    }
    std::vector<std::vector<schedule::Step>> out;
    for (schedule::State& s : ranked) {
      seen_.insert(s.Hash());
      out.push_back(s.steps());
    }
    ansor_->MarkMeasured(out);  // never proposed again by the fallback either
    stats_->proposed += static_cast<int64_t>(out.size());
    return out;
  }

  void Update(const std::vector<MeasuredCandidate>& results) override {
    ansor_->Update(results);
    std::vector<Timed> faster;  // than the center, by their medians
    for (const MeasuredCandidate& r : results) {
      ++measured_;
      seen_.insert(schedule::HashSteps(r.steps));
      if (!r.ok || r.seconds <= 0) continue;
      // Only a new best of Ansor's search or a neighbour faster than the
      // center is kept, so only those are replayed.
      const bool ansor_best = !descending_ && (!ansor_best_ || r.seconds < ansor_best_->seconds);
      const bool beats_center = descending_ && r.seconds < center_->seconds;
      if (!ansor_best && !beats_center) continue;
      absl::StatusOr<schedule::State> s = schedule::State::Replay(dag_, r.steps);
      if (!s.ok()) continue;
      Timed t{*std::move(s), r.seconds, r.repeat_seconds};
      if (ansor_best) ansor_best_ = std::move(t);
      else faster.push_back(std::move(t));
    }
    // Many neighbours are tested at once: at p <= 0.05 each, one of 64
    // equally fast ones would "win" on noise most rounds. Bonferroni keeps
    // the round's chance of a false move at p_value.
    std::optional<Timed> winner;
    const double threshold = options_.p_value / static_cast<double>(std::max<size_t>(1, faster.size()));
    for (Timed& t : faster)
      if (WelchFasterPValue(center_->repeats, t.repeats) <= threshold && (!winner || t.seconds < winner->seconds))
        winner = std::move(t);
    if (!descending_ || !proposed_at_step_) return;
    proposed_at_step_ = false;
    if (winner) {
      ++stats_->moves;
      Center(*std::move(winner));
    } else {
      GrowStep();
    }
  }

  void MarkMeasured(const std::vector<std::vector<schedule::Step>>& schedules) override {
    ansor_->MarkMeasured(schedules);
    for (const auto& steps : schedules) seen_.insert(schedule::HashSteps(steps));
    measured_ += static_cast<int64_t>(schedules.size());
  }

  // Its Ansor phase goes on from them, and the descent from the fastest
  // once the phase's trials (earlier ones count, MarkMeasured) are spent.
  void ContinueFrom(const std::vector<MeasuredCandidate>& fastest_earlier) override {
    ansor_->ContinueFrom(fastest_earlier);
    for (const MeasuredCandidate& r : fastest_earlier) {
      if (!r.ok || r.seconds <= 0 || (ansor_best_ && ansor_best_->seconds <= r.seconds)) continue;
      absl::StatusOr<schedule::State> s = schedule::State::Replay(dag_, r.steps);
      if (s.ok()) ansor_best_ = Timed{*std::move(s), r.seconds, r.repeat_seconds};
    }
  }

  int64_t ProgramsScoredLastPropose() const override {
    return descending_ ? scored_last_ : ansor_->ProgramsScoredLastPropose();
  }

 private:
  void StartDescent(const Timed& from) {
    ++stats_->descents;
    descending_ = true;
    exhausted_ = false;
    stats_->descending = true;
    stats_->exhausted = false;
    Center(from);
  }

  void Center(Timed program) {
    center_ = std::move(program);
    space_ = ProgramSpace::Of(center_->state, hw_);
    point_ = space_->Origin();
    step_ = 1;
    stats_->step = step_;
    stats_->knobs = static_cast<int>(space_->knobs().size());
  }

  // The next step out; false (and the descent ends) when no knob reaches
  // that far.
  bool GrowStep() {
    ++step_;
    stats_->step = step_;
    if (step_ < space_->widest()) return true;
    descending_ = false;
    exhausted_ = true;
    stats_->descending = false;
    stats_->exhausted = true;
    return false;
  }

  // Neighbours at the current step that replay and were never proposed.
  NeighbourPrograms StepNeighbours() {
    proposed_at_step_ = true;
    return FreshNeighbours(*space_, point_, step_, options_.neighbour_limit, hw_, seen_, rng_);
  }

  // The first `n` whose code was never proposed (a knob the code does not
  // depend on, like the unroll pragma of a precomputed constant stage, moves
  // to a copy of the center) and does not scatter (lowered_programs.h);
  // the others are never generated again.
  std::vector<schedule::State> NewCode(std::vector<schedule::State> states, int n) {
    std::vector<schedule::State> out;
    for (schedule::State& s : states) {
      if (static_cast<int>(out.size()) >= n) break;
      if (programs_->Add(s)) {
        out.push_back(std::move(s));
      } else {
        seen_.insert(s.Hash());
        ++stats_->copies;
      }
    }
    return out;
  }

  std::vector<schedule::State> Ranked(std::vector<schedule::State> states) {
    if (states.empty()) return {};
    return RankByModel(std::move(states), *model_, &scored_last_);
  }

  te::ComputeDagPtr dag_;
  HardwareParams hw_;
  std::shared_ptr<SharedCostModel> model_;
  std::mt19937_64 rng_;
  DropletOptions options_;
  DropletStats own_stats_;
  DropletStats* stats_;
  std::shared_ptr<LoweredPrograms> programs_;  // shared with ansor_: one set of code proposed
  std::unique_ptr<SearchPolicy> ansor_;
  absl::flat_hash_set<uint64_t> seen_;
  int64_t measured_ = 0;
  std::optional<Timed> ansor_best_;  // the fastest that Ansor's search proposed
  bool descending_ = false;
  bool exhausted_ = false;
  bool proposed_at_step_ = false;  // the current step's neighbours await their results
  std::optional<Timed> center_;
  std::optional<ProgramSpace> space_;  // of center_
  SpacePoint point_;
  int step_ = 1;
  int64_t scored_last_ = 0;  // neighbours the model ranked in the last descent round
};

}  // namespace

std::unique_ptr<SearchPolicy> MakeDropletPolicy(te::ComputeDagPtr dag, const HardwareParams& hw,
                                                std::shared_ptr<SharedCostModel> model, uint64_t seed,
                                                const DropletOptions& options, const SketchPolicyOptions& ansor,
                                                DropletStats* stats) {
  return std::make_unique<DropletPolicy>(std::move(dag), hw, std::move(model), seed, options, ansor, stats);
}

}  // namespace tuneforge::search
