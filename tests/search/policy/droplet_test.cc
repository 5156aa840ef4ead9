// Droplet search: a program's parameter space (its knobs, the program at a
// point, the neighbours of a point) and the policy that descends in it after
// Ansor's first trials, moving only on significant wins.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <set>

#include "absl/container/flat_hash_set.h"
#include "search/annotation/annotation.h"
#include "search/droplet/droplet_policy.h"
#include "search/lowered_programs.h"
#include "search/droplet/program_space.h"
#include "search/sketch_generation.h"
#include "tests/search/policy/policy_fixtures.h"
#include "tests/search/policy/reference_check.h"

namespace tuneforge::search {
namespace {

using testing::MustParse;
using testing::OneCore;
using testing::OneThreadXGBoost;

HardwareParams FourCores() {
  HardwareParams hw = OneCore();
  hw.num_cores = 4;
  return hw;
}

// Annotated samples of every sketch of the workload.
std::vector<schedule::State> Samples(const te::Workload& w, const HardwareParams& hw, int per_sketch,
                                     uint64_t seed) {
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateCpuSketches(w.dag, hw);
  EXPECT_TRUE(sketches.ok()) << sketches.status();
  std::vector<schedule::State> out;
  Rng rng(seed);
  for (const Sketch& sketch : *sketches)
    for (int i = 0; i < per_sketch; ++i)
      if (absl::StatusOr<schedule::State> s = SampleInitState(sketch.state, hw, rng); s.ok())
        out.push_back(*std::move(s));
  return out;
}

TEST(ProgramSpaceTest, TheOriginIsTheProgramAndEachKnobSetsItsOwnStep) {
  te::Workload w = MustParse("conv2d:N=1,C=16,H=14,W=14,K=32,R=3,S=3,pad=1");
  std::set<KnobKind> kinds;
  int moved = 0;
  for (const schedule::State& program : Samples(w, FourCores(), 4, 5)) {
    ProgramSpace space = ProgramSpace::Of(program, FourCores());
    ASSERT_FALSE(space.knobs().empty());
    absl::StatusOr<schedule::State> origin = space.At(space.Origin());
    ASSERT_TRUE(origin.ok()) << origin.status();
    EXPECT_EQ(origin->Hash(), program.Hash());
    std::mt19937_64 rng(1);
    for (const SpacePoint& p : Neighbours(space, space.Origin(), 1, 2 * space.knobs().size(), rng)) {
      std::vector<size_t> changed;
      for (size_t k = 0; k < p.size(); ++k)
        if (p[k] != space.Origin()[k]) changed.push_back(k);
      if (changed.size() != 1) continue;
      const size_t knob = changed[0];
      absl::StatusOr<schedule::State> s = space.At(p);
      if (!s.ok()) continue;  // a split that no longer fits, say
      ++moved;
      kinds.insert(space.knobs()[knob].kind);
      for (size_t i = 0; i < program.steps().size(); ++i) {
        if (i == space.knobs()[knob].step) continue;
        EXPECT_EQ(schedule::StepToString(s->steps()[i]), schedule::StepToString(program.steps()[i]))
            << KnobKindName(space.knobs()[knob].kind) << " changed step " << i;
      }
      EXPECT_NE(s->Hash(), program.Hash());
    }
  }
  EXPECT_GT(moved, 100);
  EXPECT_TRUE(kinds.count(KnobKind::kSplitLength));
  EXPECT_TRUE(kinds.count(KnobKind::kAutoUnroll));
  EXPECT_TRUE(kinds.count(KnobKind::kParallelFuse));
  EXPECT_TRUE(kinds.count(KnobKind::kComputeAt));  // the padding's place
}

// A program whose tiles overrun their loops (the last of 43 tiles of 24
// columns ends at 1,032 of 1,024) is a point of its space too: its origin is
// the program, and moving a split's outer level over the divisors of its
// tile count (43: 1 or 43) gives programs that replay.
TEST(ProgramSpaceTest, AProgramWithOverrunningTilesIsItsOwnOrigin) {
  te::Workload w = MustParse("matmul:M=1024,N=1024,K=64");
  HardwareParams hw = FourCores();
  hw.overrun_tile_share = 1.0;
  int overrunning = 0, moved = 0;
  for (const schedule::State& program : Samples(w, hw, 2, 3)) {
    bool overruns = false;
    for (const schedule::Step& step : program.steps())
      if (const auto* split = std::get_if<schedule::SplitStep>(&step); split && split->lengths.size() > 1)
        overruns = overruns || 1024 % split->lengths.back() != 0;
    if (!overruns) continue;
    ++overrunning;
    ProgramSpace space = ProgramSpace::Of(program, hw);
    absl::StatusOr<schedule::State> origin = space.At(space.Origin());
    ASSERT_TRUE(origin.ok()) << origin.status() << "\n" << program.ToString();
    EXPECT_EQ(origin->Hash(), program.Hash());
    std::mt19937_64 rng(2);
    for (const SpacePoint& p : Neighbours(space, space.Origin(), 1, 2 * space.knobs().size(), rng))
      if (space.At(p).ok()) ++moved;
  }
  EXPECT_GT(overrunning, 0);
  EXPECT_GT(moved, overrunning);
}

TEST(ProgramSpaceTest, PointsOutsideTheSpaceOrBreakingASplitAreRefused) {
  te::Workload w = MustParse("matmul:M=64,N=64,K=64");
  schedule::State program = Samples(w, OneCore(), 1, 3).at(0);
  ProgramSpace space = ProgramSpace::Of(program, OneCore());
  SpacePoint p = space.Origin();
  EXPECT_FALSE(space.At(SpacePoint(p.size() + 1, 0)).ok());
  p[0] = space.knobs()[0].size();
  EXPECT_FALSE(space.At(p).ok());
  // Every length of a split at its largest: the product outgrows the loop.
  p = space.Origin();
  for (size_t k = 0; k < space.knobs().size(); ++k)
    if (space.knobs()[k].kind == KnobKind::kSplitLength) p[k] = space.knobs()[k].size() - 1;
  absl::StatusOr<schedule::State> s = space.At(p);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()), ::testing::HasSubstr("split"));
}

