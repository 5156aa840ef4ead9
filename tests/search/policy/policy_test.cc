// The Ansor policy and its cost model on real programs: the model, trained
// on timed samples, ranks programs it has not seen better than chance; the
// policy proposes valid, new programs round after round and learns.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>

#include "absl/container/flat_hash_set.h"
#include "common/codegen/compiler.h"
#include "common/codegen/packed_constants.h"
#include "common/lower/lower.h"
#include "common/runtime/parallel.h"
#include "common/te/ndarray.h"
#include "search/annotation/annotation.h"
#include "search/features/features.h"
#include "search/sketch_generation.h"
#include "search/sketch_policy.h"
#include "tests/search/policy/policy_fixtures.h"
#include "tests/search/policy/reference_check.h"

namespace tuneforge::search {
namespace {

using testing::MustParse;
using testing::OneCore;
using testing::OneThreadXGBoost;

// Median seconds of 5 runs of the compiled program (after one warm-up).
double TimeProgram(const te::Workload& w, const schedule::State& state) {
  absl::StatusOr<lower::LoweredFunc> func = lower::Lower(state);
  if (!func.ok()) return -1;
  absl::StatusOr<std::unique_ptr<codegen::LoadedKernel>> kernel = codegen::JitCompile(*func);
  if (!kernel.ok()) return -1;
  std::vector<te::NDArray> buffers;
  std::vector<void*> args;
  for (int i : w.dag->ArgumentOps()) {
    buffers.push_back(*te::NDArray::Empty(w.dag->op(i)->dtype, w.dag->op(i)->shape));
    buffers.back().FillRandom(i);
  }
  for (te::NDArray& b : buffers) args.push_back(b.data());
  absl::StatusOr<codegen::PackedConstants> packed =
      codegen::PackedConstants::Prepare(**kernel, codegen::PackedArgsOf(*func), args);
  if (!packed.ok()) return -1;
  args = packed->Append(std::move(args));
  std::vector<double> times;
  for (int run = 0; run < 6; ++run) {
    auto t = std::chrono::steady_clock::now();
    (**kernel)(args.data());
    if (run > 0) times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

TEST(CostModelOnProgramsTest, XGBoostRanksHeldApartProgramsBetterThanChance) {
  runtime::SetNumThreads(1);
  te::Workload w = MustParse("matmul:M=128,N=128,K=128");
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateCpuSketches(w.dag, OneCore());
  ASSERT_TRUE(sketches.ok());
  Rng rng(21);
  std::vector<schedule::State> states;
  std::vector<double> throughput;
  absl::flat_hash_set<uint64_t> seen;
  HardwareParams hw = OneCore();
  hw.auto_unroll_configs = {0, 16};  // quick to compile
  while (states.size() < 120) {
    absl::StatusOr<schedule::State> s =
        SampleInitState((*sketches)[states.size() % sketches->size()].state, hw, rng);
    ASSERT_TRUE(s.ok());
    if (!seen.insert(s->Hash()).second) continue;
    double seconds = TimeProgram(w, *s);
    ASSERT_GT(seconds, 0);
    states.push_back(*s);
    throughput.push_back(w.dag->flops() / seconds);
  }
  std::vector<absl::StatusOr<ProgramFeatures>> features = ExtractFeaturesBatch(states, 2);
  const size_t kTrain = 80;
  SharedCostModel model([] {
    XGBoostParams p;
    p.threads = 1;
    return MakeXGBoostModel(p);
  });
  std::vector<MeasuredProgram> train;
  for (size_t i = 0; i < kTrain; ++i) train.push_back({*features[i], throughput[i]});
  ASSERT_TRUE(model.AddMeasured(w.dag->workload_key(), train).ok());
  ASSERT_TRUE(model.trained());
  std::vector<const ProgramFeatures*> held;
  for (size_t i = kTrain; i < states.size(); ++i) held.push_back(&*features[i]);
  std::vector<float> scores = model.Predict(held);
  // Pairwise ranking accuracy over pairs whose speeds differ by > 20%
  // (closer pairs are within timing noise).
  int agree = 0, pairs = 0;
  for (size_t a = 0; a < held.size(); ++a)
    for (size_t b = a + 1; b < held.size(); ++b) {
      double ta = throughput[kTrain + a], tb = throughput[kTrain + b];
      if (std::max(ta, tb) < 1.2 * std::min(ta, tb)) continue;
      ++pairs;
      agree += (ta > tb) == (scores[a] > scores[b]);
    }
  ASSERT_GT(pairs, 100);
  double accuracy = static_cast<double>(agree) / pairs;
  std::cout << "pairwise ranking accuracy on held-apart programs: " << accuracy << " (" << pairs << " pairs)\n";
  EXPECT_GT(accuracy, 0.65) << agree << " of " << pairs << " pairs ranked right (chance: 0.5)";
}

TEST(SketchPolicyTest, ProposesNewValidProgramsAndLearnsFromResults) {
  te::Workload w = MustParse("matmul+relu:M=64,N=48,K=32");
  std::shared_ptr<SharedCostModel> model = OneThreadXGBoost();
  SketchPolicyStats stats;
  std::unique_ptr<SearchPolicy> policy =
      MakeSketchPolicy(w.dag, OneCore(), model, 5, testing::SmallAnsorOptions(2), &stats);
  absl::flat_hash_set<uint64_t> proposed;
  for (int round = 0; round < 3; ++round) {
    std::vector<std::vector<schedule::Step>> batch = policy->Propose(12);
    ASSERT_EQ(batch.size(), 12u) << "round " << round;
    std::vector<MeasuredCandidate> results;
    for (const auto& steps : batch) {
      absl::StatusOr<schedule::State> s = schedule::State::Replay(w.dag, steps);
      ASSERT_TRUE(s.ok()) << s.status();
      EXPECT_TRUE(proposed.insert(s->Hash()).second) << "proposed twice";
      EXPECT_EQ(testing::CheckAgainstReference(w, *s, round), "");
      double seconds = TimeProgram(w, *s);
      results.push_back({steps, seconds > 0, seconds});
    }
    policy->Update(results);
    EXPECT_TRUE(model->trained());
  }
  EXPECT_EQ(stats.num_sketches, 4);  // fusion levels 1 and 2, the constant B packed or not
  EXPECT_GT(stats.evolution.scored, 0);      // rounds 2 and 3 ran the evolutionary search
  EXPECT_GT(stats.evolution.mutations, 0);
  EXPECT_EQ(model->num_programs(), 36);
}

TEST(SketchPolicyTest, MeasuredProgramsAreNeverProposed) {
  te::Workload w = MustParse("matmul:M=16,N=16,K=16");
  auto model = std::make_shared<SharedCostModel>([] { return MakeRandomModel(1); });
  SketchPolicyOptions options;
  options.init_population = 32;
  std::unique_ptr<SearchPolicy> first = MakeSketchPolicy(w.dag, OneCore(), model, 1, options);
  std::vector<std::vector<schedule::Step>> batch = first->Propose(20);
  ASSERT_FALSE(batch.empty());
  // Another policy (a resumed job) told what was measured proposes none of it.
  std::unique_ptr<SearchPolicy> second = MakeSketchPolicy(w.dag, OneCore(), model, 1, options);
  second->MarkMeasured(batch);
  absl::flat_hash_set<uint64_t> measured;
  for (const auto& steps : batch) measured.insert(schedule::State::Replay(w.dag, steps)->Hash());
  for (const auto& steps : second->Propose(20))
    EXPECT_FALSE(measured.contains(schedule::State::Replay(w.dag, steps)->Hash()));
}

// A caller without a target's shared model (a tool, a test) still gets
// Ansor's search, learning with a model of its own, not random search.
TEST(SketchPolicyTest, AnsorWithoutASharedModelTrainsItsOwn) {
  te::Workload w = MustParse("matmul:M=16,N=16,K=16");
  std::unique_ptr<SearchPolicy> own = MakePolicy(PolicyKind::kAnsor, {w.dag, OneCore(), nullptr, 3});
  auto model = std::make_shared<SharedCostModel>([] { return MakeRandomModel(1); });
  std::unique_ptr<SearchPolicy> shared = MakeSketchPolicy(w.dag, OneCore(), model, 3);
  // Round 1 is random annotated sketches, the same for the same seed.
  std::vector<std::vector<schedule::Step>> a = own->Propose(8), b = shared->Propose(8);
  ASSERT_EQ(a.size(), 8u);
  ASSERT_EQ(b.size(), 8u);
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(schedule::State::Replay(w.dag, a[i])->Hash(), schedule::State::Replay(w.dag, b[i])->Hash()) << i;
}

}  // namespace
}  // namespace tuneforge::search
