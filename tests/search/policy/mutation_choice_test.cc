// Learned mutation choice: the predictor learns which rule pays for which
// program, its state is saved and read back with the rest of the target's
// learned state, and the ansor policy breeds by it and teaches it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <iostream>
#include <random>

#include "search/learned_search_state.h"
#include "search/mutation_choice/mutation_choice.h"
#include "search/mutation_choice/mutation_predictor.h"
#include "search/sketch_generation.h"
#include "search/sketch_policy.h"
#include "search/sketch_selection/sketch_of.h"
#include "tests/search/policy/policy_fixtures.h"
#include "tests/search/policy/reference_check.h"

namespace tuneforge::search {
namespace {

using ::testing::HasSubstr;
using testing::MustParse;
using testing::OneCore;
using testing::OneThreadXGBoost;

constexpr int kDims = 6;
const std::vector<double> kFixed = {0.6, 0.15, 0.15, 0.1};

std::vector<float> RandomSummary(std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0, 1);
  std::vector<float> x(kDims);
  for (float& v : x) v = normal(rng);
  x[5] = 3;  // a constant feature: it must not disturb the standardization
  return x;
}

// The planted rule: tile size pays when feature 2 is positive, parallel when
// it is not, auto-unroll one time in ten whatever the program, compute
// location never.
bool PlantedImproves(const std::vector<float>& x, MutationKind kind, std::mt19937_64& rng) {
  switch (kind) {
    case MutationKind::kTileSize: return x[2] > 0;
    case MutationKind::kParallel: return x[2] <= 0;
    case MutationKind::kAutoUnroll: return std::uniform_real_distribution<double>(0, 1)(rng) < 0.1;
    case MutationKind::kComputeLocation: return false;
  }
  return false;
}

MutationPredictor TrainedOnPlantedRule(int outcomes_per_rule, uint64_t seed) {
  std::mt19937_64 rng(seed);
  MutationPredictor predictor;
  std::vector<MutationOutcome> outcomes;
  for (int i = 0; i < outcomes_per_rule; ++i)
    for (int k = 0; k < kNumMutationKinds; ++k) {
      std::vector<float> x = RandomSummary(rng);
      const auto kind = static_cast<MutationKind>(k);
      outcomes.push_back({x, kind, PlantedImproves(x, kind, rng)});
    }
  predictor.Learn(outcomes);
  return predictor;
}

TEST(MutationChoiceTest, ParsesItsNamesAndListsThemOnError) {
  EXPECT_EQ(*ParseMutationChoice(""), MutationChoice::kFixed);
  EXPECT_EQ(*ParseMutationChoice("fixed"), MutationChoice::kFixed);
  EXPECT_EQ(*ParseMutationChoice("learned"), MutationChoice::kLearned);
  absl::StatusOr<MutationChoice> bad = ParseMutationChoice("q-learning");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("'q-learning'"));
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("fixed (Ansor's weights, the default), learned"));
  EXPECT_STREQ(MutationChoiceName(MutationChoice::kLearned), "learned");
}

TEST(MutationPredictorTest, UntilEveryRuleHasOutcomesItKeepsTheFixedWeights) {
  MutationPredictor predictor = TrainedOnPlantedRule(MutationPredictor::kMinOutcomesPerRule - 1, 1);
  EXPECT_FALSE(predictor.ready());
  std::mt19937_64 rng(2);
  std::array<double, kNumMutationKinds> w = predictor.ChoiceWeights(RandomSummary(rng), kFixed);
  for (int k = 0; k < kNumMutationKinds; ++k) EXPECT_DOUBLE_EQ(w[k], kFixed[k]) << "rule " << k;
}

TEST(MutationPredictorTest, LearnsAPlantedRuleAndChoosesByIt) {
  MutationPredictor predictor = TrainedOnPlantedRule(2000, 3);
  ASSERT_TRUE(predictor.ready());
  std::mt19937_64 rng(4);
  int cases = 0, right = 0;
  for (int i = 0; i < 400; ++i) {
    std::vector<float> x = RandomSummary(rng);
    if (std::abs(x[2]) < 0.3) continue;  // too close to the rule's edge to call
    ++cases;
    std::array<double, kNumMutationKinds> w = predictor.ChoiceWeights(x, kFixed);
    const int chosen = static_cast<int>(std::max_element(w.begin(), w.end()) - w.begin());
    const int planted = x[2] > 0 ? 0 : 1;
    right += chosen == planted ? 1 : 0;
    // The rule that never pays keeps only its share of the fixed weights
    // (and a little): it is still tried, rarely.
    EXPECT_LT(w[3], 0.05) << "compute location at x2 = " << x[2];
    EXPECT_GT(w[3], 0.0);
    EXPECT_NEAR(w[0] + w[1] + w[2] + w[3], 1.0, 1e-9);
  }
  ASSERT_GT(cases, 200);
  EXPECT_GE(right, cases * 95 / 100) << right << " of " << cases;
  std::vector<float> positive(kDims, 0), negative(kDims, 0);
  positive[2] = 1.5;
  negative[2] = -1.5;
  positive[5] = negative[5] = 3;
  EXPECT_GT(predictor.Probability(positive, MutationKind::kTileSize), 0.9);
  EXPECT_LT(predictor.Probability(negative, MutationKind::kTileSize), 0.1);
  EXPECT_GT(predictor.Probability(negative, MutationKind::kParallel), 0.9);
  EXPECT_NEAR(predictor.Probability(positive, MutationKind::kAutoUnroll), 0.1, 0.07);
}

