// Random annotation and mutations: every sampled and mutated program
// replays from its steps and computes what the reference computes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <set>

#include "common/lower/lower.h"
#include "common/lower/stmt_functor.h"
#include "search/annotation/annotation.h"
#include "search/annotation/tile_lengths.h"
#include "search/mutations/mutations.h"
#include "search/sketch_generation.h"
#include "tests/search/policy/policy_fixtures.h"
#include "tests/search/policy/reference_check.h"

namespace tuneforge::search {
namespace {

using testing::CheckAgainstReference;
using testing::MustParse;

// Unroll limits up to 64 only: fully unrolled nests of 512 steps are valid
// too, but LLVM takes seconds over each, which tests need not spend.
HardwareParams TwoCores() {
  HardwareParams hw = testing::OneCore();
  hw.num_cores = 2;
  return hw;
}

// Small shapes (the interpreter is the oracle) of the ops the search tunes,
// non-divisible extents included.
const std::vector<std::string> kWorkloads = {
    "matmul:M=32,N=24,K=16",
    "matmul+relu:M=12,N=40,K=9",
    "dense+bias:M=8,N=30,K=20",
    "conv2d+bias+relu:N=1,C=8,H=7,W=7,K=16,R=3,S=3,pad=1",
    "depthwise_conv2d:N=1,C=16,H=14,W=14,R=3,S=3,pad=1",
    "norm:M=16,N=48",
    "softmax:M=8,N=50",
    "batch_matmul:B=2,M=8,N=12,K=10",
    "matmul:M=8,N=256,K=12",  // B packed (rows of 1 KB)
};

bool Replays(const schedule::State& s) {
  absl::StatusOr<schedule::State> again = schedule::State::Replay(s.original_dag(), s.steps());
  return again.ok() && again->Hash() == s.Hash();
}

TEST(TileLengthsTest, ProductDividesTheExtentAndTheInnermostIsBounded) {
  Rng rng(1);
  for (int64_t extent : {1, 7, 64, 96, 1000}) {
    for (int k = 0; k < 50; ++k) {
      std::vector<int64_t> l = RandomTileLengths(extent, 3, 16, rng);
      ASSERT_EQ(l.size(), 3u);
      int64_t product = l[0] * l[1] * l[2];
      EXPECT_EQ(extent % product, 0) << extent;
      EXPECT_LE(l[2], 16);
    }
  }
}

// Overrunning tiles: whole vectors (here of 8 lanes) that do not divide the
// loop, wasting at most a sixteenth of it, over outer levels that divide
// the number of tiles; none where every such length wastes more.
TEST(TileLengthsTest, AnOverrunningTileIsWholeVectorsThatDoNotDivideTheLoop) {
  Rng rng(5);
  std::set<int64_t> innermost;
  for (int64_t extent : {1000, 1024, 136}) {
    for (int k = 0; k < 100; ++k) {
      std::optional<std::vector<int64_t>> l = RandomOverrunTileLengths(extent, 3, 64, 8, rng);
      ASSERT_TRUE(l.has_value()) << extent;
      ASSERT_EQ(l->size(), 3u);
      const int64_t inner = (*l)[2], tiles = (extent + inner - 1) / inner;
      EXPECT_EQ(inner % 8, 0);
      EXPECT_LE(inner, 64);
      EXPECT_NE(extent % inner, 0) << extent << " by " << inner;
      EXPECT_LE((tiles * inner - extent) * 16, extent) << extent << " by " << inner;
      EXPECT_EQ(tiles % ((*l)[0] * (*l)[1]), 0) << extent << " by " << inner;
      if (extent == 1000) innermost.insert(inner);
    }
  }
  // 1,000 = 125 x 8: 16, 24, 32, 48, 56 and 64 lanes overrun it (40 divides it).
  EXPECT_THAT(innermost, ::testing::ElementsAre(16, 24, 32, 48, 56, 64));
  // Rows: any length up to the limit. 6 of 1,024 is 171 tiles (1,026 rows).
  bool six = false;
  for (int k = 0; k < 200 && !six; ++k) six = RandomOverrunTileLengths(1024, 2, 16, 1, rng)->back() == 6;
  EXPECT_TRUE(six);
  EXPECT_FALSE(RandomOverrunTileLengths(14, 2, 64, 8, rng).has_value());  // 16 wastes 2 of 14
  EXPECT_FALSE(RandomOverrunTileLengths(64, 2, 64, 8, rng).has_value());  // multiples of 8 divide or waste 8+
}

// With every spatial split drawn overrunning where it can, the samples hold
// tiles that do not divide their loops (a 6-row tile of 64, 48 lanes of
// 136), and each replays and computes what the reference computes.
TEST(AnnotationTest, OverrunningTilesAreSampledAndCorrect) {
  Rng rng(9);
  HardwareParams hw = TwoCores();
  hw.overrun_tile_share = 1.0;
  te::Workload w = MustParse("matmul:M=64,N=136,K=8");
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateCpuSketches(w.dag, hw);
  ASSERT_TRUE(sketches.ok()) << sketches.status();
  int overrunning = 0, samples = 0;
  for (const Sketch& sketch : *sketches) {
    for (int k = 0; k < 3; ++k, ++samples) {
      absl::StatusOr<schedule::State> s = SampleInitState(sketch.state, hw, rng);
      ASSERT_TRUE(s.ok()) << s.status();
      ASSERT_TRUE(Replays(*s)) << s->ToString();
      bool overruns = false;
      for (const schedule::Step& step : s->steps()) {
        const auto* split = std::get_if<schedule::SplitStep>(&step);
        if (!split) continue;
        int64_t product = 1;
        for (int64_t l : split->lengths) product *= l;
        const int64_t extent = split->iter == 0 ? 64 : split->iter == 1 ? 136 : 8;
        overruns = overruns || (split->lengths.size() > 1 && extent % product != 0);
      }
      overrunning += overruns ? 1 : 0;
      EXPECT_EQ(CheckAgainstReference(w, *s, 3 + k), "") << s->ToString();
    }
  }
  EXPECT_GT(overrunning, samples / 2);
}

TEST(AnnotationTest, EverySampleReplaysAndMatchesTheReference) {
  Rng rng(7);
  for (const std::string& spec : kWorkloads) {
    te::Workload w = MustParse(spec);
    absl::StatusOr<std::vector<Sketch>> sketches = GenerateCpuSketches(w.dag, TwoCores());
    ASSERT_TRUE(sketches.ok()) << spec << ": " << sketches.status();
    for (const Sketch& sketch : *sketches) {
      for (int k = 0; k < 2; ++k) {
        absl::StatusOr<schedule::State> s = SampleInitState(sketch.state, TwoCores(), rng);
        ASSERT_TRUE(s.ok()) << spec << ": " << s.status();
        ASSERT_TRUE(Replays(*s)) << spec << "\n" << s->ToString();
        std::string wrong = CheckAgainstReference(w, *s, 11 + k);
        EXPECT_EQ(wrong, "") << spec << "\n" << s->ToString();
      }
    }
  }
}

TEST(AnnotationTest, SamplesAreParallelVectorizedAndVaried) {
  Rng rng(3);
  te::Workload w = MustParse("matmul:M=512,N=512,K=512");
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateCpuSketches(w.dag, TwoCores());
  ASSERT_TRUE(sketches.ok());
  int parallel = 0, vectorized = 0, unrolled = 0;
  std::set<uint64_t> distinct;
  const int kSamples = 60;
  for (int k = 0; k < kSamples; ++k) {
    const Sketch& sketch = (*sketches)[k % sketches->size()];
    absl::StatusOr<schedule::State> s = SampleInitState(sketch.state, TwoCores(), rng);
    ASSERT_TRUE(s.ok()) << s.status();
    distinct.insert(s->Hash());
    bool has_p = false, has_v = false;
    for (const schedule::Stage& st : s->stages())
      for (const schedule::Iterator& it : st.iters) {
        has_p |= it.annotation == schedule::IterAnnotation::kParallel;
        has_v |= it.annotation == schedule::IterAnnotation::kVectorize;
      }
    for (const schedule::Step& step : s->steps())
      if (const auto* p = std::get_if<schedule::PragmaStep>(&step)) unrolled += p->auto_unroll_max_step > 0;
    parallel += has_p;
    vectorized += has_v;
  }
  // Outer parallel loops unless the sampled tiles leave the outer levels at
  // extent 1 (everything in one tile), which few samples do.
  EXPECT_GE(parallel, kSamples * 9 / 10);
  EXPECT_GT(vectorized, kSamples / 2);
  EXPECT_GT(unrolled, 0);
  EXPECT_GT(distinct.size(), static_cast<size_t>(kSamples * 9 / 10));  // tile sizes really vary
}

// A packed copy (B.local) is placed at root or inside a loop around its
// consumer: the cache stage's own loops or, since the cache stage is
// computed inside C, C's loops around it (a panel shared by several tiles).
TEST(AnnotationTest, PackedCopiesArePlacedAroundTheirConsumerAtEveryDepth) {
  Rng rng(5);
  te::Workload w = MustParse("matmul:M=256,N=256,K=256");
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateCpuSketches(w.dag, TwoCores());
  ASSERT_TRUE(sketches.ok());
  std::set<std::string> places;
  for (const Sketch& sketch : *sketches) {
    if (sketch.state.StageIndex("B.local") < 0 || sketch.state.StageIndex("C.local") < 0) continue;
    for (int k = 0; k < 40; ++k) {
      absl::StatusOr<schedule::State> s = SampleInitState(sketch.state, TwoCores(), rng);
      ASSERT_TRUE(s.ok()) << s.status();
      const schedule::Stage& copy = s->stage(s->StageIndex("B.local"));
      if (const auto* at = std::get_if<schedule::ComputeAtIter>(&copy.location))
        places.insert(s->stage(at->target_stage).op->name);
      else
        places.insert("root");
      // ComputeAtChoices offers exactly those places.
      for (const schedule::ComputeAtStep& c : ComputeAtChoices(*s, s->StageIndex("B.local"))) {
        const std::string& target = s->stage(c.target_stage).op->name;
        EXPECT_TRUE(target == "C" || target == "C.local") << target;
      }
    }
  }
  EXPECT_TRUE(places.contains("C.local"));
  EXPECT_TRUE(places.contains("C"));
  EXPECT_TRUE(places.contains("root"));
}

// A copy of a constant weight costs nothing per call wherever it sits (the
// layout rewrite computes it once), and in the consumer's innermost
// reduction loop its packed layout follows every loop: half of the samples
// put it there, the rest still explore.
TEST(AnnotationTest, ConstantCopiesOftenSitInTheInnermostReductionLoop) {
  Rng rng(5);
  te::Workload w = MustParse("matmul:M=256,N=256,K=256");  // B is constant
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateCpuSketches(w.dag, TwoCores());
  ASSERT_TRUE(sketches.ok());
  int samples = 0, innermost = 0;
  for (const Sketch& sketch : *sketches) {
    if (sketch.state.StageIndex("B.local") < 0 || sketch.state.StageIndex("C.local") < 0) continue;
    for (int k = 0; k < 40; ++k) {
      absl::StatusOr<schedule::State> s = SampleInitState(sketch.state, TwoCores(), rng);
      ASSERT_TRUE(s.ok()) << s.status();
      ++samples;
      const auto* at = std::get_if<schedule::ComputeAtIter>(&s->stage(s->StageIndex("B.local")).location);
      if (!at || s->stage(at->target_stage).op->name != "C.local") continue;
      const schedule::Stage& consumer = s->stage(at->target_stage);
      int iter = consumer.IterIndexOfNode(at->target_node), last_reduce = -1;
      for (int i = 0; i < static_cast<int>(consumer.iters.size()); ++i)
        if (consumer.iter_node(i).kind == schedule::IterKind::kReduce) last_reduce = i;
      innermost += iter == last_reduce;
    }
  }
  ASSERT_GT(samples, 0);
  EXPECT_GT(innermost, samples / 3);
  EXPECT_LT(innermost, samples * 3 / 4);
}

// A vectorized loop fused from several loops is at most one register wide:
// wider fused loops are gathers, masked ones compile for minutes.
TEST(AnnotationTest, FusedVectorLoopsAreAtMostOneRegisterWide) {
  Rng rng(5);
  te::Workload w = MustParse("depthwise_conv2d:N=1,C=256,H=14,W=14,R=3,S=3,pad=1");
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateCpuSketches(w.dag, TwoCores());
  ASSERT_TRUE(sketches.ok());
  int fused_vectors = 0;
  for (int k = 0; k < 200; ++k) {
    absl::StatusOr<schedule::State> s = SampleInitState((*sketches)[k % sketches->size()].state, TwoCores(), rng);
    ASSERT_TRUE(s.ok()) << s.status();
    const std::vector<schedule::Step>& steps = s->steps();
    for (size_t i = 1; i < steps.size(); ++i) {
      const auto* a = std::get_if<schedule::AnnotationStep>(&steps[i]);
      const auto* f = std::get_if<schedule::FuseStep>(&steps[i - 1]);
      if (!a || a->annotation != schedule::IterAnnotation::kVectorize || !f || f->stage != a->stage) continue;
      ++fused_vectors;
      // Later steps (the parallel fuse) renumber loops: look right after it.
      absl::StatusOr<schedule::State> at = schedule::State::Replay(
          w.dag, std::vector<schedule::Step>(steps.begin(), steps.begin() + static_cast<long>(i) + 1));
      ASSERT_TRUE(at.ok()) << at.status();
      EXPECT_LE(at->stage(a->stage).iter_node(a->iter).extent, TwoCores().vector_lanes);
    }
  }
  EXPECT_GT(fused_vectors, 0);  // the rule does fuse, within the limit
}

// A tiled stage whose innermost tile has extent 1 when sampled is still
// marked for vectors: a tile-size mutation may grow that loop, and the
// program it grows into must be vector code, not scalar lanes left to LLVM
// (such conv programs ran 0.8x their vector twins and compiled slower).
TEST(AnnotationTest, TiledStagesAreMarkedForVectorsWhateverTheirSampledInnermostExtent) {
  Rng rng(4);
  te::Workload w = MustParse("conv2d:N=1,C=256,H=14,W=14,K=256,R=3,S=3,pad=1");
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateCpuSketches(w.dag, TwoCores());
  ASSERT_TRUE(sketches.ok());
  int tiled = 0, innermost_one = 0;
  for (int k = 0; k < 120; ++k) {
    absl::StatusOr<schedule::State> s = SampleInitState((*sketches)[k % sketches->size()].state, TwoCores(), rng);
    ASSERT_TRUE(s.ok()) << s.status();
    for (int st = 0; st < s->num_stages(); ++st) {
      const schedule::Stage& stage = s->stage(st);
      if (stage.is_placeholder() || !stage.op->reduce() || stage.iters.empty()) continue;
      const int last = static_cast<int>(stage.iters.size()) - 1;
      if (stage.iter_node(last).kind != schedule::IterKind::kSpatial || HasAttachedStages(*s, st, last))
        continue;
      ++tiled;
      innermost_one += stage.iter_node(last).extent == 1;
      bool vector = false;
      for (const schedule::Iterator& it : stage.iters)
        vector = vector || it.annotation == schedule::IterAnnotation::kVectorize;
      EXPECT_TRUE(vector) << s->ToString();
    }
  }
  EXPECT_GT(tiled, 60);
  EXPECT_GT(innermost_one, 0);  // the case this is about was sampled

  // Growing a marked extent-1 innermost loop gives vector code (the loop
  // ends at the first such growth; a few hundred draws may come before it).
  for (int k = 0; k < 2000; ++k) {
    absl::StatusOr<schedule::State> s = SampleInitState((*sketches)[k % sketches->size()].state, TwoCores(), rng);
    ASSERT_TRUE(s.ok());
    absl::StatusOr<schedule::State> grown = MutateTileSize(*s, TwoCores(), rng);
    if (!grown.ok()) continue;
    for (int st = 0; st < s->num_stages(); ++st) {
      const schedule::Stage& before = s->stage(st);
      if (before.is_placeholder() || !before.op->reduce() || before.iters.empty()) continue;
      const int last = static_cast<int>(before.iters.size()) - 1;
      if (before.iters[last].annotation != schedule::IterAnnotation::kVectorize ||
          before.iter_node(last).extent != 1 || grown->stage(st).iter_node(last).extent < 2)
        continue;
      absl::StatusOr<lower::LoweredFunc> func = lower::Lower(*grown);
      ASSERT_TRUE(func.ok()) << func.status();
      bool vector = false;
      lower::VisitExprs(func->body, [&](const te::Expr& e) { vector = vector || e.dtype().is_vector(); });
      EXPECT_TRUE(vector) << grown->ToString();
      return;
    }
  }
  ADD_FAILURE() << "no sampled program had its extent-1 vector loop grown by a tile-size mutation";
}

TEST(MutationTest, EveryMutationReplaysAndMatchesTheReference) {
  Rng rng(5);
  std::array<int, kNumMutationKinds> succeeded{};
  for (const std::string& spec : kWorkloads) {
    te::Workload w = MustParse(spec);
    absl::StatusOr<std::vector<Sketch>> sketches = GenerateCpuSketches(w.dag, TwoCores());
    ASSERT_TRUE(sketches.ok());
    for (const Sketch& sketch : *sketches) {
      absl::StatusOr<schedule::State> parent = SampleInitState(sketch.state, TwoCores(), rng);
      ASSERT_TRUE(parent.ok());
      for (int kind = 0; kind < kNumMutationKinds; ++kind) {
        absl::StatusOr<schedule::State> child =
            Mutate(static_cast<MutationKind>(kind), *parent, TwoCores(), rng);
        if (!child.ok()) continue;  // nothing of that kind to change in this program
        ++succeeded[kind];
        ASSERT_TRUE(Replays(*child)) << spec;
        EXPECT_EQ(child->steps().size(), parent->steps().size());
        EXPECT_EQ(CheckAgainstReference(w, *child, 3), "")
            << spec << " after " << MutationName(static_cast<MutationKind>(kind)) << "\n" << child->ToString();
      }
    }
  }
  for (int kind = 0; kind < kNumMutationKinds; ++kind)
    EXPECT_GT(succeeded[kind], 0) << MutationName(static_cast<MutationKind>(kind)) << " never applied";
}

TEST(MutationTest, TileSizeMutationKeepsTheExtentAndChangesOneSplit) {
  Rng rng(9);
  te::Workload w = MustParse("matmul:M=256,N=256,K=256");
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateCpuSketches(w.dag, TwoCores());
  ASSERT_TRUE(sketches.ok());
  absl::StatusOr<schedule::State> parent = SampleInitState((*sketches)[0].state, TwoCores(), rng);
  ASSERT_TRUE(parent.ok());
  for (int k = 0; k < 20; ++k) {
    absl::StatusOr<schedule::State> child = MutateTileSize(*parent, TwoCores(), rng);
    ASSERT_TRUE(child.ok()) << child.status();
    int changed = 0;
    for (size_t i = 0; i < parent->steps().size(); ++i) {
      const auto* a = std::get_if<schedule::SplitStep>(&parent->steps()[i]);
      const auto* b = std::get_if<schedule::SplitStep>(&child->steps()[i]);
      if (!a) continue;
      ASSERT_NE(b, nullptr);
      if (a->lengths == b->lengths) continue;
      ++changed;
      int64_t product = 1;
      for (int64_t l : b->lengths) product *= l;
      EXPECT_EQ(256 % product, 0);
    }
    EXPECT_EQ(changed, 1);
  }
}

TEST(MutationTest, CrossoverOfOneSketchMixesParentsAndReplays) {
  Rng rng(13);
  te::Workload w = MustParse("conv2d+bias+relu:N=1,C=8,H=7,W=7,K=16,R=3,S=3,pad=1");
  absl::StatusOr<std::vector<Sketch>> sketches = GenerateCpuSketches(w.dag, TwoCores());
  ASSERT_TRUE(sketches.ok());
  int made = 0;
  for (int k = 0; k < 20 && made < 3; ++k) {
    absl::StatusOr<schedule::State> a = SampleInitState((*sketches)[0].state, TwoCores(), rng);
    absl::StatusOr<schedule::State> b = SampleInitState((*sketches)[0].state, TwoCores(), rng);
    ASSERT_TRUE(a.ok() && b.ok());
    absl::StatusOr<schedule::State> child = Crossover(*a, *b, [](int stage) { return stage % 2 == 1; });
    if (!child.ok()) continue;  // the samples differ in shape (a vectorize fuse in one only)
    ++made;
    EXPECT_TRUE(Replays(*child));
    EXPECT_EQ(CheckAgainstReference(w, *child, 5), "") << child->ToString();
  }
  EXPECT_GT(made, 0);
  // Parents of different sketches are refused.
  if (sketches->size() > 1) {
    absl::StatusOr<schedule::State> a = SampleInitState((*sketches)[0].state, TwoCores(), rng);
    absl::StatusOr<schedule::State> b = SampleInitState((*sketches)[1].state, TwoCores(), rng);
    EXPECT_FALSE(Crossover(*a, *b, [](int) { return true; }).ok());
  }
}

}  // namespace
}  // namespace tuneforge::search
