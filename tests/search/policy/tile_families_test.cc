// Tile families and the per-family quota of the ansor policy's batches:
// programs that differ only outside their splits are one family; a batch
// takes at most its quota of one family's variants, and takes more only
// when it would otherwise fall short.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "absl/container/flat_hash_set.h"
#include "search/sketch_policy.h"
#include "search/tile_families.h"
#include "tests/search/policy/policy_fixtures.h"
#include "tests/search/policy/reference_check.h"

namespace tuneforge::search {
namespace {

using schedule::PragmaStep;
using schedule::SplitStep;
using schedule::Step;
using testing::MustParse;
using testing::OneCore;
using testing::OneThreadXGBoost;

TEST(TileFamiliesTest, ProgramsThatDifferOnlyOutsideTheirSplitsAreOneFamily) {
  std::vector<Step> a = {SplitStep{2, 0, {4, 8}}, SplitStep{2, 1, {16}}, PragmaStep{2, 0, 64}};
  std::vector<Step> b = {SplitStep{2, 0, {4, 8}}, SplitStep{2, 1, {16}}, PragmaStep{2, 0, 512}};
  std::vector<Step> c = {SplitStep{2, 0, {8, 4}}, SplitStep{2, 1, {16}}, PragmaStep{2, 0, 64}};
  std::vector<Step> d = {SplitStep{2, 0, {4, 8}}, SplitStep{2, 2, {16}}, PragmaStep{2, 0, 64}};
  EXPECT_EQ(TileFamilyOf(a), TileFamilyOf(b)) << "another unroll pragma is the same tiling";
  EXPECT_NE(TileFamilyOf(a), TileFamilyOf(c)) << "the same factors at other levels are another tiling";
  EXPECT_NE(TileFamilyOf(a), TileFamilyOf(d)) << "the same lengths on another loop are another tiling";
}

TEST(TileFamiliesTest, TheQuotaIsAShareOfTheBatchAndAtLeastOne) {
  EXPECT_EQ(FamilyQuota(61, 1.0 / 12).cap(), 5);
  EXPECT_EQ(FamilyQuota(12, 0.25).cap(), 3);
  EXPECT_EQ(FamilyQuota(4, 1.0 / 12).cap(), 1);
  FamilyQuota none(61, 1.0);
  for (int i = 0; i < 100; ++i) none.Taken(7);
  EXPECT_FALSE(none.Full(7)) << "a share of 1 is Ansor's: no quota";
  FamilyQuota two(8, 0.25);
  two.Taken(7);
  EXPECT_FALSE(two.Full(7));
  two.Taken(7);
  EXPECT_TRUE(two.Full(7));
  EXPECT_FALSE(two.Full(8));
}

// Ten candidates of family 1 ranked first, then families 2 to 5.
std::vector<uint64_t> RankedFamilies() { return {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 1, 4, 5, 5}; }

TEST(TileFamiliesTest, ABatchTakesAtMostItsQuotaOfOneFamilyWhileOthersAreLeft) {
  const std::vector<uint64_t> families = RankedFamilies();
  std::vector<size_t> taken, prepared;
  const int n = TakeRankedWithQuota(
      families.size(), 8, 0.25, [&](size_t i) { return families[i]; },
      [&](size_t i) { taken.push_back(i); return true; },
      [&](size_t begin, size_t end) { for (size_t i = begin; i < end; ++i) prepared.push_back(i); });
  EXPECT_EQ(n, 8);
  // Two of family 1 (a quarter of 8), then the next-ranked of the others.
  EXPECT_EQ(taken, (std::vector<size_t>{0, 1, 10, 11, 12, 14, 15, 16}));
  for (size_t i : taken) EXPECT_NE(std::find(prepared.begin(), prepared.end(), i), prepared.end()) << i;
}

TEST(TileFamiliesTest, ABatchThatWouldFallShortTakesOverQuotaCandidatesBestFirst) {
  const std::vector<uint64_t> families = RankedFamilies();
  std::vector<size_t> taken;
  // Candidate 11 is refused (proposed before, say).
  const int n = TakeRankedWithQuota(
      families.size(), 10, 0.2, [&](size_t i) { return families[i]; },
      [&](size_t i) {
        if (i == 11) return false;
        taken.push_back(i);
        return true;
      },
      [](size_t, size_t) {});
  EXPECT_EQ(n, 10);
  // Quota 2: families 1, 2 (one refused), 3, 4, 5 give 7; then family 1's
  // next-ranked fill the batch.
  EXPECT_EQ(taken, (std::vector<size_t>{0, 1, 10, 12, 14, 15, 16, 2, 3, 4}));
}

TEST(TileFamiliesTest, WithoutAQuotaTheRankingDecidesAlone) {
  const std::vector<uint64_t> families = RankedFamilies();
  std::vector<size_t> taken;
  TakeRankedWithQuota(
      families.size(), 5, 1.0, [&](size_t i) { return families[i]; },
      [&](size_t i) { taken.push_back(i); return true; }, [](size_t, size_t) {});
  EXPECT_EQ(taken, (std::vector<size_t>{0, 1, 2, 3, 4}));
}

// The policy with the smallest quota (one program per tiling) still fills
// its batches, and what it proposes is new.
TEST(TileFamiliesTest, TheAnsorPolicyWithAQuotaFillsItsBatches) {
  te::Workload w = MustParse("matmul:M=64,N=64,K=64");
  SketchPolicyOptions options = testing::SmallAnsorOptions(2);
  options.max_family_share = 0.01;
  std::unique_ptr<SearchPolicy> policy = MakeSketchPolicy(w.dag, OneCore(), OneThreadXGBoost(), 7, options);
  absl::flat_hash_set<uint64_t> proposed;
  for (int round = 0; round < 3; ++round) {
    std::vector<MeasuredCandidate> results;
    std::vector<std::vector<Step>> batch = policy->Propose(24);
    EXPECT_EQ(batch.size(), 24u) << "round " << round;
    for (size_t i = 0; i < batch.size(); ++i) {
      EXPECT_TRUE(proposed.insert(schedule::HashSteps(batch[i])).second) << "proposed twice";
      results.push_back({batch[i], true, 1e-3 * (1 + static_cast<double>(i % 5))});
    }
    policy->Update(results);
  }
}

}  // namespace
}  // namespace tuneforge::search
