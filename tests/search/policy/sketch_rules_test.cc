// Sketch generation: each rule on the ops it must and must not apply to.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/lower/lower.h"
#include "common/lower/printer.h"
#include "search/annotation/annotation.h"
#include "search/sketch_generation.h"
#include "search/sketch_rules/sketch_rules.h"
#include "tests/search/policy/reference_check.h"

namespace tuneforge::search {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using testing::MustParse;

HardwareParams TwoCores() {
  HardwareParams hw;
  hw.num_cores = 2;
  hw.vector_lanes = 16;
  return hw;
}

std::vector<Sketch> Sketches(const std::string& spec) {
  absl::StatusOr<std::vector<Sketch>> s = GenerateCpuSketches(MustParse(spec).dag, TwoCores());
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : std::vector<Sketch>{};
}

// Every rule that changed any sketch, as "stage: rule".
std::vector<std::string> AllDerivations(const std::vector<Sketch>& sketches) {
  std::vector<std::string> out;
  for (const Sketch& s : sketches) out.insert(out.end(), s.derivation.begin(), s.derivation.end());
  return out;
}

std::string Describe(const std::vector<Sketch>& sketches) {
  std::string out;
  // StrAppend: GCC 12 warns (-Wrestrict) about the temporaries of a + chain.
  for (const Sketch& s : sketches) absl::StrAppend(&out, "[", absl::StrJoin(s.derivation, "; "), "]\n");
  return out;
}

TEST(SketchRulesTest, MatmulIsTiledWithAndWithoutACacheStage) {
  std::vector<Sketch> s = Sketches("matmul:M=512,N=512,K=512");
  // Cache stage tiled and fused at level 1 or 2, or the stage tiled alone;
  // each with B read directly or packed.
  ASSERT_EQ(s.size(), 6u) << Describe(s);
  std::vector<std::string> d = AllDerivations(s);
  EXPECT_THAT(d, Contains("C: add_cache_write"));
  EXPECT_THAT(d, Contains("C.local: multi_level_tiling_with_fusion (fused at tile level 1)"));
  EXPECT_THAT(d, Contains("C.local: multi_level_tiling_with_fusion (fused at tile level 2)"));
  EXPECT_THAT(d, Contains("C: multi_level_tiling"));
  EXPECT_THAT(d, Contains("C.local: add_cache_read (B)"));
  EXPECT_THAT(d, Contains("C: add_cache_read (B)"));
  // SSRSRS: 2 spatial axes x 4 levels + 1 reduction x 2 levels.
  for (const Sketch& sk : s) {
    int c = sk.state.StageIndex("C.local");
    if (c < 0) c = sk.state.StageIndex("C");
    ASSERT_GE(c, 0);
    EXPECT_EQ(sk.state.stage(c).iters.size(), 10u) << sk.state.ToString();
  }
  EXPECT_THAT(Describe(s), ::testing::Not(HasSubstr("rfactor")));  // M*N offers plenty of parallelism
}

TEST(SketchRulesTest, EveryStructureCharacterBecomesALevel) {
  absl::StatusOr<std::vector<Sketch>> s =
      GenerateSketches(MustParse("matmul:M=64,N=64,K=64").dag, TwoCores(), [] {
        std::vector<std::unique_ptr<SketchRule>> rules;
        rules.push_back(MakeMultiLevelTilingRule("SRS"));
        rules.push_back(MakeSkipStageRule());
        return rules;
      }());
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->size(), 1u);
  // i0 j0 k0 i1 j1: two spatial levels around one reduction level.
  const schedule::Stage& c = (*s)[0].state.stage(2);
  ASSERT_EQ(c.iters.size(), 5u);
  EXPECT_EQ(c.iter_node(2).kind, schedule::IterKind::kReduce);
}

