// Steps that lower to the same code are one program: the search measures
// each program once, whatever steps reach it.
#include <gtest/gtest.h>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "common/lower/lower.h"
#include "common/lower/passes/vectorize.h"
#include "common/lower/printer.h"
#include "common/schedule/schedule_json.h"
#include "common/schedule/state.h"
#include "search/annotation/annotation.h"
#include "search/lowered_programs.h"
#include "search/mutations/mutations.h"
#include "search/sketch_generation.h"
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

// The referee: a hash of the kernel the CPU builder compiles (the whole
// lowering; names and the untimed prepack function aside), which the
// check's cheaper identity stands for.
uint64_t BuiltCodeHash(const schedule::State& s) {
  absl::StatusOr<lower::LoweredFunc> func = lower::Lower(s, lower::LowerOptions::ForTarget(false));
  EXPECT_TRUE(func.ok()) << func.status();
  return func.ok() ? absl::HashOf(IdentityText(*func)) : 0;
}

// The check lowers only up to vectorizing and unrolling. Programs it takes
// for one must compile to one code: sampled programs of a padded conv and a
// matmul with a packed B, and their mutants (other pragmas, compute-at
// locations, parallel fuses and tiles), many of which are copies.
TEST(LoweredProgramsTest, ProgramsTheCheckTakesForOneCompileToOneCode) {
  int copies = 0;
  for (const char* spec : {"conv2d+bias+relu:N=1,C=8,H=7,W=7,K=16,R=3,S=3,pad=1", "matmul:M=8,N=256,K=12"}) {
    te::Workload w = MustParse(spec);
    HardwareParams hw = OneCore();
    absl::StatusOr<std::vector<Sketch>> sketches = GenerateCpuSketches(w.dag, hw);
    ASSERT_TRUE(sketches.ok()) << sketches.status();
    Rng rng(11);
    absl::flat_hash_map<uint64_t, uint64_t> code_of_identity;
    absl::flat_hash_set<uint64_t> steps_seen;
    for (int k = 0; k < 24; ++k) {
      absl::StatusOr<schedule::State> parent = SampleInitState((*sketches)[k % sketches->size()].state, hw, rng);
      if (!parent.ok()) continue;
      std::vector<schedule::State> family = {*parent};
      for (int m = 0; m < 8; ++m) {
        absl::StatusOr<schedule::State> child = Mutate(static_cast<MutationKind>(m % kNumMutationKinds), *parent, hw, rng);
        if (child.ok()) family.push_back(*std::move(child));
      }
      for (const schedule::State& s : family) {
        if (!steps_seen.insert(s.Hash()).second) continue;  // the same steps: no test of the identity
        const uint64_t code = BuiltCodeHash(s);
        auto [it, fresh] = code_of_identity.emplace(LoweredCodeHash(s, false), code);
        if (fresh) continue;
        ++copies;
        EXPECT_EQ(it->second, code) << spec << ": two programs the check takes for one compile to different code";
      }
    }
  }
  EXPECT_GT(copies, 10) << "few copies met: the test no longer exercises the identity";
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

// A parallel loop fused over a loop of extent 1 is the same loop under a
// longer name ("i.0@i.1" for "i"): one program, whose code is one.
TEST(LoweredProgramsTest, ProgramsThatDifferInLoopNamesAloneAreOneProgram) {
  te::Workload w = MustParse("matmul:M=16,N=16,K=16");
  const int c = w.dag->num_ops() - 1;
  const schedule::State plain = Build(w, {schedule::AnnotationStep{c, 0, schedule::IterAnnotation::kParallel}});
  const schedule::State fused =
      Build(w, {schedule::SplitStep{c, 0, {16}, true}, schedule::FuseStep{c, {0, 1}},
                schedule::AnnotationStep{c, 0, schedule::IterAnnotation::kParallel}});
  ASSERT_NE(plain.Hash(), fused.Hash());
  EXPECT_EQ(BuiltCodeHash(plain), BuiltCodeHash(fused)) << "the referee sees two codes";
  LoweredPrograms programs(/*gpu=*/false);
  EXPECT_TRUE(programs.Add(plain));
  EXPECT_FALSE(programs.Add(fused)) << "the same loop under another name";
  EXPECT_TRUE(programs.Add(Build(w, {schedule::AnnotationStep{c, 1, schedule::IterAnnotation::kParallel}})));
  EXPECT_EQ(programs.copies(), 1);
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
      EXPECT_TRUE(code.insert(BuiltCodeHash(s)).second) << "round " << round << ": code proposed twice";
      ++proposed;
      // A made-up speed the model can learn: fewer steps, faster.
      results.push_back({steps, true, 1e-3 * static_cast<double>(steps.size())});
    }
    policy->Update(results);
  }
  EXPECT_EQ(proposed, 64);
  EXPECT_GT(stats.lowered_copies, 0) << "no copy met: the test no longer exercises the check";
}

