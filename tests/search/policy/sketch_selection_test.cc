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
#include "tests/search/policy/policy_fixtures.h"
#include "tests/search/policy/reference_check.h"

namespace tuneforge::search {
namespace {

using testing::MustParse;
using testing::OneCore;
using testing::OneThreadXGBoost;

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

TEST(SketchBanditTest, ARoundGoesToTheSketchesFurthestBelowTheirQuota) {
  SketchBandit bandit(3, /*first_quota=*/32);
  for (int i = 0; i < 20; ++i) bandit.Record(0, 100);
  for (int i = 0; i < 4; ++i) bandit.Record(2, 50);
  // Sketch 1 lacks 32, sketch 2 28, sketch 0 12: whole shares, neediest first.
  EXPECT_EQ(bandit.Allocate(40), (std::vector<int>{0, 32, 8}));
  EXPECT_EQ(bandit.Allocate(70), (std::vector<int>{10, 32, 28}));
}

TEST(SketchBanditTest, TheFasterHalfGoesOnWithTwiceTheQuotaUntilOneIsLeft) {
  SketchBandit bandit(3, 32);
  for (int i = 0; i < 32; ++i) {
    bandit.Record(0, 100);
    bandit.Record(1, 85);
    bandit.Record(2, 20);
  }
  std::vector<int> slots = bandit.Allocate(64);
  EXPECT_EQ(bandit.quota(), 64);
  EXPECT_FALSE(bandit.in_contest(2));  // the slowest third is out
  EXPECT_EQ(slots, (std::vector<int>{32, 32, 0}));
  for (int i = 0; i < 32; ++i) {
    bandit.Record(0, 100);
    bandit.Record(1, 120);  // its evolutions overtook sketch 0
  }
  slots = bandit.Allocate(64);
  EXPECT_TRUE(bandit.in_contest(1));
  EXPECT_FALSE(bandit.in_contest(0));
  EXPECT_EQ(slots, (std::vector<int>{0, 64, 0}));  // the one left gets everything
}

TEST(SketchBanditTest, QuotasGivenButNotYetMeasuredGoToTheLeaderMeanwhile) {
  SketchBandit bandit(2, 8);
  for (int i = 0; i < 8; ++i) bandit.Record(0, 10);
  for (int i = 0; i < 2; ++i) bandit.Record(1, 30);
  EXPECT_EQ(bandit.Allocate(10), (std::vector<int>{0, 10}));  // 6 to fill, then the leader
  EXPECT_EQ(bandit.quota(), 8);                                // no halving on promises
}

TEST(SketchBanditTest, SlotsASketchCouldNotFillCountTowardsItsQuota) {
  SketchBandit bandit(2, 8);
  for (int i = 0; i < 8; ++i) bandit.Record(0, 10);
  for (int i = 0; i < 2; ++i) bandit.Record(1, 30);
  EXPECT_EQ(bandit.Allocate(6), (std::vector<int>{0, 6}));
  bandit.Record(1, 30);
  bandit.Unused(1, 5);  // it found one new program of the six
  EXPECT_EQ(bandit.Allocate(4), (std::vector<int>{0, 4}));  // halved: sketch 1 alone
  EXPECT_FALSE(bandit.in_contest(0));
}

TEST(SketchBanditTest, ExcludedSketchesGetNothing) {
  SketchBandit bandit(2);
  bandit.Exclude(1);
  EXPECT_EQ(bandit.Allocate(5), (std::vector<int>{5, 0}));
  bandit.Exclude(0);
  EXPECT_EQ(bandit.Allocate(5), (std::vector<int>{0, 0}));
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

// With learned selection every sketch gets evolutions and measurements of
// its own before the slower ones are dropped, and then the rounds go to the
// faster half only; every program is valid and new.
TEST(SketchPolicyTest, LearnedSelectionSearchesEverySketchThenTheFasterHalf) {
  te::Workload w = MustParse("conv2d:N=1,C=32,H=14,W=14,K=32,R=3,S=3,pad=1");
  std::shared_ptr<SharedCostModel> model = OneThreadXGBoost();
  SketchPolicyOptions options = testing::SmallAnsorOptions(1);
  options.eps_greedy = 0;
  options.sketch_selection = SketchSelection::kLearned;
  SketchPolicyStats stats;
  std::unique_ptr<SearchPolicy> policy = MakeSketchPolicy(w.dag, OneCore(), model, 11, options, &stats);
  absl::StatusOr<std::vector<Sketch>> generated = GenerateCpuSketches(w.dag, OneCore());
  ASSERT_TRUE(generated.ok()) << generated.status();
  std::vector<schedule::State> sketches;
  for (const Sketch& s : *generated) sketches.push_back(s.state);
  const int n = static_cast<int>(sketches.size());
  absl::flat_hash_set<uint64_t> proposed;
  std::vector<int> last_round(n, 0);
  // Enough rounds for every sketch's first quota, then one more.
  const int64_t quota = SketchBandit::kDefaultFirstQuota;
  const int rounds = static_cast<int>((quota * n + 63) / 64) + 2;
  for (int round = 0; round < rounds; ++round) {
    std::vector<std::vector<schedule::Step>> batch = policy->Propose(64);
    ASSERT_FALSE(batch.empty()) << "round " << round;
    std::fill(last_round.begin(), last_round.end(), 0);
    std::vector<MeasuredCandidate> results;
    for (const auto& steps : batch) {
      absl::StatusOr<schedule::State> s = schedule::State::Replay(w.dag, steps);
      ASSERT_TRUE(s.ok()) << s.status();
      EXPECT_TRUE(proposed.insert(s->Hash()).second) << "proposed twice";
      const int sketch = SketchIndexOf(steps, sketches);
      ASSERT_GE(sketch, 0);
      ++last_round[sketch];
      // Sketch k's programs "measure" slower as k grows.
      results.push_back({steps, true, 1e-3 * (1 + 0.1 * sketch)});
    }
    policy->Update(results);
  }
  EXPECT_EQ(testing::CheckAgainstReference(w, *schedule::State::Replay(w.dag, policy->Propose(1).at(0)), 3), "");
  for (int k = 0; k < n; ++k) {
    EXPECT_GT(stats.searches_per_sketch[k], 0) << "sketch " << k << " never had an evolution of its own";
    EXPECT_GE(stats.measured_per_sketch[k], quota) << "sketch " << k;
  }
  // The last round: none of it to the slower half.
  for (int k = (n + 1) / 2; k < n; ++k) EXPECT_EQ(last_round[k], 0) << ::testing::PrintToString(last_round);
  std::cout << "measured by sketch: " << ::testing::PrintToString(stats.measured_per_sketch) << "\n";
}

}  // namespace
}  // namespace tuneforge::search