TEST(MutationPredictorTest, ReadsBackWhatItSavedAndRefusesDamagedText) {
  MutationPredictor predictor = TrainedOnPlantedRule(100, 5);
  const std::string text = predictor.Serialize();
  absl::StatusOr<MutationPredictor> back = MutationPredictor::Parse(text);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->Serialize(), text);
  std::mt19937_64 rng(6);
  std::vector<float> x = RandomSummary(rng);
  for (int k = 0; k < kNumMutationKinds; ++k)
    EXPECT_DOUBLE_EQ(back->Probability(x, static_cast<MutationKind>(k)),
                     predictor.Probability(x, static_cast<MutationKind>(k)));
  EXPECT_EQ(back->outcomes(MutationKind::kParallel), 100);

  absl::StatusOr<MutationPredictor> cut = MutationPredictor::Parse(text.substr(0, text.size() / 2));
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_FALSE(MutationPredictor::Parse("tfmp 1 2 1 nan 0 0 0 0").ok());
  EXPECT_FALSE(MutationPredictor::Parse("not a predictor").ok());
  EXPECT_FALSE(MutationPredictor::Parse(text + " 7").ok());
  // A fresh predictor round-trips too (nothing learned yet).
  EXPECT_TRUE(MutationPredictor::Parse(MutationPredictor().Serialize()).ok());
}

TEST(LearnedSearchStateTest, SavesThePredictorAndEveryWorkloadsBandit) {
  LearnedSearchState state;
  EXPECT_TRUE(state.empty());
  MutationPredictor trained = TrainedOnPlantedRule(80, 7);
  std::mt19937_64 rng(8);
  std::vector<MutationOutcome> outcomes;
  for (int i = 0; i < 80; ++i)
    for (int k = 0; k < kNumMutationKinds; ++k) {
      std::vector<float> x = RandomSummary(rng);
      outcomes.push_back({x, static_cast<MutationKind>(k), PlantedImproves(x, static_cast<MutationKind>(k), rng)});
    }
  state.LearnMutations(outcomes);
  SketchBandit bandit(3, 4);
  for (int i = 0; i < 4; ++i) {
    bandit.Record(0, 100);
    bandit.Record(1, 250.5);
    bandit.Record(2, 10);
  }
  bandit.Allocate(8);  // halves: sketch 2 is out, the quota 8
  ASSERT_FALSE(bandit.in_contest(2));
  state.SaveBandit("abc123", bandit);
  EXPECT_FALSE(state.empty());

  LearnedSearchState restored;
  ASSERT_TRUE(restored.Load(state.Serialize()).ok());
  EXPECT_EQ(restored.Serialize(), state.Serialize());
  std::optional<SketchBandit> back = restored.bandit("abc123");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->quota(), 8);
  EXPECT_FALSE(back->in_contest(2));
  EXPECT_DOUBLE_EQ(back->best(1), 250.5);
  EXPECT_EQ(back->measured(0), 4);
  EXPECT_FALSE(restored.bandit("other").has_value());
  EXPECT_EQ(restored.mutation_predictor().outcomes(MutationKind::kTileSize), 80);

  // Damaged bytes are refused and the state stays as it was.
  for (const std::string& bad : {std::string("tfls 2\n"), std::string("tfls 1\nbandit k 1 1 0 0 x 1\n"),
                                 std::string("tfls 1\nsomething else\n"), std::string("")}) {
    absl::Status s = restored.Load(bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << bad;
  }
  EXPECT_EQ(restored.Serialize(), state.Serialize());
  EXPECT_FALSE(SketchBandit::Parse("1 2 0 0 1 1").ok());  // two arms, one given
}

SketchPolicyOptions SmallSearch() {
  SketchPolicyOptions options = testing::SmallAnsorOptions(2);
  options.eps_greedy = 0;
  return options;
}

