// The innermost level of a CPU reduction's split is not held to Ansor's 64
// (annotation/tile_lengths.h, InnermostLimit): it is a plain loop around the
// register tile, and matmul 1024^3's fastest programs keep their
// accumulators over 256-1,024 of k. Sampling, the tile-size mutation and
// Droplet's space all reach such lengths; spatial splits, reduction splits
// that rfactor turns into vectorized partial sums, and GPU programs keep the
// cap.
#include <gtest/gtest.h>

#include "search/annotation/annotation.h"
#include "search/annotation/tile_lengths.h"
#include "search/droplet/program_space.h"
#include "search/mutations/mutations.h"
#include "search/sketch_generation.h"
#include "tests/search/policy/policy_fixtures.h"

namespace tuneforge::search {
namespace {

using testing::MustParse;

// Over the split steps of `s`: the longest innermost length of a split of a
// reduction loop and of a spatial one.
struct Innermost {
  int64_t reduce = 0, spatial = 0;
};
Innermost LongestInnermost(const schedule::State& s) {
  Innermost out;
  schedule::State replay(s.original_dag());
  for (const schedule::Step& step : s.steps()) {
    if (const auto* split = std::get_if<schedule::SplitStep>(&step); split && split->inner_to_outer) {
      const bool reduce = replay.stage(split->stage).iter_node(split->iter).kind == schedule::IterKind::kReduce;
      int64_t& longest = reduce ? out.reduce : out.spatial;
      longest = std::max(longest, split->lengths.back());
    }
    EXPECT_TRUE(replay.Apply(step).ok());
  }
  return out;
}

// The CPU sketches of `spec` (none, with a failure, when they cannot be made).
std::vector<Sketch> CpuSketches(const std::string& spec, const HardwareParams& hw) {
  te::Workload w = MustParse(spec);
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateCpuSketches(w.dag, hw);
  EXPECT_TRUE(sketches.ok()) << sketches.status();
  return sketches.ok() ? *std::move(sketches) : std::vector<Sketch>{};
}

TEST(ReductionSplitTest, OnlyACpuReductionGoesPastTheCap) {
  const HardwareParams cpu = testing::OneCore();
  EXPECT_EQ(InnermostLimit(cpu, schedule::IterKind::kSpatial, 1024), 64);
  EXPECT_EQ(InnermostLimit(cpu, schedule::IterKind::kReduce, 1024), 1024);
  EXPECT_EQ(InnermostLimit(cpu, schedule::IterKind::kReduce, 9), 64);  // never below the cap
  EXPECT_EQ(InnermostLimit(GpuHardwareParams(), schedule::IterKind::kReduce, 1024), 64);
}

TEST(ReductionSplitTest, SampledMatmulsGetLongReductionTilesAndCappedSpatialOnes) {
  const HardwareParams hw = testing::OneCore();
  const std::vector<Sketch> sketches = CpuSketches("matmul:M=1024,N=1024,K=1024", hw);
  ASSERT_FALSE(sketches.empty());
  Rng rng(5);
  int long_reductions = 0, draws = 0;
  for (const Sketch& sketch : sketches)
    for (int k = 0; k < 60; ++k, ++draws) {
      absl::StatusOr<schedule::State> s = FillTileSizes(sketch.state, hw, rng);
      ASSERT_TRUE(s.ok()) << s.status();
      const Innermost inner = LongestInnermost(*s);
      EXPECT_LE(inner.spatial, 64) << s->ToString();
      long_reductions += inner.reduce > 64;
    }
  // k's divisors past 64 are 4 of 11: a quarter or more of the draws.
  EXPECT_GT(long_reductions, draws / 5) << long_reductions << " of " << draws;
}

TEST(ReductionSplitTest, AReductionSplitThatRfactorFactorsKeepsTheCap) {
  // Few outputs, a long reduction: the rfactor sketches split k and factor
  // one part into vectorized partial sums.
  const HardwareParams hw = testing::OneCore();
  const std::vector<Sketch> sketches = CpuSketches("matmul:M=1,N=8,K=4096", hw);
  ASSERT_FALSE(sketches.empty());
  Rng rng(7);
  int factored_splits = 0;
  for (const Sketch& sketch : sketches)
    for (int k = 0; k < 60; ++k) {
      absl::StatusOr<schedule::State> s = FillTileSizes(sketch.state, hw, rng);
      ASSERT_TRUE(s.ok()) << s.status();
      const std::vector<schedule::Step>& steps = s->steps();
      for (size_t i = 0; i < steps.size(); ++i) {
        const auto* split = std::get_if<schedule::SplitStep>(&steps[i]);
        if (!split) continue;
        for (size_t j = i + 1; j < steps.size(); ++j)
          if (const auto* r = std::get_if<schedule::RfactorStep>(&steps[j]); r && r->stage == split->stage) {
            ++factored_splits;
            EXPECT_LE(split->lengths.back(), 64) << s->ToString();
            break;
          }
      }
    }
  EXPECT_GT(factored_splits, 0) << "no rfactor sketch for this workload";
}

TEST(ReductionSplitTest, TheTileSizeMutationGrowsTheReductionTilePast64) {
  const HardwareParams hw = testing::OneCore();
  const std::vector<Sketch> sketches = CpuSketches("matmul:M=1024,N=1024,K=1024", hw);
  ASSERT_FALSE(sketches.empty());
  Rng rng(11);
  int grown = 0;
  for (const Sketch& sketch : sketches) {
    absl::StatusOr<schedule::State> parent = FillTileSizes(sketch.state, hw, rng);
    ASSERT_TRUE(parent.ok()) << parent.status();
    for (int k = 0; k < 200; ++k) {
      absl::StatusOr<schedule::State> child = MutateTileSize(*parent, hw, rng);
      if (!child.ok()) continue;
      const Innermost inner = LongestInnermost(*child);
      EXPECT_LE(inner.spatial, 64);
      grown += inner.reduce > 64;
    }
  }
  EXPECT_GT(grown, 0) << "no mutation moved a factor of k into its innermost level past 64";
}

TEST(ReductionSplitTest, DropletsSpaceHoldsLongReductionTiles) {
  const HardwareParams hw = testing::OneCore();
  const std::vector<Sketch> sketches = CpuSketches("matmul:M=1024,N=1024,K=1024", hw);
  ASSERT_FALSE(sketches.empty());
  Rng rng(2);
  absl::StatusOr<schedule::State> program = FillTileSizes(sketches.front().state, hw, rng);
  ASSERT_TRUE(program.ok()) << program.status();
  ProgramSpace space = ProgramSpace::Of(*program, hw);
  int reached = 0;
  for (size_t k = 0; k < space.knobs().size(); ++k) {
    const Knob& knob = space.knobs()[k];
    if (knob.kind != KnobKind::kSplitLength) continue;
    for (int v = 0; v < knob.size(); ++v) {
      SpacePoint p = space.Origin();
      p[k] = v;
      absl::StatusOr<schedule::State> s = space.At(p);
      if (!s.ok()) continue;
      const Innermost inner = LongestInnermost(*s);
      EXPECT_LE(inner.spatial, 64);
      reached += inner.reduce > 64;
    }
  }
  EXPECT_GT(reached, 0) << "no point of the space has a reduction tile past 64";
}

}  // namespace
}  // namespace tuneforge::search