// Once the model has learned, a batch is the evolution's ranking but for
// its eps-greedy share, past however many copies of proposed code lead it:
// a ranking that ran out of new code was filled up with random samples
// (most of a converged 7x7 stem tuning's later rounds, programs at under
// half the best speed that were slower to compile).
TEST(LoweredProgramsTest, SketchPolicyFillsBatchesFromTheRankingPastItsCopies) {
  te::Workload w = MustParse("matmul+relu:M=64,N=48,K=32");
  std::shared_ptr<SharedCostModel> model = OneThreadXGBoost();
  SketchPolicyStats stats;
  SketchPolicyOptions options = testing::SmallAnsorOptions(3);
  options.eps_greedy = 0.05;  // 2 of a 32-program batch
  options.best_neighbour_share = 0;  // the rest from the ranking (best_neighbours_test.cc has the share)
  std::unique_ptr<SearchPolicy> policy = MakeSketchPolicy(w.dag, OneCore(), model, 7, options, &stats);
  int64_t copies_after_first = 0;
  for (int round = 0; round < 6; ++round) {
    const int64_t evolved_before = stats.evolved_picks, sampled_before = stats.sampled_picks;
    std::vector<std::vector<schedule::Step>> batch = policy->Propose(32);
    ASSERT_EQ(batch.size(), 32u) << "round " << round;
    if (round == 0) {
      EXPECT_EQ(stats.sampled_picks, 32) << "before the model learns, a batch is all samples";
      copies_after_first = stats.lowered_copies;
    } else {
      EXPECT_EQ(stats.sampled_picks - sampled_before, 2) << "round " << round;
      EXPECT_EQ(stats.evolved_picks - evolved_before, 30) << "round " << round;
    }
    std::vector<MeasuredCandidate> results;
    for (const auto& steps : batch) results.push_back({steps, true, 1e-3 * static_cast<double>(steps.size())});
    policy->Update(results);
  }
  EXPECT_GT(stats.lowered_copies - copies_after_first, 0)
      << "the rankings held no copies: the test no longer exercises a ranking past them";
}

// C[i, j] vectorized along i (j k i): each lane's accumulator is 16 floats
// from the next, stored lane by lane. Skipped where asked, prepared or not;
// by default a program like any other.
TEST(LoweredProgramsTest, ScatteringProgramsAreSkippedWhereAsked) {
  te::Workload w = MustParse("matmul:M=16,N=16,K=16");
  const int c = w.dag->num_ops() - 1;
  const schedule::Step vectorize_last = schedule::AnnotationStep{c, 2, schedule::IterAnnotation::kVectorize};
  const schedule::State scattering = Build(w, {schedule::ReorderStep{c, {1, 2, 0}}, vectorize_last});
  const schedule::State contiguous = Build(w, {schedule::ReorderStep{c, {0, 2, 1}}, vectorize_last});
  LoweredPrograms skipping(/*gpu=*/false, /*skip_scattering=*/true);
  EXPECT_FALSE(skipping.Add(scattering));
  EXPECT_TRUE(skipping.Add(contiguous));
  EXPECT_EQ(skipping.scattering(), 1);
  EXPECT_EQ(skipping.copies(), 0);
  LoweredPrograms prepared(/*gpu=*/false, /*skip_scattering=*/true);
  prepared.Prepare({&scattering, &contiguous}, 2);
  EXPECT_FALSE(prepared.Add(scattering));
  EXPECT_TRUE(prepared.Add(contiguous));
  LoweredPrograms keeping(/*gpu=*/false);
  EXPECT_TRUE(keeping.Add(scattering));
  EXPECT_EQ(keeping.scattering(), 0);
}

// A strided conv's sampled programs include some vectorized along an axis
// strided in what they compute (a fused tile of two axes, the output rows):
// the ansor policy proposes none of them.
TEST(LoweredProgramsTest, SketchPolicyNeverProposesScatteringCode) {
  te::Workload w = MustParse("conv2d:N=1,C=3,H=28,W=28,K=16,R=7,S=7,pad=3,stride=2");
  std::shared_ptr<SharedCostModel> model = OneThreadXGBoost();
  SketchPolicyStats stats;
  std::unique_ptr<SearchPolicy> policy =
      MakeSketchPolicy(w.dag, OneCore(), model, 7, testing::SmallAnsorOptions(2), &stats);
  for (int round = 0; round < 3; ++round) {
    std::vector<MeasuredCandidate> results;
    for (const auto& steps : policy->Propose(16)) {
      absl::StatusOr<lower::LoweredFunc> f = lower::Lower(Build(w, steps), lower::LowerOptions::ForTarget(false));
      ASSERT_TRUE(f.ok()) << f.status();
      EXPECT_FALSE(lower::StoresScatter(f->body)) << "round " << round << ": a scattering program proposed";
      results.push_back({steps, true, 1e-3 * static_cast<double>(steps.size())});
    }
    policy->Update(results);
  }
  EXPECT_GT(stats.scattering_skipped, 0) << "none met: the test no longer exercises the check";
}