TEST(ProgramSpaceTest, NeighboursAreOneStepAlongSomeKnobsSingleMovesFirst) {
  te::Workload w = MustParse("matmul:M=64,N=64,K=64");
  schedule::State program = Samples(w, FourCores(), 1, 9).at(0);
  ProgramSpace space = ProgramSpace::Of(program, FourCores());
  const SpacePoint origin = space.Origin();
  const int n = static_cast<int>(origin.size());
  ASSERT_GE(n, 4);
  std::mt19937_64 rng(2);
  for (int step : {1, 2}) {
    std::vector<SpacePoint> points = Neighbours(space, origin, step, 200, rng);
    ASSERT_FALSE(points.empty());
    EXPECT_LE(points.size(), 200u);
    std::set<SpacePoint> distinct(points.begin(), points.end());
    EXPECT_EQ(distinct.size(), points.size());
    int singles = 0;
    bool several_seen = false;
    for (const SpacePoint& p : points) {
      int changed = 0;
      for (int k = 0; k < n; ++k) {
        EXPECT_TRUE(p[k] == origin[k] || std::abs(p[k] - origin[k]) == step);
        EXPECT_GE(p[k], 0);
        EXPECT_LT(p[k], space.knobs()[k].size());
        changed += p[k] != origin[k];
      }
      EXPECT_GE(changed, 1);
      if (changed == 1) {
        EXPECT_FALSE(several_seen) << "a single-knob move after a multi-knob one";
        ++singles;
      } else {
        several_seen = true;
      }
    }
    EXPECT_GE(singles, n / 2);
    EXPECT_TRUE(several_seen);
  }
  EXPECT_TRUE(Neighbours(space, origin, space.widest(), 50, rng).empty());  // no knob reaches that far
}

TEST(ProgramSpaceTest, NeighbourProgramsComputeWhatTheWorkloadDoes) {
  te::Workload w = MustParse("conv2d:N=1,C=8,H=8,W=8,K=16,R=3,S=3,pad=1");
  int checked = 0;
  for (const schedule::State& program : Samples(w, FourCores(), 1, 4)) {
    ProgramSpace space = ProgramSpace::Of(program, FourCores());
    std::mt19937_64 rng(3);
    for (const SpacePoint& p : Neighbours(space, space.Origin(), 1, 6, rng)) {
      absl::StatusOr<schedule::State> s = space.At(p);
      if (!s.ok()) continue;
      EXPECT_EQ(testing::CheckAgainstReference(w, *s, checked), "");
      ++checked;
    }
  }
  EXPECT_GT(checked, 10);
}

// A made-up device: a program is fastest (1 ms) when every split's innermost
// length is `best_length` (each factor of 2 away costs 20%); each repeat
// within `noise`.
MeasuredCandidate TimedByInnermostLength(const std::vector<schedule::Step>& steps, double noise,
                                         std::mt19937_64& rng, int64_t best_length = 4) {
  double penalty = 0;
  for (const schedule::Step& step : steps)
    if (const auto* split = std::get_if<schedule::SplitStep>(&step))
      penalty += std::abs(std::log2(static_cast<double>(split->lengths.back())) -
                          std::log2(static_cast<double>(best_length)));
  const double t = 1e-3 * (1 + 0.2 * penalty);
  std::normal_distribution<double> jitter(1, noise);
  std::vector<double> repeats;
  for (int i = 0; i < 3; ++i) repeats.push_back(t * jitter(rng));
  return {steps, true, repeats[1], repeats};
}

