// Learned sketch selection: the bandit's shares, telling a program's sketch
// from its steps, and the ansor policy spreading rounds over sketches with it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iostream>
#include <numeric>

#include "search/annotation/annotation.h"
#include "search/mutations/mutations.h"
#include "search/sketch_generation.h"
#include "search/sketch_policy.h"
#include "search/sketch_selection/sketch_bandit.h"
#include "search/sketch_selection/sketch_of.h"
#include "search/sketch_selection/sketch_selection.h"
#include "tests/search/policy/reference_check.h"

namespace tuneforge::search {
namespace {

using testing::MustParse;

HardwareParams OneCore() {
  HardwareParams hw;
  hw.num_cores = 1;
  hw.vector_lanes = 16;
  hw.auto_unroll_configs = {0, 16, 64};
  return hw;
}

int Sum(const std::vector<int>& v) { return std::accumulate(v.begin(), v.end(), 0); }

TEST(SketchSelectionTest, ParsesItsNamesAndListsThemOnError) {
  EXPECT_EQ(*ParseSketchSelection(""), SketchSelection::kUniform);
  EXPECT_EQ(*ParseSketchSelection("uniform"), SketchSelection::kUniform);
  EXPECT_EQ(*ParseSketchSelection("learned"), SketchSelection::kLearned);
  absl::StatusOr<SketchSelection> bad = ParseSketchSelection("bandit");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), ::testing::HasSubstr("'bandit'"));
  EXPECT_THAT(std::string(bad.status().message()), ::testing::HasSubstr("uniform"));
  EXPECT_THAT(std::string(bad.status().message()), ::testing::HasSubstr("learned"));
  EXPECT_STREQ(SketchSelectionName(SketchSelection::kLearned), "learned");
}

TEST(SketchBanditTest, SketchesNeverMeasuredComeFirst) {
  SketchBandit bandit(3);
  for (int i = 0; i < 20; ++i) bandit.Record(0, 100);
  std::vector<int> slots = bandit.Allocate(2);
  EXPECT_EQ(slots, (std::vector<int>{0, 1, 1}));
}

TEST(SketchBanditTest, ARoundIsSharedByTheSketchesWithinReachOfTheLeader) {
  // After a random first round: 13 programs each, bests 100 / 85 / 20.
  SketchBandit bandit(3);
  for (int i = 0; i < 13; ++i) {
    bandit.Record(0, i == 0 ? 100 : 10);
    bandit.Record(1, i == 0 ? 85 : 10);
    bandit.Record(2, i == 0 ? 20 : 10);
  }
  std::vector<int> slots = bandit.Allocate(60);
  EXPECT_EQ(Sum(slots), 60);
  EXPECT_GT(slots[0], slots[1]);  // the leader most
  EXPECT_GE(slots[1], 10);        // the close second gets an evolution of its own
  EXPECT_LT(slots[2], slots[1]);  // the one far behind least
}

TEST(SketchBanditTest, TheLeaderTakesMostOnceTheOthersHaveBeenSearched) {
  SketchBandit bandit(3);
  for (int i = 0; i < 600; ++i) bandit.Record(0, 300);
  for (int i = 0; i < 100; ++i) bandit.Record(1, 200);
  for (int i = 0; i < 100; ++i) bandit.Record(2, 100);
  std::vector<int> slots = bandit.Allocate(64);
  EXPECT_EQ(Sum(slots), 64);
  EXPECT_GT(slots[0], 48);
  EXPECT_EQ(slots[2], 0);
}

TEST(SketchBanditTest, ExcludedSketchesGetNothing) {
  SketchBandit bandit(2);
  bandit.Exclude(1);
  EXPECT_EQ(bandit.Allocate(5), (std::vector<int>{5, 0}));
  bandit.Exclude(0);
  EXPECT_EQ(Sum(bandit.Allocate(5)), 0);
  bandit.Record(7, 1);  // out of range: ignored
  EXPECT_EQ(bandit.measured(0), 0);
}