TEST(SketchRulesTest, ElementwiseEpilogueIsFusedInsteadOfCached) {
  std::vector<Sketch> s = Sketches("matmul+relu:M=256,N=256,K=256");
  ASSERT_EQ(s.size(), 4u) << Describe(s);  // fusion levels 1 and 2, B packed or not
  for (const Sketch& sk : s) {
    EXPECT_THAT(sk.derivation, Contains(HasSubstr("C: multi_level_tiling_with_fusion (fused at tile level ")));
    EXPECT_THAT(Describe(s), ::testing::Not(HasSubstr("add_cache_write")));
    int c = sk.state.StageIndex("C");
    EXPECT_TRUE(std::holds_alternative<schedule::ComputeAtIter>(sk.state.stage(c).location));
  }
}

TEST(SketchRulesTest, PackingCopiesTheInputReadARowApartPerReductionStep) {
  // matmul's B[k, j]: j (the innermost output axis) on its last dimension, k
  // on the first, rows of 1 KB and more.
  std::vector<Sketch> s = Sketches("matmul:M=64,N=256,K=64");
  int packed = 0;
  for (const Sketch& sk : s) {
    if (sk.state.StageIndex("B.local") < 0) continue;
    ++packed;
    EXPECT_EQ(sk.state.StageIndex("A.local"), -1);  // A is read along k: broadcast, not packed
    const schedule::Stage& copy = sk.state.stage(sk.state.StageIndex("B.local"));
    EXPECT_FALSE(std::holds_alternative<schedule::ComputeInlined>(copy.location)) << Describe(s);
    EXPECT_EQ(copy.scope, "local");
    int tiled = sk.state.StageIndex("C.local") >= 0 ? sk.state.StageIndex("C.local") : sk.state.StageIndex("C");
    EXPECT_EQ(sk.state.dag()->analysis(tiled).producers,
              (std::vector<int>{sk.state.StageIndex("A"), sk.state.StageIndex("B.local")}));
  }
  EXPECT_EQ(packed, 3) << Describe(s);
  // Derived once each: no sketch both packs C's input and adds C's cache.
  EXPECT_THAT(Describe(s), ::testing::Not(HasSubstr("C: add_cache_read (B); C: add_cache_write")));
  // batch_matmul's B[b, k, j] too.
  EXPECT_THAT(Describe(Sketches("batch_matmul:B=2,M=32,N=512,K=32")), HasSubstr("add_cache_read"));
  // Not a computed input with rows under 1 KB (all of it fits a few cache
  // sets; batch_matmul's B is not a weight), nor the padded data of a conv.
  EXPECT_THAT(Describe(Sketches("batch_matmul:B=2,M=32,N=128,K=32")), ::testing::Not(HasSubstr("add_cache_read")));
  EXPECT_THAT(Describe(Sketches("conv2d:N=1,C=256,H=14,W=14,K=256,R=3,S=3,pad=1")),
              ::testing::Not(HasSubstr("add_cache_read (pad)")));
}

TEST(SketchRulesTest, ConstantWeightsArePackedWhateverTheirReadOrder) {
  // Packing a constant costs nothing per call (the layout rewrite computes
  // it once), so short rows, dense's W[j, k] (read along j) and a conv's
  // W[k, c, r, s] are packed too.
  EXPECT_THAT(Describe(Sketches("matmul:M=64,N=128,K=64")), HasSubstr("add_cache_read (B)"));
  EXPECT_THAT(Describe(Sketches("dense:M=64,N=512,K=512")), HasSubstr("add_cache_read (weight)"));
  EXPECT_THAT(Describe(Sketches("conv2d:N=1,C=256,H=14,W=14,K=256,R=3,S=3,pad=1")),
              HasSubstr("add_cache_read (kernel)"));
}

TEST(SketchRulesTest, AConvsOutputChannelsCanBeTheInnermostTileAxis) {
  // W[k, c, r, s] varies along k and the data does not: with k innermost
  // in the register tile the weight loads as vectors (a 14-wide row would
  // fill 14 of 16 lanes).
  std::vector<Sketch> s = Sketches("conv2d:N=1,C=64,H=14,W=14,K=64,R=3,S=3,pad=1");
  int k_inner = 0;
  for (const Sketch& sk : s) {
    bool variant = false;
    for (const std::string& d : sk.derivation) variant = variant || d.find("k innermost") != std::string::npos;
    if (!variant) continue;
    ++k_inner;
    int conv = sk.state.StageIndex("conv2d.local");
    ASSERT_GE(conv, 0) << Describe(s);
    const schedule::Stage& st = sk.state.stage(conv);
    EXPECT_EQ(st.iter_node(static_cast<int>(st.iters.size()) - 1).name, "k.3") << sk.state.ToString();
  }
  EXPECT_EQ(k_inner, 4) << Describe(s);  // fusion levels 1 and 2, the weight packed or not
  // Not where every input varies along the axis (matmul's i: A[i, k]).
  EXPECT_THAT(Describe(Sketches("matmul:M=256,N=256,K=256")), ::testing::Not(HasSubstr("innermost")));
}

