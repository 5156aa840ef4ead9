// The ansor policy's share of each round around its best measured program:
// the best's neighbours in its own parameter space, one knob moved before
// several, never one proposed before.
#include <gtest/gtest.h>

#include <memory>

#include "absl/container/flat_hash_set.h"
#include "search/sketch_policy.h"
#include "tests/search/policy/policy_fixtures.h"
#include "tests/search/policy/reference_check.h"

namespace tuneforge::search {
namespace {

using schedule::Step;
using testing::MustParse;
using testing::OneCore;
using testing::OneThreadXGBoost;

// Steps at which two programs of one sketch differ; -1 when their step
// lists differ in length (not one sketch).
int StepsThatDiffer(const std::vector<Step>& a, const std::vector<Step>& b) {
  if (a.size() != b.size()) return -1;
  int differ = 0;
  for (size_t i = 0; i < a.size(); ++i)
    differ += schedule::HashSteps({a[i]}) != schedule::HashSteps({b[i]});
  return differ;
}

// One round of random programs, the fastest by far at `best`; the model
// learns from them.
std::vector<Step> MeasureFirstRound(SearchPolicy& policy, int n, size_t best) {
  std::vector<std::vector<Step>> batch = policy.Propose(n);
  EXPECT_GT(batch.size(), best);
  std::vector<MeasuredCandidate> results;
  for (size_t i = 0; i < batch.size(); ++i)
    results.push_back({batch[i], true, i == best ? 1e-4 : 1e-3 * (1 + static_cast<double>(i % 5))});
  policy.Update(results);
  return batch[best];
}

TEST(BestNeighboursTest, TheAnsorPolicyMeasuresNeighboursOfItsBestProgram) {
  te::Workload w = MustParse("matmul:M=64,N=64,K=64");
  SketchPolicyOptions options = testing::SmallAnsorOptions(2);
  options.eps_greedy = 0;
  options.best_neighbour_share = 1;  // the whole batch from the best's neighbours
  SketchPolicyStats stats;
  std::shared_ptr<SharedCostModel> model = OneThreadXGBoost();
  std::unique_ptr<SearchPolicy> policy = MakeSketchPolicy(w.dag, OneCore(), model, 7, options, &stats);
  const std::vector<Step> best = MeasureFirstRound(*policy, 24, 5);
  ASSERT_TRUE(model->trained());

  absl::flat_hash_set<uint64_t> proposed;
  std::vector<std::vector<Step>> batch = policy->Propose(6);
  ASSERT_EQ(batch.size(), 6u);
  EXPECT_EQ(stats.neighbour_picks, 6);
  EXPECT_EQ(stats.evolved_picks, 0);
  for (const std::vector<Step>& steps : batch) {
    EXPECT_EQ(StepsThatDiffer(steps, best), 1) << "one knob of the best program moved";
    EXPECT_TRUE(proposed.insert(schedule::HashSteps(steps)).second);
  }
  // Measured no faster, they leave the best where it was: the next round
  // takes its other neighbours, never one proposed before.
  std::vector<MeasuredCandidate> results;
  for (const std::vector<Step>& steps : batch) results.push_back({steps, true, 2e-4});
  policy->Update(results);
  std::vector<std::vector<Step>> next = policy->Propose(6);
  ASSERT_FALSE(next.empty());
  for (const std::vector<Step>& steps : next) {
    EXPECT_GE(StepsThatDiffer(steps, best), 1);
    EXPECT_TRUE(proposed.insert(schedule::HashSteps(steps)).second) << "proposed twice";
  }
}

TEST(BestNeighboursTest, ANewBestBecomesTheCenterOfTheNextRound) {
  te::Workload w = MustParse("matmul:M=64,N=64,K=64");
  SketchPolicyOptions options = testing::SmallAnsorOptions(2);
  options.eps_greedy = 0;
  options.best_neighbour_share = 1;
  std::unique_ptr<SearchPolicy> policy = MakeSketchPolicy(w.dag, OneCore(), OneThreadXGBoost(), 11, options);
  MeasureFirstRound(*policy, 24, 2);
  std::vector<std::vector<Step>> batch = policy->Propose(4);
  ASSERT_EQ(batch.size(), 4u);
  // Its third neighbour runs faster still: the next round moves around it.
  std::vector<MeasuredCandidate> results;
  for (size_t i = 0; i < batch.size(); ++i) results.push_back({batch[i], true, i == 2 ? 5e-5 : 2e-4});
  policy->Update(results);
  for (const std::vector<Step>& steps : policy->Propose(4))
    EXPECT_EQ(StepsThatDiffer(steps, batch[2]), 1) << "a neighbour of the new best";
}

// The share is of a trained round's batch, an eighth by default; off, the
// policy is Ansor's.
TEST(BestNeighboursTest, TheShareIsOfATrainedRoundAnEighthByDefault) {
  EXPECT_EQ(SketchPolicyOptions{}.best_neighbour_share, 0.125) << "steadier matmul tunings, conv as fast";
  te::Workload w = MustParse("matmul:M=64,N=64,K=64");
  for (double share : {0.0, 0.125}) {
    SketchPolicyOptions options = testing::SmallAnsorOptions(2);
    options.best_neighbour_share = share;
    SketchPolicyStats stats;
    std::unique_ptr<SearchPolicy> policy = MakeSketchPolicy(w.dag, OneCore(), OneThreadXGBoost(), 3, options, &stats);
    MeasureFirstRound(*policy, 24, 0);
    EXPECT_EQ(stats.neighbour_picks, 0) << "an untrained model proposes random samples only";
    EXPECT_EQ(policy->Propose(32).size(), 32u);
    EXPECT_EQ(stats.neighbour_picks, share > 0 ? 4 : 0) << "share " << share;
  }
}

// A job's share (PolicyContext, from --neighbour-share) reaches the policy:
// with all of a round theirs, every program proposed is a neighbour of the
// best; the default is the policy's.
TEST(BestNeighboursTest, APolicyMadeForAJobTakesItsShare) {
  EXPECT_EQ(PolicyContext{}.best_neighbour_share, SketchPolicyOptions{}.best_neighbour_share);
  te::Workload w = MustParse("matmul:M=64,N=64,K=64");
  PolicyContext context;
  context.dag = w.dag;
  context.hw = OneCore();
  context.cost_model = OneThreadXGBoost();
  context.seed = 5;
  context.best_neighbour_share = 1;
  std::unique_ptr<SearchPolicy> policy = MakePolicy(PolicyKind::kAnsor, context);
  const std::vector<Step> best = MeasureFirstRound(*policy, 24, 3);
  ASSERT_TRUE(context.cost_model->trained());
  std::vector<std::vector<Step>> batch = policy->Propose(6);
  ASSERT_EQ(batch.size(), 6u);
  for (const std::vector<Step>& steps : batch)
    EXPECT_EQ(StepsThatDiffer(steps, best), 1) << "a neighbour of the best, not an evolved program";
}

// A later job's policy goes on from what an earlier one measured
// (ContinueFrom, server/core/earlier_records.h): its first trained round is
// around the earlier best, and nothing measured before comes again.
TEST(BestNeighboursTest, ALaterPolicyGoesOnFromTheEarlierBest) {
  te::Workload w = MustParse("matmul:M=64,N=64,K=64");
  SketchPolicyOptions options = testing::SmallAnsorOptions(2);
  options.eps_greedy = 0;
  options.best_neighbour_share = 1;
  std::shared_ptr<SharedCostModel> model = OneThreadXGBoost();  // the target's, shared by both jobs
  std::unique_ptr<SearchPolicy> earlier = MakeSketchPolicy(w.dag, OneCore(), model, 7, options);
  std::vector<std::vector<Step>> first = earlier->Propose(24);
  ASSERT_GT(first.size(), 4u);
  std::vector<MeasuredCandidate> results;
  for (size_t i = 0; i < first.size(); ++i)
    results.push_back({first[i], true, i == 4 ? 1e-4 : 1e-3 * (1 + static_cast<double>(i % 5))});
  earlier->Update(results);
  ASSERT_TRUE(model->trained());

  SketchPolicyStats stats;
  std::unique_ptr<SearchPolicy> later = MakeSketchPolicy(w.dag, OneCore(), model, 8, options, &stats);
  later->MarkMeasured(first);
  later->ContinueFrom({results[4], results[0]});
  std::vector<std::vector<Step>> batch = later->Propose(6);
  ASSERT_EQ(batch.size(), 6u);
  EXPECT_EQ(stats.neighbour_picks, 6) << "the earlier best has neighbours to measure";
  absl::flat_hash_set<uint64_t> measured;
  for (const std::vector<Step>& steps : first) measured.insert(schedule::HashSteps(steps));
  for (const std::vector<Step>& steps : batch) {
    EXPECT_EQ(StepsThatDiffer(steps, first[4]), 1) << "a neighbour of the earlier best";
    EXPECT_FALSE(measured.contains(schedule::HashSteps(steps))) << "measured by the earlier job";
  }
}

}  // namespace
}  // namespace tuneforge::search