TEST(SketchOfTest, SamplesAndTheirMutantsAreTracedToTheirSketch) {
  te::Workload w = MustParse("conv2d:N=1,C=32,H=14,W=14,K=32,R=3,S=3,pad=1");
  HardwareParams hw = OneCore();
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateCpuSketches(w.dag, hw);
  ASSERT_TRUE(sketches.ok()) << sketches.status();
  std::vector<schedule::State> states;
  for (const Sketch& s : *sketches) states.push_back(s.state);
  ASSERT_GE(states.size(), 3u);
  Rng rng(7);
  int mutants = 0;
  for (size_t k = 0; k < states.size(); ++k) {
    EXPECT_EQ(SketchIndexOf(states[k].steps(), states), static_cast<int>(k));
    for (int i = 0; i < 10; ++i) {
      absl::StatusOr<schedule::State> sample = SampleInitState(states[k], hw, rng);
      ASSERT_TRUE(sample.ok()) << sample.status();
      EXPECT_EQ(SketchIndexOf(sample->steps(), states), static_cast<int>(k)) << "sketch " << k;
      for (int kind = 0; kind < 4; ++kind) {
        absl::StatusOr<schedule::State> child = Mutate(static_cast<MutationKind>(kind), *sample, hw, rng);
        if (!child.ok()) continue;
        ++mutants;
        EXPECT_EQ(SketchIndexOf(child->steps(), states), static_cast<int>(k)) << "sketch " << k << " kind " << kind;
      }
    }
  }
  EXPECT_GT(mutants, 50);
  // Steps of no sketch: none.
  EXPECT_EQ(SketchIndexOf({}, states), -1);
}

// With learned selection, the rounds after the first keep measuring evolved
// programs of more than one sketch even when one sketch's first samples
// measured far better, and every program is valid and new.
TEST(SketchPolicyTest, LearnedSelectionSearchesSeveralSketchesPerRound) {
  te::Workload w = MustParse("conv2d:N=1,C=32,H=14,W=14,K=32,R=3,S=3,pad=1");
  auto model = std::make_shared<SharedCostModel>([] {
    XGBoostParams p;
    p.threads = 1;
    return MakeXGBoostModel(p);
  });
  SketchPolicyOptions options;
  options.init_population = 64;
  options.evolution.population = 128;
  options.evolution.generations = 1;
  options.sketch_selection = SketchSelection::kLearned;
  SketchPolicyStats stats;
  std::unique_ptr<SearchPolicy> policy = MakeSketchPolicy(w.dag, OneCore(), model, 11, options, &stats);
  absl::StatusOr<std::vector<Sketch>> generated = GenerateCpuSketches(w.dag, OneCore());
  ASSERT_TRUE(generated.ok()) << generated.status();
  std::vector<schedule::State> sketches;
  for (const Sketch& s : *generated) sketches.push_back(s.state);
  absl::flat_hash_set<uint64_t> proposed;
  std::vector<int> per_sketch_round2(sketches.size(), 0);
  for (int round = 0; round < 2; ++round) {
    std::vector<std::vector<schedule::Step>> batch = policy->Propose(32);
    ASSERT_EQ(batch.size(), 32u) << "round " << round;
    std::vector<MeasuredCandidate> results;
    for (const auto& steps : batch) {
      absl::StatusOr<schedule::State> s = schedule::State::Replay(w.dag, steps);
      ASSERT_TRUE(s.ok()) << s.status();
      EXPECT_TRUE(proposed.insert(s->Hash()).second) << "proposed twice";
      const int sketch = SketchIndexOf(steps, sketches);
      ASSERT_GE(sketch, 0);
      if (round == 1) ++per_sketch_round2[sketch];
      // Sketch 0's programs "measure" fastest, the others within reach.
      results.push_back({steps, true, sketch == 0 ? 1.0e-3 : 1.25e-3});
    }
    policy->Update(results);
  }
  EXPECT_EQ(testing::CheckAgainstReference(w, *schedule::State::Replay(w.dag, policy->Propose(1).at(0)), 3), "");
  // Round 2 evolved several sketches apart and measured their programs
  // (Ansor's one evolution over all of them runs no search of one sketch).
  int sketches_searched = 0;
  for (size_t k = 0; k < sketches.size(); ++k) {
    if (stats.searches_per_sketch[k] == 0) continue;
    ++sketches_searched;
    EXPECT_GE(per_sketch_round2[k], 1) << "sketch " << k << " was searched but none of it proposed";
  }
  EXPECT_GE(sketches_searched, 2) << ::testing::PrintToString(per_sketch_round2);
  std::cout << "round 2 by sketch: " << ::testing::PrintToString(per_sketch_round2) << "\n";
  EXPECT_GT(per_sketch_round2[0], 32 / static_cast<int>(sketches.size()));  // the leader most
  EXPECT_EQ(std::accumulate(stats.measured_per_sketch.begin(), stats.measured_per_sketch.end(), int64_t{0}), 64);
}

}  // namespace
}  // namespace tuneforge::search