int SketchesWithoutCacheStage(const std::vector<Sketch>& sketches, const std::string& stage) {
  int without = 0;
  for (const Sketch& sk : sketches) without += sk.state.StageIndex(stage + ".local") < 0;
  return without;
}

int SketchesWithoutInnermost(const std::vector<Sketch>& sketches, const std::string& axis) {
  int without = 0;
  for (const Sketch& sk : sketches)
    without += absl::StrJoin(sk.derivation, "; ").find(axis + " innermost") == std::string::npos;
  return without;
}

TEST(SketchRulesTest, RowsShorterThanAVectorAreTiledOnlyThroughACacheStage) {
  // A 14-wide row fills 14 of 16 lanes: written in place, or with the row
  // innermost in the register tile, every vector would be partial. Every
  // sketch of the conv accumulates in a cache stage with the output
  // channels innermost (the weight loads as whole vectors).
  const std::string narrow = "conv2d:N=1,C=256,H=14,W=14,K=256,R=3,S=3,pad=1";
  std::vector<Sketch> s = Sketches(narrow);
  ASSERT_EQ(s.size(), 4u) << Describe(s);  // fusion levels 1 and 2, the weight packed or not
  EXPECT_EQ(SketchesWithoutCacheStage(s, "conv2d"), 0) << Describe(s);
  EXPECT_EQ(SketchesWithoutInnermost(s, "k"), 0) << Describe(s);
  EXPECT_EQ(SketchesWithoutCacheStage(Sketches("matmul:M=256,N=8,K=256"), "C"), 0);
  // Rows of a vector or more keep Ansor's sketches without the cache and
  // the tiling in the axes' order as well.
  std::vector<Sketch> wide = Sketches("conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,pad=1");
  EXPECT_GT(SketchesWithoutCacheStage(wide, "conv2d"), 0) << Describe(wide);
  EXPECT_GT(SketchesWithoutInnermost(wide, "k"), SketchesWithoutCacheStage(wide, "conv2d")) << Describe(wide);
  EXPECT_GT(SketchesWithoutCacheStage(Sketches("matmul:M=256,N=16,K=256"), "C"), 0);
  // So do 14-wide rows where a vector holds 8 floats (AVX2).
  HardwareParams avx2 = TwoCores();
  avx2.vector_lanes = 8;
  absl::StatusOr<std::vector<Sketch>> eight_lanes = GenerateCpuSketches(MustParse(narrow).dag, avx2);
  ASSERT_TRUE(eight_lanes.ok()) << eight_lanes.status();
  EXPECT_GT(SketchesWithoutCacheStage(*eight_lanes, "conv2d"), 0) << Describe(*eight_lanes);
  EXPECT_GT(SketchesWithoutInnermost(*eight_lanes, "k"), SketchesWithoutCacheStage(*eight_lanes, "conv2d"));
}

TEST(SketchRulesTest, ConvWithBiasAndReluInlinesPaddingAndBiasAndFusesTheConv) {
  std::vector<Sketch> s = Sketches("conv2d+bias+relu:N=1,C=64,H=14,W=14,K=64,R=3,S=3,pad=1");
  ASSERT_FALSE(s.empty());
  std::vector<std::string> d = AllDerivations(s);
  EXPECT_THAT(Describe(s), HasSubstr("always_inline"));
  EXPECT_THAT(Describe(s), HasSubstr("multi_level_tiling_with_fusion"));
  for (const Sketch& sk : s) {
    // No stage but the output and the conv is left with a nest of its own.
    for (int i = 0; i < sk.state.num_stages(); ++i) {
      const schedule::Stage& st = sk.state.stage(i);
      if (st.is_placeholder() || sk.state.dag()->analysis(i).is_output) continue;
      if (st.op->reduce() || st.op->name == "kernel.local") continue;  // the conv and its packed weight
      EXPECT_TRUE(std::holds_alternative<schedule::ComputeInlined>(st.location)) << st.op->name;
    }
  }
}

