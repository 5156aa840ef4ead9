// The register-file limit on CPU programs (search/annotation/register_tile.cc):
// the accumulators a stage updates inside its innermost reduction loop are
// counted in vector registers, and programs needing more than the ISA has
// are neither sampled, bred nor descended to.
#include <gtest/gtest.h>

#include "search/annotation/annotation.h"
#include "search/droplet/droplet_policy.h"
#include "search/sketch_generation.h"
#include "search/sketch_policy.h"
#include "tests/search/policy/policy_fixtures.h"
#include "tests/search/policy/reference_check.h"

namespace tuneforge::search {
namespace {

using testing::MustParse;

// AVX-512 on two cores: 16 float lanes, 32 registers.
HardwareParams Avx512TwoCores() {
  HardwareParams hw = testing::OneCore();
  hw.num_cores = 2;
  hw.vector_registers = 32;
  return hw;
}

// The stage that reduces (the cache_write stage of a tiled program).
const schedule::Stage& ReducingStage(const schedule::State& s) {
  for (const schedule::Stage& stage : s.stages())
    for (const schedule::IterNode& node : stage.nodes)
      if (node.kind == schedule::IterKind::kReduce && !stage.iters.empty()) return stage;
  return s.stages().back();
}

// matmul 1024^3 as a tuning's best has it: a 4 x 64 register tile below the
// k.1 loop, its 64 columns vectorized.
schedule::State MatmulWithRegisterTile(const te::Workload& w, int64_t rows, int64_t columns, bool k_inside) {
  schedule::State s(w.dag);
  auto apply = [&](schedule::Step step) { EXPECT_TRUE(s.Apply(std::move(step)).ok()); };
  apply(schedule::CacheWriteStep{2, "local"});  // C.local is stage 2, C stage 3
  apply(schedule::SplitStep{2, 2, {64}, true});
  apply(schedule::SplitStep{2, 1, {columns}, true});
  apply(schedule::SplitStep{2, 0, {rows}, true});
  // i.0 j.0 k.0 k.1 i.1 j.1, or with k.1 innermost: i.0 j.0 k.0 i.1 j.1 k.1
  apply(schedule::ReorderStep{2, k_inside ? std::vector<int>{0, 2, 4, 1, 3, 5} : std::vector<int>{0, 2, 4, 5, 1, 3}});
  apply(schedule::AnnotationStep{2, k_inside ? 4 : 5, schedule::IterAnnotation::kVectorize});
  return s;
}

TEST(RegisterTileTest, CountsTheVectorsBelowTheInnermostReductionLoop) {
  te::Workload w = MustParse("matmul:M=1024,N=1024,K=1024");
  // 4 rows x 64 columns below k.1: 4 x 4 vectors of 16 lanes, 4 x 8 of 8.
  schedule::State tile = MatmulWithRegisterTile(w, 4, 64, /*k_inside=*/false);
  EXPECT_EQ(AccumulatorRegisters(ReducingStage(tile), 16), 16) << tile.ToString();
  EXPECT_EQ(AccumulatorRegisters(ReducingStage(tile), 8), 32);
  EXPECT_TRUE(WithinRegisterFile(tile, Avx512TwoCores()));
  // 32 rows x 64 columns: 128 vectors, a quarter of them fit.
  schedule::State big = MatmulWithRegisterTile(w, 32, 64, /*k_inside=*/false);
  EXPECT_EQ(AccumulatorRegisters(ReducingStage(big), 16), 128);
  EXPECT_FALSE(WithinRegisterFile(big, Avx512TwoCores()));
  // The reduction innermost: one accumulator a loop, whatever the tile.
  schedule::State inner = MatmulWithRegisterTile(w, 32, 64, /*k_inside=*/true);
  EXPECT_EQ(AccumulatorRegisters(ReducingStage(inner), 16), 1) << inner.ToString();
  EXPECT_TRUE(WithinRegisterFile(inner, Avx512TwoCores()));
  // A GPU thread's accumulators are WithinGpuLimits's to judge.
  EXPECT_TRUE(WithinRegisterFile(big, GpuHardwareParams()));
}

TEST(RegisterTileTest, DeviceKeysGiveTheIsasRegisterFiles) {
  EXPECT_EQ(HardwareParamsFromDeviceKey("x86_64-avx512-2c")->vector_registers, 32);
  EXPECT_EQ(HardwareParamsFromDeviceKey("x86_64-avx2-8c")->vector_registers, 16);
  EXPECT_EQ(HardwareParamsFromDeviceKey("aarch64-neon-cortexa72-4c")->vector_registers, 32);
}

// The strided depthwise conv and the 7x7 stride-2 conv of the bench: half
// and a third of their tunings' candidates had oversized tiles before, two in
// three of their raw draws do.
const std::vector<std::string> kConvs = {
    "depthwise_conv2d:N=1,C=144,H=56,W=56,R=3,S=3,stride=2,pad=1",
    "conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3",
};

TEST(RegisterTileTest, SamplesFitTheRegisterFileWhereRawDrawsOftenDoNot) {
  const HardwareParams hw = Avx512TwoCores();
  Rng rng(3);
  for (const std::string& spec : kConvs) {
    te::Workload w = MustParse(spec);
    absl::StatusOr<std::vector<Sketch>> sketches = GenerateCpuSketches(w.dag, hw);
    ASSERT_TRUE(sketches.ok()) << sketches.status();
    int raw_over = 0, sampled_over = 0, n = 0;
    for (const Sketch& sketch : *sketches) {
      for (int k = 0; k < 40; ++k, ++n) {
        // The draws SampleInitState made before it checked the tile.
        absl::StatusOr<schedule::State> raw = FillTileSizes(sketch.state, hw, rng);
        ASSERT_TRUE(raw.ok()) << raw.status();
        ChangeComputeLocations(&*raw, rng);
        AnnotateVectorize(&*raw, hw, rng);
        raw_over += !WithinRegisterFile(*raw, hw);
        absl::StatusOr<schedule::State> sampled = SampleInitState(sketch.state, hw, rng);
        ASSERT_TRUE(sampled.ok()) << sampled.status();
        sampled_over += !WithinRegisterFile(*sampled, hw);
      }
    }
    EXPECT_GT(raw_over, n / 3) << spec << ": the check has nothing to refuse here";
    EXPECT_EQ(sampled_over, 0) << spec << ": " << sampled_over << " of " << n;
  }
}

TEST(RegisterTileTest, PoliciesNeverProposeOversizedTilesRoundAfterRound) {
  const HardwareParams hw = Avx512TwoCores();
  te::Workload w = MustParse(kConvs[0]);
  for (bool droplet : {false, true}) {
    std::shared_ptr<SharedCostModel> model = testing::OneThreadXGBoost();
    DropletOptions options;
    options.after = 24;  // the descent starts in the third round
    const SketchPolicyOptions ansor = testing::SmallAnsorOptions(2);
    std::unique_ptr<SearchPolicy> policy = droplet ? MakeDropletPolicy(w.dag, hw, model, 9, options, ansor)
                                                   : MakeSketchPolicy(w.dag, hw, model, 9, ansor);
    int over = 0, proposed = 0;
    for (int round = 0; round < 4; ++round) {
      std::vector<MeasuredCandidate> results;
      for (const auto& steps : policy->Propose(12)) {
        absl::StatusOr<schedule::State> s = schedule::State::Replay(w.dag, steps);
        ASSERT_TRUE(s.ok()) << s.status();
        ++proposed;
        over += !WithinRegisterFile(*s, hw);
        // A synthetic time spread by the program's hash, so the model trains
        // and the evolution runs; the limit must hold whatever it learns.
        double seconds = 1e-3 * (1 + static_cast<double>(s->Hash() % 97) / 97);
        results.push_back({steps, true, seconds});
      }
      policy->Update(results);
    }
    EXPECT_GE(proposed, 40) << (droplet ? "droplet" : "ansor");
    EXPECT_LE(over, 1) << (droplet ? "droplet" : "ansor") << ": " << over << " of " << proposed;
  }
}

}  // namespace
}  // namespace tuneforge::search