struct DropletRun {
  DropletStats stats;
  double best_at_descent = 0;
  double best = 0;
  int proposed_twice = 0;
  int same_code_twice = 0;  // other steps for code proposed before
};

DropletRun RunDroplet(const te::Workload& w, double noise, const DropletOptions& options, int rounds,
                      int64_t best_length = 4, const HardwareParams& hw = OneCore()) {
  DropletRun run;
  std::unique_ptr<SearchPolicy> policy =
      MakeDropletPolicy(w.dag, hw, OneThreadXGBoost(), 4, options, testing::SmallAnsorOptions(1), &run.stats);
  absl::flat_hash_set<uint64_t> proposed, code;
  std::mt19937_64 rng(8);
  for (int round = 0; round < rounds; ++round) {
    std::vector<std::vector<schedule::Step>> batch = policy->Propose(16);
    if (batch.empty()) break;
    if (run.stats.descents > 0 && run.best_at_descent == 0) run.best_at_descent = run.best;
    std::vector<MeasuredCandidate> results;
    for (const auto& steps : batch) {
      absl::StatusOr<schedule::State> s = schedule::State::Replay(w.dag, steps);
      EXPECT_TRUE(s.ok()) << s.status();
      if (!s.ok()) continue;
      run.proposed_twice += !proposed.insert(s->Hash()).second;
      run.same_code_twice += !code.insert(LoweredCodeHash(*s, false)).second;
      results.push_back(TimedByInnermostLength(steps, noise, rng, best_length));
      if (run.best == 0 || results.back().seconds < run.best) run.best = results.back().seconds;
    }
    policy->Update(results);
  }
  return run;
}

TEST(DropletPolicyTest, DescendsFromAnsorsBestToFasterNeighbours) {
  te::Workload w = MustParse("matmul:M=64,N=64,K=64");
  DropletOptions options;
  options.after = 32;
  DropletRun run = RunDroplet(w, 0.002, options, 10);
  EXPECT_EQ(run.proposed_twice, 0);
  EXPECT_EQ(run.same_code_twice, 0);
  // At least one descent; a space the descent exhausts early hands back to
  // Ansor's phase, whose next best starts another.
  EXPECT_GE(run.stats.descents, 1);
  EXPECT_GT(run.stats.knobs, 3);
  EXPECT_GT(run.stats.proposed, 0);
  std::cout << "droplet: moves " << run.stats.moves << " step " << run.stats.step << " knobs " << run.stats.knobs
            << " proposed " << run.stats.proposed << " best " << run.best << " at descent " << run.best_at_descent << "\n";
  EXPECT_GE(run.stats.moves, 1);
  EXPECT_LT(run.best, run.best_at_descent) << "the descent found nothing faster than Ansor's phase";
}

// The made-up device's optimum is known (every split's innermost length 16:
// 1 ms, rare among random samples); the surface is separable in the splits,
// so a descent that only moves (the Ansor phase does not come back: stop
// when exhausted) reaches it from wherever Ansor's phase left its best, each
// move a significant win. The surface scores tiles that divide their loops:
// the samples here are drawn among those only (no overrunning tiles).
TEST(DropletPolicyTest, TheDescentReachesTheKnownOptimumOfASyntheticSurface) {
  te::Workload w = MustParse("matmul:M=128,N=128,K=128");
  DropletOptions options;
  options.after = 16;
  options.stop_when_exhausted = true;
  HardwareParams dividing = OneCore();
  dividing.overrun_tile_share = 0;
  DropletRun run = RunDroplet(w, 0.002, options, 80, /*best_length=*/16, dividing);
  ASSERT_GE(run.stats.descents, 1);
  EXPECT_GT(run.best_at_descent, 1.3e-3) << "Ansor's phase came close to the optimum: too little left to descend";
  EXPECT_GE(run.stats.moves, 2);
  std::cout << "descent from " << run.best_at_descent << " s: moves " << run.stats.moves << " proposed "
            << run.stats.proposed << " best " << run.best << " s\n";
  // The next-best programs cost 1.2 ms; 1 ms within the repeats' noise is the optimum.
  EXPECT_LT(run.best, 1.01e-3) << "the descent stopped at " << run.best << " s after " << run.stats.moves
                               << " moves, not at the optimum (1 ms)";
}