// The policy breeds by the target's predictor and teaches it from both its
// evolutions and children measured against their measured parents; the
// programs stay valid and new.
TEST(SketchPolicyTest, LearnedMutationChoiceTeachesTheTargetsPredictor) {
  te::Workload w = MustParse("matmul:M=64,N=64,K=64");
  std::shared_ptr<SharedCostModel> model = OneThreadXGBoost();
  SketchPolicyOptions options = SmallSearch();
  options.mutation_choice = MutationChoice::kLearned;
  SketchPolicyStats stats;
  std::unique_ptr<SearchPolicy> policy = MakeSketchPolicy(w.dag, OneCore(), model, 21, options, &stats);
  absl::flat_hash_set<uint64_t> proposed;
  std::mt19937_64 noise(3);
  for (int round = 0; round < 6; ++round) {
    std::vector<std::vector<schedule::Step>> batch = policy->Propose(16);
    ASSERT_FALSE(batch.empty()) << "round " << round;
    std::vector<MeasuredCandidate> results;
    for (const auto& steps : batch) {
      absl::StatusOr<schedule::State> s = schedule::State::Replay(w.dag, steps);
      ASSERT_TRUE(s.ok()) << s.status();
      EXPECT_TRUE(proposed.insert(s->Hash()).second) << "proposed twice";
      // Made-up times that differ between programs: what matters is that
      // children and parents compare.
      results.push_back({steps, true, 1e-4 * (1 + static_cast<double>(s->Hash() % 1000) / 1000)});
    }
    policy->Update(results);
  }
  EXPECT_EQ(testing::CheckAgainstReference(w, *schedule::State::Replay(w.dag, policy->Propose(1).at(0)), 3), "");
  const MutationPredictor predictor = model->learned().mutation_predictor();
  EXPECT_GT(stats.scored_mutation_outcomes, 1000);
  EXPECT_GT(stats.measured_mutation_outcomes, 0);
  for (int k = 0; k < kNumMutationKinds; ++k)
    EXPECT_GT(predictor.outcomes(static_cast<MutationKind>(k)), 0) << MutationName(static_cast<MutationKind>(k));
  EXPECT_TRUE(predictor.ready());
  EXPECT_EQ(predictor.dimension(), NumFeatures());
  std::cout << "mutation outcomes: " << stats.scored_mutation_outcomes << " scored, "
            << stats.measured_mutation_outcomes << " measured\n";
}

// A later policy on the same target and workload (a later job, or the same
// job after a restart) goes on with the sketch contest where it stopped:
// sketches dropped before get nothing.
TEST(SketchPolicyTest, ALaterPolicyGoesOnWithTheSavedSketchContest) {
  te::Workload w = MustParse("conv2d:N=1,C=32,H=14,W=14,K=32,R=3,S=3,pad=1");
  std::shared_ptr<SharedCostModel> model = OneThreadXGBoost();
  SketchPolicyOptions options = SmallSearch();
  options.evolution.generations = 1;
  options.sketch_selection = SketchSelection::kLearned;
  absl::StatusOr<std::vector<Sketch>> generated = GenerateCpuSketches(w.dag, OneCore());
  ASSERT_TRUE(generated.ok()) << generated.status();
  std::vector<schedule::State> sketches;
  for (const Sketch& s : *generated) sketches.push_back(s.state);
  const int n = static_cast<int>(sketches.size());
  auto run = [&](SearchPolicy& policy, int rounds, std::vector<int>* last_round) {
    for (int round = 0; round < rounds; ++round) {
      std::vector<std::vector<schedule::Step>> batch = policy.Propose(64);
      last_round->assign(n, 0);
      std::vector<MeasuredCandidate> results;
      for (const auto& steps : batch) {
        const int sketch = SketchIndexOf(steps, sketches);
        ++(*last_round)[std::max(sketch, 0)];
        results.push_back({steps, true, 1e-3 * (1 + 0.1 * sketch)});  // later sketches slower
      }
      policy.Update(results);
    }
  };
  std::vector<int> last_round;
  std::unique_ptr<SearchPolicy> first = MakeSketchPolicy(w.dag, OneCore(), model, 11, options);
  const int rounds = static_cast<int>((SketchBandit::kDefaultFirstQuota * n + 63) / 64) + 2;
  run(*first, rounds, &last_round);
  std::optional<SketchBandit> saved = model->learned().bandit(w.dag->workload_key());
  ASSERT_TRUE(saved.has_value());
  EXPECT_GT(saved->quota(), SketchBandit::kDefaultFirstQuota);  // halved at least once

  // The second policy: its first evolved round (the model is trained) goes
  // only to sketches still in the contest.
  SketchPolicyStats stats;
  std::unique_ptr<SearchPolicy> second = MakeSketchPolicy(w.dag, OneCore(), model, 12, options, &stats);
  run(*second, 1, &last_round);
  for (int k = 0; k < n; ++k)
    if (!saved->in_contest(k)) {
      EXPECT_EQ(last_round[k], 0) << "sketch " << k << " was dropped before; "
                                  << ::testing::PrintToString(last_round);
      EXPECT_EQ(stats.searches_per_sketch[k], 0) << "sketch " << k;
    }
  std::optional<SketchBandit> after = model->learned().bandit(w.dag->workload_key());
  int64_t before_total = 0, after_total = 0;
  for (int k = 0; k < n; ++k) {
    before_total += saved->measured(k);
    after_total += after->measured(k);
  }
  EXPECT_EQ(after_total, before_total + 64);  // the second policy's round added to the saved counts
}

}  // namespace
}  // namespace tuneforge::search