// The fastest conv 3x3 C=K=256 14x14 program tuned so far (473 GFLOPS, oneDNN's
// speed on a Zen 5): a packed kernel, 16 output channels per vector, a register
// tile of 14 of them. Its compute stores are contiguous; its write-back reads
// the tile at a stride of 16 (a transposing copy). A rule that skipped such
// programs (strided reads, copies) would keep the search below oneDNN.
constexpr char kFastestConv3x3[] = R"({"workload": "conv2d:C=256,H=14,K=256,N=1,R=3,S=3,W=14,pad=1", "steps": [
    {"kind":"cache_write","stage":3,"scope":"local"},
    {"kind":"cache_read","stage":2,"scope":"local","readers":[3]},
    {"kind":"split","stage":4,"iter":6,"lengths":[1],"inner_to_outer":true},
    {"kind":"split","stage":4,"iter":5,"lengths":[1],"inner_to_outer":true},
    {"kind":"split","stage":4,"iter":4,"lengths":[1],"inner_to_outer":true},
    {"kind":"split","stage":4,"iter":3,"lengths":[1,2,7],"inner_to_outer":true},
    {"kind":"split","stage":4,"iter":2,"lengths":[2,1,1],"inner_to_outer":true},
    {"kind":"split","stage":4,"iter":1,"lengths":[2,1,16],"inner_to_outer":true},
    {"kind":"split","stage":4,"iter":0,"lengths":[1,1,1],"inner_to_outer":true},
    {"kind":"reorder","stage":4,"order":[0,4,8,12,1,5,9,13,16,18,20,2,6,10,14,17,19,21,3,11,15,7]},
    {"kind":"follow_split","stage":5,"iter":3,"src_step":5,"n_split":2},
    {"kind":"follow_split","stage":5,"iter":2,"src_step":6,"n_split":2},
    {"kind":"follow_split","stage":5,"iter":1,"src_step":7,"n_split":2},
    {"kind":"follow_split","stage":5,"iter":0,"src_step":8,"n_split":2},
    {"kind":"reorder","stage":5,"order":[0,3,6,9,1,4,7,10,2,5,8,11]},
    {"kind":"compute_at","stage":4,"target_stage":5,"target_iter":7},
    {"kind":"compute_inline","stage":1},
    {"kind":"compute_at","stage":3,"target_stage":4,"target_iter":8},
    {"kind":"fuse","stage":3,"iters":[2,3]},
    {"kind":"annotation","stage":3,"iter":2,"annotation":"vectorize"},
    {"kind":"annotation","stage":4,"iter":21,"annotation":"vectorize"},
    {"kind":"annotation","stage":5,"iter":11,"annotation":"vectorize"},
    {"kind":"pragma","stage":3,"iter":0,"auto_unroll_max_step":0},
    {"kind":"pragma","stage":4,"iter":0,"auto_unroll_max_step":512},
    {"kind":"pragma","stage":5,"iter":0,"auto_unroll_max_step":0},
    {"kind":"fuse","stage":5,"iters":[0,1,2]},
    {"kind":"annotation","stage":5,"iter":0,"annotation":"parallel"}]})";

TEST(LoweredProgramsTest, TheFastestConvProgramIsNotSkippedAsScattering) {
  absl::StatusOr<schedule::Schedule> fastest = schedule::ParseScheduleJson(kFastestConv3x3);
  ASSERT_TRUE(fastest.ok()) << fastest.status();
  const schedule::State program = Build(MustParse(fastest->workload), fastest->steps);
  LoweredPrograms skipping(/*gpu=*/false, /*skip_scattering=*/true);
  EXPECT_TRUE(skipping.Add(program));
  EXPECT_EQ(skipping.scattering(), 0);
}

TEST(LoweredProgramsTest, RandomSearchNeverProposesCodeItProposedBefore) {
  te::Workload w = MustParse("matmul:M=16,N=16,K=16");
  std::unique_ptr<SearchPolicy> policy = MakeRandomSearch(w.dag, 3);
  absl::flat_hash_set<uint64_t> code;
  for (int round = 0; round < 4; ++round)
    for (const auto& steps : policy->Propose(16))
      EXPECT_TRUE(code.insert(BuiltCodeHash(Build(w, steps))).second) << "round " << round;
}

}  // namespace
}  // namespace tuneforge::search