// One round of 16 proposals that all "measure" alike: three repeats each
// drawn from `jitter`.
void RoundOfTies(SearchPolicy& policy, std::normal_distribution<double>& jitter, std::mt19937_64& rng) {
  std::vector<MeasuredCandidate> results;
  for (const auto& steps : policy.Propose(16)) {
    std::vector<double> repeats = {jitter(rng), jitter(rng), jitter(rng)};
    results.push_back({steps, true, repeats[1], repeats});
  }
  policy.Update(results);
}

TEST(DropletPolicyTest, NoiseAloneDoesNotMoveTheCenter) {
  te::Workload w = MustParse("matmul:M=64,N=64,K=64");
  DropletOptions options;
  options.after = 32;
  // Every program equally fast, each repeat 5% noisy.
  DropletStats stats;
  std::unique_ptr<SearchPolicy> policy =
      MakeDropletPolicy(w.dag, OneCore(), OneThreadXGBoost(), 4, options, testing::SmallAnsorOptions(1), &stats);
  std::mt19937_64 rng(5);
  std::normal_distribution<double> jitter(1e-3, 5e-5);
  for (int round = 0; round < 8; ++round) RoundOfTies(*policy, jitter, rng);
  EXPECT_EQ(stats.descents, 1);
  EXPECT_GT(stats.proposed, 0);
  // Six rounds of 16 ties, each round at most a 5% chance of a false move.
  EXPECT_LE(stats.moves, 1) << "ties between equally fast programs moved the descent";
}

TEST(DropletPolicyTest, AnExhaustedDescentStopsWhenAskedOrReturnsToAnsor) {
  te::Workload w = MustParse("matmul:M=8,N=8,K=8");
  for (bool stop : {true, false}) {
    DropletOptions options;
    options.after = 16;
    options.stop_when_exhausted = stop;
    DropletStats stats;
    std::unique_ptr<SearchPolicy> policy =
        MakeDropletPolicy(w.dag, OneCore(), OneThreadXGBoost(), 6, options, testing::SmallAnsorOptions(1), &stats);
    std::mt19937_64 rng(1);
    std::normal_distribution<double> jitter(1e-3, 5e-5);
    for (int round = 0; round < 60 && !stats.exhausted; ++round) RoundOfTies(*policy, jitter, rng);
    ASSERT_TRUE(stats.exhausted) << "stop " << stop;
    EXPECT_FALSE(stats.descending);
    EXPECT_EQ(stats.descents, 1);
    // Stopped: nothing more; else Ansor's search proposes again.
    EXPECT_EQ(policy->Propose(16).empty(), stop) << "stop " << stop;
  }
}

// A later job's droplet policy goes on from an earlier job's trials
// (ContinueFrom): with the Ansor phase's trials spent there, its first round
// descends from the earlier best.
TEST(DropletPolicyTest, ALaterJobDescendsFromTheEarlierBest) {
  te::Workload w = MustParse("matmul:M=64,N=64,K=64");
  DropletOptions options;
  options.after = 32;
  std::shared_ptr<SharedCostModel> model = OneThreadXGBoost();  // the target's, shared by both jobs
  std::unique_ptr<SearchPolicy> earlier =
      MakeDropletPolicy(w.dag, OneCore(), model, 4, options, testing::SmallAnsorOptions(1));
  std::mt19937_64 rng(3);
  std::vector<std::vector<schedule::Step>> measured;
  std::vector<MeasuredCandidate> results;
  for (int round = 0; round < 2; ++round) {
    std::vector<MeasuredCandidate> batch;
    for (const auto& steps : earlier->Propose(16)) {
      batch.push_back(TimedByInnermostLength(steps, 0.002, rng));
      measured.push_back(steps);
    }
    earlier->Update(batch);
    results.insert(results.end(), batch.begin(), batch.end());
  }
  ASSERT_EQ(measured.size(), 32u);
  std::sort(results.begin(), results.end(), [](const auto& a, const auto& b) { return a.seconds < b.seconds; });

  DropletStats stats;
  std::unique_ptr<SearchPolicy> later =
      MakeDropletPolicy(w.dag, OneCore(), model, 5, options, testing::SmallAnsorOptions(1), &stats);
  later->MarkMeasured(measured);
  later->ContinueFrom({results.begin(), results.begin() + 4});
  std::vector<std::vector<schedule::Step>> first = later->Propose(16);
  EXPECT_EQ(stats.descents, 1) << "the earlier trials were the Ansor phase";
  EXPECT_EQ(stats.proposed, static_cast<int64_t>(first.size()));
  EXPECT_FALSE(first.empty());
}

}  // namespace
}  // namespace tuneforge::search
