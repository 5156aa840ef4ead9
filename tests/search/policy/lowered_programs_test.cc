// Steps that lower to the same code are one program: the search measures
// each program once, whatever steps reach it.
#include <gtest/gtest.h>

#include "absl/container/flat_hash_set.h"
#include "common/schedule/state.h"
#include "search/lowered_programs.h"
#include "search/random_search.h"
#include "search/sketch_policy.h"
#include "tests/search/policy/policy_fixtures.h"
#include "tests/search/policy/reference_check.h"

namespace tuneforge::search {
namespace {

using testing::MustParse;
using testing::OneCore;
using testing::OneThreadXGBoost;

schedule::State Build(const te::Workload& w, const std::vector<schedule::Step>& steps) {
  absl::StatusOr<schedule::State> s = schedule::State::Replay(w.dag, steps);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : schedule::State(w.dag);
}

// C's nest is i (16), j (16), k (16): an auto-unroll pragma of 16 and one of
// 64 both unroll k alone (j * k = 256 is over 64); 512 unrolls j too.
TEST(LoweredProgramsTest, PragmasThatUnrollTheSameLoopsAreOneProgram) {
  te::Workload w = MustParse("matmul:M=16,N=16,K=16");
  const int c = w.dag->num_ops() - 1;
  LoweredPrograms programs(/*gpu=*/false);
  EXPECT_TRUE(programs.Add(Build(w, {schedule::PragmaStep{c, 0, 16}})));
  EXPECT_FALSE(programs.Add(Build(w, {schedule::PragmaStep{c, 0, 64}}))) << "unrolls the same loops as 16";
  EXPECT_TRUE(programs.Add(Build(w, {schedule::PragmaStep{c, 0, 512}})));
  EXPECT_TRUE(programs.Add(Build(w, {schedule::SplitStep{c, 1, {4}, true}, schedule::PragmaStep{c, 0, 16}})));
  EXPECT_EQ(programs.copies(), 1);
  EXPECT_EQ(programs.size(), 3u);
}

TEST(LoweredProgramsTest, ProgramsMeasuredBeforeAreKnownByTheirCode) {
  te::Workload w = MustParse("matmul:M=16,N=16,K=16");
  const int c = w.dag->num_ops() - 1;
  LoweredPrograms programs(/*gpu=*/false);
  programs.AddMeasured(w.dag, {{schedule::PragmaStep{c, 0, 64}}, {schedule::SplitStep{c, 1, {4}, true}}}, 2);
  EXPECT_FALSE(programs.Add(Build(w, {schedule::PragmaStep{c, 0, 16}})));
  EXPECT_FALSE(programs.Add(Build(w, {schedule::SplitStep{c, 1, {4}, true}})));
  EXPECT_TRUE(programs.Add(Build(w, {schedule::SplitStep{c, 1, {8}, true}})));
}

// The ansor policy lowers a batch of ranked candidates at once, on several
// threads, before it takes them one by one: a prepared program is judged as
// one lowered in Add, and a batch prepared later replaces the one before.
TEST(LoweredProgramsTest, ProgramsPreparedAheadAreJudgedByTheSameCode) {
  te::Workload w = MustParse("matmul:M=16,N=16,K=16");
  const int c = w.dag->num_ops() - 1;
  const schedule::State p16 = Build(w, {schedule::PragmaStep{c, 0, 16}});
  const schedule::State p64 = Build(w, {schedule::PragmaStep{c, 0, 64}});
  const schedule::State p512 = Build(w, {schedule::PragmaStep{c, 0, 512}});
  const schedule::State split = Build(w, {schedule::SplitStep{c, 1, {4}, true}});
  LoweredPrograms programs(/*gpu=*/false);
  programs.Prepare({&p16, &p64, &p512}, 2);
  EXPECT_TRUE(programs.Add(p16));
  EXPECT_FALSE(programs.Add(p64)) << "unrolls the same loops as 16";
  programs.Prepare({&split}, 2);
  EXPECT_TRUE(programs.Add(p512));  // no longer prepared: lowered by Add
  EXPECT_TRUE(programs.Add(split));
  EXPECT_EQ(programs.copies(), 1);
  EXPECT_EQ(programs.size(), 3u);
}

// Ansor's evolution ranks copies of one program alike: without the check,
// rounds of the policy on a matmul with a constant (packed) B proposed the
// same code under other pragmas and compute-at locations of B's copy.
TEST(LoweredProgramsTest, SketchPolicyNeverProposesCodeItProposedBefore) {
  te::Workload w = MustParse("matmul+relu:M=64,N=48,K=32");
  std::shared_ptr<SharedCostModel> model = OneThreadXGBoost();
  SketchPolicyStats stats;
  std::unique_ptr<SearchPolicy> policy =
      MakeSketchPolicy(w.dag, OneCore(), model, 5, testing::SmallAnsorOptions(2), &stats);
  absl::flat_hash_set<uint64_t> code;
  int proposed = 0;
  for (int round = 0; round < 4; ++round) {
    std::vector<std::vector<schedule::Step>> batch = policy->Propose(16);
    ASSERT_EQ(batch.size(), 16u) << "round " << round;
    std::vector<MeasuredCandidate> results;
    for (const auto& steps : batch) {
      schedule::State s = Build(w, steps);
      EXPECT_TRUE(code.insert(LoweredCodeHash(s, false)).second) << "round " << round << ": code proposed twice";
      ++proposed;
      // A made-up speed the model can learn: fewer steps, faster.
      results.push_back({steps, true, 1e-3 * static_cast<double>(steps.size())});
    }
    policy->Update(results);
  }
  EXPECT_EQ(proposed, 64);
  EXPECT_GT(stats.lowered_copies, 0) << "no copy met: the test no longer exercises the check";
}

TEST(LoweredProgramsTest, RandomSearchNeverProposesCodeItProposedBefore) {
  te::Workload w = MustParse("matmul:M=16,N=16,K=16");
  std::unique_ptr<SearchPolicy> policy = MakeRandomSearch(w.dag, 3);
  absl::flat_hash_set<uint64_t> code;
  for (int round = 0; round < 4; ++round)
    for (const auto& steps : policy->Propose(16))
      EXPECT_TRUE(code.insert(LoweredCodeHash(Build(w, steps), false)).second) << "round " << round;
}

}  // namespace
}  // namespace tuneforge::search