// Winograd: the transforms unroll the axes of their constant matrices
// (simplify_const_tensor), the input tile is gathered inside the data
// transform's loops (special_compute_location), the batched product is
// tiled, the kernel transform is left for the layout rewrite to precompute;
// sampled programs compute the convolution.
TEST(SketchRulesTest, WinogradTransformsUnrollTheirMatrixAxesAndGatherTheTileInside) {
  const std::string spec = "conv2d_winograd:N=1,C=16,H=14,W=14,K=16,tile=2";
  std::vector<Sketch> s = Sketches(spec);
  ASSERT_FALSE(s.empty());
  const std::string described = Describe(s);
  for (const char* d : {"data_pack: simplify_const_tensor", "inverse: transform_at_consumer",
                        "input_tile: special_compute_location",
                        "bgemm: multi_level_tiling", "winograd_BT: always_inline"})
    EXPECT_THAT(described, HasSubstr(d));
  // The kernel transform is left as it is (precomputed_constant); the
  // product may read it through a packed copy (add_cache_read), which the
  // layout rewrite fills once in the order the tile reads it.
  EXPECT_THAT(described, ::testing::Not(HasSubstr("kernel_pack:")));
  EXPECT_THAT(described, HasSubstr("bgemm: add_cache_read (kernel_pack)"));
  const te::Workload w = MustParse(spec);
  Rng rng(3);
  for (const Sketch& sk : s) {
    const schedule::State& st = sk.state;
    int data_pack = -1, input_tile = -1;
    for (int i = 0; i < st.num_stages(); ++i) {
      if (st.stage(i).op->name == "data_pack") data_pack = i;
      if (st.stage(i).op->name == "input_tile") input_tile = i;
    }
    ASSERT_GE(data_pack, 0);
    ASSERT_GE(input_tile, 0);
    // [p.0, c.0.0, p.1, c.0.1, eps, nu, r_a, r_b, c.1]: the matrix axes
    // unrolled, one vector of channels inside them (16 lanes, all 16 here).
    const schedule::Stage& dp = st.stage(data_pack);
    ASSERT_EQ(dp.iters.size(), 9u) << st.ToString();
    for (int i = 0; i < 9; ++i)
      EXPECT_EQ(dp.iters[i].annotation == schedule::IterAnnotation::kUnroll, i >= 4 && i < 8) << st.ToString();
    EXPECT_EQ(dp.iter_node(8).kind, schedule::IterKind::kSpatial) << st.ToString();
    EXPECT_EQ(dp.iter_node(8).extent, 16) << st.ToString();
    const auto* at = std::get_if<schedule::ComputeAtIter>(&st.stage(input_tile).location);
    ASSERT_NE(at, nullptr) << st.ToString();
    EXPECT_EQ(at->target_stage, data_pack);
    EXPECT_EQ(at->target_node, dp.iters[3].node);
    int vector_transforms = 0;
    for (int sample = 0; sample < 4; ++sample) {
      absl::StatusOr<schedule::State> program = SampleInitState(st, TwoCores(), rng);
      ASSERT_TRUE(program.ok()) << program.status();
      EXPECT_EQ(testing::CheckAgainstReference(w, *program, sample), "") << program->ToString();
      // The vector level keeps its length through sampling.
      const schedule::Stage& sampled = program->stage(data_pack);
      EXPECT_EQ(sampled.iter_node(static_cast<int>(sampled.iters.size()) - 1).extent, 16) << program->ToString();
      vector_transforms += sampled.iters.back().annotation == schedule::IterAnnotation::kVectorize;
    }
    EXPECT_GT(vector_transforms, 0) << "no sampled data transform runs over a vector of channels";
  }
}

// The kernel transform runs once, in the prepack function, over its own
// axes: sketches and samples leave it untouched at root (no search step on
// it would change the kernel; a packed copy of it may be read instead), and
// every sampled program of a Winograd conv that reads it directly lowers to
// one prepack function (one compile for a builder's cache). Programs that
// read a packed copy prepack that too, in their own tile's order, and keep
// only the copy: the transform is the prepack function's temporary.
TEST(SketchRulesTest, WinogradKernelTransformIsPrecomputedUntouched) {
  const std::string spec = "conv2d_winograd:N=1,C=64,H=14,W=14,K=64,tile=2";
  std::vector<Sketch> s = Sketches(spec);
  ASSERT_FALSE(s.empty());
  const te::Workload w = MustParse(spec);
  Rng rng(5);
  std::set<std::string> prepacks;
  int checked[2] = {0, 0};  // programs run against the reference, without and with the copy
  for (const Sketch& sk : s)
    for (int sample = 0; sample < 4; ++sample) {
      absl::StatusOr<schedule::State> program = SampleInitState(sk.state, TwoCores(), rng);
      ASSERT_TRUE(program.ok()) << program.status();
      const int kernel_pack = program->StageIndex("kernel_pack");
      ASSERT_GE(kernel_pack, 0);
      EXPECT_TRUE(std::holds_alternative<schedule::ComputeRoot>(program->stage(kernel_pack).location));
      bool copied = false;
      for (const schedule::Step& step : program->steps()) {
        if (schedule::StepStage(step) != kernel_pack) continue;
        EXPECT_TRUE(std::holds_alternative<schedule::CacheReadStep>(step)) << program->ToString();
        copied = true;
      }
      absl::StatusOr<lower::LoweredFunc> f = lower::Lower(*program);
      ASSERT_TRUE(f.ok()) << f.status();
      // One packed argument: the transform itself, or the copy the product
      // reads, with the transform a temporary of the prepack function.
      ASSERT_EQ(f->num_packed, 1) << program->ToString();
      EXPECT_EQ(f->args.back()->name, copied ? "kernel_pack.local.packed" : "kernel_pack.packed");
      EXPECT_EQ(lower::ToString(f->prepack).find("allocate kernel_pack.packed") != std::string::npos, copied);
      if (!copied) prepacks.insert(lower::ToString(f->prepack));
      if (checked[copied]++ < 2) {
        EXPECT_EQ(testing::CheckAgainstReference(w, *program, sample), "") << program->ToString();
      }
    }
  EXPECT_EQ(prepacks.size(), 1u);
  EXPECT_GT(checked[1], 0) << "no sampled program reads a packed copy of the transformed weights";
}

// Elements of the lowered program's first allocation of `buffer`
// ("allocate inverse[float32 * 4 * 4 * 4 * 16]": 1024), 0 when none.
int64_t AllocatedElements(const std::string& program, const std::string& buffer) {
  const std::string start = absl::StrCat("allocate ", buffer, "[");
  const size_t at = program.find(start);
  if (at == std::string::npos) return 0;
  const size_t end = program.find(']', at);
  int64_t elements = 1;
  for (absl::string_view part : absl::StrSplit(program.substr(at, end - at), " * ")) {
    int64_t n = 0;
    if (absl::SimpleAtoi(part, &n)) elements *= n;
  }
  return elements;
}

// Winograd's inverse transform is computed inside the output's gathering
// (transform_at_consumer), not at root: the output's rows split by the
// tile, its channels by a vector, the inverse filling one row of tiles and
// one vector of channels at a time (a 4 x 4 x 4 x 16 local array here; 14
// rows are not a multiple of the tile of 4, so the last row of tiles is
// cut). Sampled programs compute the conv. Without a vector of channels (17
// of them) the inverse stays at root (simplify_const_tensor).
TEST(SketchRulesTest, WinogradInverseIsComputedInsideTheOutputsGathering) {
  const std::string spec = "conv2d_winograd:N=1,C=16,H=14,W=14,K=32,tile=4";
  std::vector<Sketch> s = Sketches(spec);
  ASSERT_FALSE(s.empty());
  const std::string described = Describe(s);
  EXPECT_THAT(described, HasSubstr("inverse: transform_at_consumer (in the gathering)"));
  EXPECT_THAT(described, ::testing::Not(HasSubstr("inverse: simplify_const_tensor")));
  EXPECT_THAT(described, ::testing::Not(HasSubstr("data_pack: transform_at_consumer")));  // read by a product
  const te::Workload w = MustParse(spec);
  Rng rng(11);
  int checked = 0;
  for (const Sketch& sk : s) {
    const schedule::State& st = sk.state;
    const int inverse = st.StageIndex("inverse"), output = st.StageIndex("conv2d_winograd");
    const auto* at = std::get_if<schedule::ComputeAtIter>(&st.stage(inverse).location);
    ASSERT_NE(at, nullptr) << st.ToString();
    EXPECT_EQ(at->target_stage, output);
    // [n, k.0, oh.0 | k.1, oh.1, ow]: attached at oh.0.
    const schedule::Stage& out = st.stage(output);
    ASSERT_EQ(out.iters.size(), 6u) << st.ToString();
    EXPECT_EQ(at->target_node, out.iters[2].node);
    EXPECT_EQ(out.iter_node(3).extent, 16) << st.ToString();
    EXPECT_EQ(out.iter_node(4).extent, 4) << st.ToString();
    for (int sample = 0; sample < 2; ++sample) {
      absl::StatusOr<schedule::State> program = SampleInitState(st, TwoCores(), rng);
      ASSERT_TRUE(program.ok()) << program.status();
      absl::StatusOr<lower::LoweredFunc> f = lower::Lower(*program);
      ASSERT_TRUE(f.ok()) << f.status();
      // One row of tiles and one vector of channels, not the whole
      // transformed output (4 x 4 x 16 tiles x 32 channels).
      EXPECT_EQ(AllocatedElements(lower::ToString(*f), "inverse"), 4 * 4 * 4 * 16) << program->ToString();
      if (checked++ < 3) {
        EXPECT_EQ(testing::CheckAgainstReference(w, *program, sample), "") << program->ToString();
      }
    }
  }
  const std::string odd = Describe(Sketches("conv2d_winograd:N=1,C=8,H=8,W=8,K=17,tile=2"));
  EXPECT_THAT(odd, HasSubstr("inverse: simplify_const_tensor"));
  EXPECT_THAT(odd, ::testing::Not(HasSubstr("transform_at_consumer")));
}

// In a model's fused task the gathering is not the output (bias and relu
// follow it): the inverse is derived inside it, and also inside the relu
// with the gathering inlined there (one pass for the inverse, the gathering,
// bias and relu); programs of both compute the fused conv.
TEST(SketchRulesTest, WinogradInverseGoesInsideTheGatheringOrItsEpilogue) {
  const std::string spec = "conv2d_winograd+bias+relu:N=1,C=16,H=8,W=8,K=16,tile=4";
  std::vector<Sketch> s = Sketches(spec);
  EXPECT_THAT(Describe(s), HasSubstr("inverse: transform_at_consumer (in the gathering)"));
  EXPECT_THAT(Describe(s), HasSubstr("inverse: transform_at_consumer (in the epilogue)"));
  const te::Workload w = MustParse(spec);
  Rng rng(13);
  std::set<std::string> targets;
  for (const Sketch& sk : s) {
    const schedule::State& st = sk.state;
    const auto* at = std::get_if<schedule::ComputeAtIter>(&st.stage(st.StageIndex("inverse")).location);
    if (!at) continue;
    const std::string target = st.stage(at->target_stage).op->name;
    EXPECT_EQ(std::holds_alternative<schedule::ComputeInlined>(st.stage(st.StageIndex("conv2d_winograd")).location),
              target == "relu")
        << st.ToString();
    absl::StatusOr<schedule::State> program = SampleInitState(st, TwoCores(), rng);
    ASSERT_TRUE(program.ok()) << program.status();
    EXPECT_EQ(testing::CheckAgainstReference(w, *program, targets.size()), "") << program->ToString();
    targets.insert(target);
  }
  EXPECT_EQ(targets, (std::set<std::string>{"conv2d_winograd", "relu"})) << Describe(s);
}

TEST(SketchRulesTest, ElementwiseOpsAreOnlySkipped) {
  for (const char* spec : {"relu:N=1,C=64,H=56,W=56", "add:M=128,N=128"}) {
    std::vector<Sketch> s = Sketches(spec);
    ASSERT_EQ(s.size(), 1u) << spec;
    EXPECT_TRUE(s[0].state.steps().empty()) << spec;  // nothing to tile, an output is never inlined
  }
}

TEST(SketchRulesTest, ReductionWithoutParallelismGetsRfactor) {
  // norm: one output, 512*512 reduction: both rfactor variants plus the plain stage.
  std::vector<Sketch> s = Sketches("norm:M=512,N=512");
  EXPECT_THAT(Describe(s), HasSubstr("add_rfactor (inner part factored)"));
  EXPECT_THAT(Describe(s), HasSubstr("add_rfactor (outer part factored)"));
  int with_rfactor = 0;
  for (const Sketch& sk : s)
    for (const schedule::Step& step : sk.state.steps())
      with_rfactor += std::holds_alternative<schedule::RfactorStep>(step);
  EXPECT_EQ(with_rfactor, 2) << Describe(s);
  EXPECT_EQ(s.size(), 3u) << Describe(s);
}

TEST(SketchRulesTest, SmallOutputMatmulWithLongReductionGetsRfactor) {
  std::vector<Sketch> s = Sketches("matmul:M=2,N=2,K=4096");
  EXPECT_THAT(Describe(s), HasSubstr("add_rfactor"));
}

TEST(SketchRulesTest, SketchesReplayFromTheirSteps) {
  for (const char* spec : {"matmul:M=512,N=512,K=512", "conv2d+bias+relu:N=1,C=64,H=14,W=14,K=64,R=3,S=3,pad=1",
                           "depthwise_conv2d:N=1,C=256,H=14,W=14,R=3,S=3,pad=1", "softmax:M=64,N=1000"}) {
    te::Workload w = MustParse(spec);
    for (const Sketch& sk : Sketches(spec)) {
      absl::StatusOr<schedule::State> again = schedule::State::Replay(w.dag, sk.state.steps());
      ASSERT_TRUE(again.ok()) << spec << ": " << again.status();
      EXPECT_EQ(again->Hash(), sk.state.Hash());
    }
  }
}

// A rule of the user's own, added to a list without touching the others.
class TileOnlyTheOutputRule : public SketchRule {
 public:
  const char* name() const override { return "tile_output"; }
  RuleDecision Check(const schedule::State& state, int stage, const HardwareParams&) const override {
    return state.dag()->analysis(stage).is_output ? RuleDecision::kApplyAndSkipRest : RuleDecision::kSkip;
  }
  std::vector<DerivedState> Apply(const schedule::State& state, int stage,
                                  const HardwareParams&) const override {
    schedule::State next = state;
    if (!next.Apply(schedule::SplitStep{stage, 0, {4}, true}).ok()) return {};
    return {DerivedState{std::move(next), stage - 1, ""}};
  }
};

TEST(SketchRulesTest, AUserRuleJoinsTheList) {
  std::vector<std::unique_ptr<SketchRule>> rules;
  rules.push_back(std::make_unique<TileOnlyTheOutputRule>());
  rules.push_back(MakeSkipStageRule());
  absl::StatusOr<std::vector<Sketch>> s =
      GenerateSketches(MustParse("relu:N=1,C=8,H=4,W=4").dag, TwoCores(), rules);
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->size(), 1u);
  EXPECT_THAT((*s)[0].derivation, Contains("relu: tile_output"));
}

TEST(SketchRulesTest, NoFallbackRuleIsAnError) {
  std::vector<std::unique_ptr<SketchRule>> rules;
  rules.push_back(MakeAlwaysInlineRule());
  absl::StatusOr<std::vector<Sketch>> s =
      GenerateSketches(MustParse("relu:N=1,C=8,H=4,W=4").dag, TwoCores(), rules);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(), HasSubstr("skip rule"));
}

}  // namespace
}  // namespace tuneforge::search
