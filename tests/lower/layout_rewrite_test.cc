// Layout rewrite: stages that read only constant inputs are computed once by
// the prepack function into packed argument buffers, in the layout the
// kernel reads; the kernel no longer copies them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/lower/lower.h"
#include "common/lower/passes/roll_loops.h"
#include "common/lower/printer.h"
#include "common/lower/stmt_functor.h"
#include "common/te/workload.h"
#include "tests/lower/lower_test_util.h"

namespace tuneforge::lower {
namespace {

using schedule::CacheReadStep;
using schedule::PragmaStep;
using schedule::ComputeAtStep;
using schedule::ReorderStep;
using schedule::SplitStep;
using schedule::State;

// Stores into the buffer named `name` anywhere in `body`.
int StoresInto(const Stmt& body, const std::string& name) {
  int n = 0;
  if (!body) return 0;
  VisitStmts(body, [&](const Stmt& s) {
    if (const Store* st = s.as<Store>(); st && st->buffer->name == name) ++n;
  });
  return n;
}

// A matmul tile loop nest (j.0, k.0, i, k.1, j.1) with B's panel for each
// (j.0, k.0) copied into a local buffer inside k.0: the packing copy.
State PackedPanelMatmul(const te::ComputeDagPtr& dag) {
  State state(dag);
  EXPECT_TRUE(state.Apply(SplitStep{2, 1, {16}, true}).ok());  // i, j.0, j.1, k
  EXPECT_TRUE(state.Apply(SplitStep{2, 3, {8}, true}).ok());   // i, j.0, j.1, k.0, k.1
  EXPECT_TRUE(state.Apply(ReorderStep{2, {1, 3, 0, 4, 2}}).ok());
  EXPECT_TRUE(state.Apply(CacheReadStep{1, "local", {2}}).ok());  // B.local is stage 2, C stage 3
  EXPECT_TRUE(state.Apply(ComputeAtStep{2, 3, 1}).ok());          // inside k.0
  return state;
}

te::ComputeDagPtr Definition(const std::string& text) {
  absl::StatusOr<te::Workload> w = te::ParseDefinition(text);
  EXPECT_TRUE(w.ok()) << w.status();
  return w.ok() ? w->dag : nullptr;
}

TEST(LayoutRewriteTest, APanelOfAConstantMatrixIsPackedOnceInTheTilesLayout) {
  te::ComputeDagPtr dag = testing::Dag("matmul:M=64,N=256,K=64");  // B is the constant weight
  ASSERT_NE(dag, nullptr);
  ASSERT_TRUE(dag->op(1)->constant);
  State state = PackedPanelMatmul(dag);
  absl::StatusOr<LoweredFunc> f = Lower(state);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->num_packed, 1);
  ASSERT_EQ(f->args.size(), 4u);  // A, B, C, then the packed panels
  const Buffer& packed = f->args.back();
  EXPECT_EQ(packed->name, "B.local.packed");
  // One 8 x 16 panel per (j.0, k.0), contiguous, in the order the tiles walk
  // them: B in blocks, as many elements as B.
  EXPECT_THAT(packed->shape, ::testing::ElementsAre(16, 8, 8, 16));
  // The copy left the kernel: only the prepack function writes the panels.
  EXPECT_EQ(StoresInto(f->body, "B.local.packed"), 0);
  EXPECT_EQ(StoresInto(f->body, "B.local"), 0);
  EXPECT_GT(StoresInto(f->prepack, "B.local.packed"), 0);
  EXPECT_THAT(ToString(*f), ::testing::HasSubstr("default_function_prepack("));
  EXPECT_EQ(testing::CheckAgainstReference(state), "");
  LowerOptions plain;
  plain.vectorize = plain.unroll = false;
  EXPECT_EQ(testing::CheckAgainstReference(state, plain), "");
}

// The prepack runs once, untimed: an unroll pragma the search gave the
// precomputed stage does not copy its loops (it did: 256 scattered stores
// of a conv's weight packing in one block, 1.4 s of compile time).
TEST(LayoutRewriteTest, ThePrepackKeepsItsLoopsWhateverThePackedStagesPragma) {
  te::ComputeDagPtr dag = testing::Dag("matmul:M=64,N=256,K=64");
  ASSERT_NE(dag, nullptr);
  State state = PackedPanelMatmul(dag);
  ASSERT_TRUE(state.Apply(PragmaStep{2, 0, 512}).ok());  // B.local's 8 x 16 panel: 128 copies
  absl::StatusOr<LoweredFunc> f = Lower(state);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_TRUE(f->prepack);
  EXPECT_EQ(StoresInto(f->prepack, "B.local.packed"), 1);
  int unrolled = 0;
  VisitStmts(f->prepack, [&](const Stmt& s) {
    if (const For* loop = s.as<For>(); loop && loop->kind == ForKind::kUnrolled) ++unrolled;
  });
  EXPECT_EQ(unrolled, 0);
  EXPECT_EQ(testing::CheckAgainstReference(state), "");
}

// Loops of the prepack by kind.
int PrepackLoopsOfKind(const Stmt& prepack, ForKind kind) {
  int n = 0;
  VisitStmts(prepack, [&](const Stmt& s) {
    if (const For* loop = s.as<For>(); loop && loop->kind == kind) ++n;
  });
  return n;
}

// A prepack that only copies (a weight's layout rewrite) is left rolled for
// LLVM: O3 spent a fifth of a conv candidate's compile unrolling and
// shuffling such a copy, which ran no faster for it.
TEST(LayoutRewriteTest, APrepackThatOnlyCopiesKeepsItsLoopsRolled) {
  te::ComputeDagPtr dag = testing::Dag("matmul:M=64,N=256,K=64");
  ASSERT_NE(dag, nullptr);
  State state = PackedPanelMatmul(dag);
  absl::StatusOr<LoweredFunc> f = Lower(state);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_TRUE(f->prepack);
  EXPECT_TRUE(OnlyCopies(f->prepack));
  EXPECT_GT(PrepackLoopsOfKind(f->prepack, ForKind::kRolled), 0) << ToString(f->prepack);
  EXPECT_EQ(PrepackLoopsOfKind(f->prepack, ForKind::kSerial), 0) << ToString(f->prepack);
  EXPECT_EQ(testing::CheckAgainstReference(state), "");
}

// One that computes (a scaled weight here, Winograd's kernel transform in a
// conv) keeps serial loops, which LLVM may vectorize.
TEST(LayoutRewriteTest, APrepackThatComputesKeepsLlvmsLoopOptimizations) {
  te::ComputeDagPtr dag = Definition(
      "input X: float32[32, 48]\ninput W: float32[40, 48] constant\n"
      "WT[k: 48, j: 40] = W[j, k] * 0.5\n"
      "Y[i: 32, j: 40] = sum(X[i, k] * WT[k, j], k: 48)\n");
  ASSERT_NE(dag, nullptr);
  State state(dag);
  absl::StatusOr<LoweredFunc> f = Lower(state);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_TRUE(f->prepack);
  EXPECT_FALSE(OnlyCopies(f->prepack));
  EXPECT_EQ(PrepackLoopsOfKind(f->prepack, ForKind::kRolled), 0) << ToString(f->prepack);
  EXPECT_EQ(testing::CheckAgainstReference(state), "");
}

// The search's features lower without the prepack function: the kernel is
// the same (it still reads the packed panels) and nothing else is built.
TEST(LayoutRewriteTest, WithoutThePrepackTheKernelIsTheSameAndReadsThePackedPanels) {
  te::ComputeDagPtr dag = testing::Dag("matmul:M=64,N=256,K=64");
  ASSERT_NE(dag, nullptr);
  State state = PackedPanelMatmul(dag);
  absl::StatusOr<LoweredFunc> whole = Lower(state);
  LowerOptions kernel_only;
  kernel_only.prepack = false;
  absl::StatusOr<LoweredFunc> f = Lower(state, kernel_only);
  ASSERT_TRUE(whole.ok() && f.ok()) << whole.status() << f.status();
  ASSERT_TRUE(whole->prepack);
  EXPECT_FALSE(f->prepack);
  EXPECT_EQ(f->num_packed, 1);
  ASSERT_EQ(f->args.size(), 4u);
  EXPECT_EQ(f->args.back()->name, "B.local.packed");
  EXPECT_EQ(ToString(f->body), ToString(whole->body));
  EXPECT_THAT(ToString(*f), ::testing::Not(::testing::HasSubstr("default_function_prepack(")));
}

TEST(LayoutRewriteTest, ANonConstantInputIsCopiedInEveryCallAsBefore) {
  te::ComputeDagPtr dag = Definition(
      "input A: float32[64, 64]\ninput B: float32[64, 256]\n"
      "C[i: 64, j: 256] = sum(A[i, k] * B[k, j], k: 64)\n");
  ASSERT_NE(dag, nullptr);
  State state = PackedPanelMatmul(dag);
  absl::StatusOr<LoweredFunc> f = Lower(state);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->num_packed, 0);
  EXPECT_FALSE(f->prepack);
  EXPECT_GT(StoresInto(f->body, "B.local"), 0);
  EXPECT_EQ(testing::CheckAgainstReference(state), "");
}

// The best 1024^3 matmul of a tuning: B's 1 x 32 row strip is copied inside
// C.local's loops, which sit inside a parallel loop fusing row and column
// tiles. The packed copy is still B's size (a slot per strip, not per
// iteration of the fused loop), and nothing is copied per call.
TEST(LayoutRewriteTest, StripsInsideAFusedParallelLoopPackToTheTensorsSize) {
  te::ComputeDagPtr dag = testing::Dag("matmul:M=64,N=128,K=32");
  ASSERT_NE(dag, nullptr);
  State state(dag);
  ASSERT_TRUE(state.Apply(schedule::CacheWriteStep{2, "local"}).ok());              // A, B, C.local, C
  ASSERT_TRUE(state.Apply(CacheReadStep{1, "local", {2}}).ok());                    // A, B, B.local, C.local, C
  ASSERT_TRUE(state.Apply(SplitStep{3, 0, {2, 8}, true}).ok());                     // i.0 i.1 i.2, j, k
  ASSERT_TRUE(state.Apply(SplitStep{3, 3, {2, 32}, true}).ok());                    // j.0 j.1 j.2, k
  ASSERT_TRUE(state.Apply(SplitStep{3, 6, {8}, true}).ok());                        // k.0 k.1
  // C.local: i.0 j.0 k.0 i.1 j.1 k.1 i.2 j.2
  ASSERT_TRUE(state.Apply(ReorderStep{3, {0, 3, 6, 1, 4, 7, 2, 5}}).ok());
  ASSERT_TRUE(state.Apply(SplitStep{4, 0, {16}, true}).ok());                       // C: i.0 i.1 j
  ASSERT_TRUE(state.Apply(SplitStep{4, 2, {64}, true}).ok());                       // C: i.0 i.1 j.0 j.1
  ASSERT_TRUE(state.Apply(ReorderStep{4, {0, 2, 1, 3}}).ok());                      // i.0 j.0 i.1 j.1
  ASSERT_TRUE(state.Apply(schedule::FuseStep{4, {0, 1}}).ok());                     // i.0@j.0 i.1 j.1
  ASSERT_TRUE(state.Apply(schedule::AnnotationStep{4, 0, schedule::IterAnnotation::kParallel}).ok());
  ASSERT_TRUE(state.Apply(ComputeAtStep{3, 4, 0}).ok());                            // C.local in i.0@j.0
  ASSERT_TRUE(state.Apply(ComputeAtStep{2, 3, 5}).ok());                            // B.local in k.1
  absl::StatusOr<LoweredFunc> f = Lower(state);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->num_packed, 1) << ToString(*f);
  int64_t elements = 1;
  for (int64_t e : f->args.back()->shape) elements *= e;
  EXPECT_EQ(elements, 32 * 128);
  EXPECT_EQ(StoresInto(f->body, "B.local"), 0);
  EXPECT_EQ(testing::CheckAgainstReference(state), "");
}

TEST(LayoutRewriteTest, CanBeTurnedOff) {
  State state = PackedPanelMatmul(testing::Dag("matmul:M=64,N=256,K=64"));
  LowerOptions options;
  options.hoist_constants = false;
  absl::StatusOr<LoweredFunc> f = Lower(state, options);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->num_packed, 0);
  EXPECT_GT(StoresInto(f->body, "B.local"), 0);
}

// A computation on weights alone (a transposed, scaled kernel) at root is
// precomputed whole; a stage that also reads data is not.
TEST(LayoutRewriteTest, ComputationsOnConstantsAloneArePrecomputed) {
  te::ComputeDagPtr dag = Definition(
      "input X: float32[32, 48]\ninput W: float32[40, 48] constant\n"
      "WT[k: 48, j: 40] = W[j, k] * 0.5\n"
      "XS[i: 32, k: 48] = X[i, k] + 1.0\n"
      "Y[i: 32, j: 40] = sum(XS[i, k] * WT[k, j], k: 48)\n");
  ASSERT_NE(dag, nullptr);
  State state(dag);  // nothing inlined: every stage at root
  absl::StatusOr<LoweredFunc> f = Lower(state);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->num_packed, 1);
  EXPECT_EQ(f->args.back()->name, "WT.packed");
  // Y's loops (i, j, k) read WT[k, j] along k: stored [j][k].
  EXPECT_THAT(f->args.back()->shape, ::testing::ElementsAre(40, 48));
  EXPECT_EQ(StoresInto(f->body, "WT.packed"), 0);
  EXPECT_GT(StoresInto(f->body, "XS"), 0);
  EXPECT_EQ(testing::CheckAgainstReference(state), "");
}

// A stage precomputed from constants is stored in the order its reader
// walks it, not the order its own loops write it (they run once, before the
// first call): Winograd's transformed kernel is read along the output
// channel by the batched matmul's vectors.
TEST(LayoutRewriteTest, APrecomputedStageIsStoredInItsReadersOrder) {
  te::ComputeDagPtr dag = Definition(
      "input X: float32[32, 48]\ninput W: float32[40, 48] constant\n"
      "WS[j: 40, k: 48] = W[j, k] * 0.5\n"
      "Y[i: 32, j: 40] = sum(X[i, k] * WS[j, k], k: 48)\n");
  ASSERT_NE(dag, nullptr);
  State state(dag);
  ASSERT_TRUE(state.Apply(ReorderStep{3, {0, 2, 1}}).ok());  // Y walks i, k, j: j innermost
  absl::StatusOr<LoweredFunc> f = Lower(state);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->num_packed, 1);
  EXPECT_EQ(f->args.back()->name, "WS.packed");
  EXPECT_THAT(f->args.back()->shape, ::testing::ElementsAre(48, 40));
  EXPECT_EQ(testing::CheckAgainstReference(state), "");

  // Computed in every call (no layout rewrite), its own loops' order stays.
  LowerOptions per_call;
  per_call.hoist_constants = false;
  absl::StatusOr<LoweredFunc> g = Lower(state, per_call);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->num_packed, 0);
  EXPECT_THAT(ToString(g->body), ::testing::HasSubstr("allocate WS[float32 * 40 * 48]"));
}

// A stage precomputed whole is computed over its definition's axes, whatever
// its schedule: the schedule cannot change the kernel (the packed layout
// follows the reader), and one prepack function for every program of a
// workload is one compile for a builder's function cache.
TEST(LayoutRewriteTest, APrecomputedStagesScheduleDoesNotChangeThePrepack) {
  te::ComputeDagPtr dag = Definition(
      "input X: float32[32, 48]\ninput W: float32[40, 48, 3] constant\n"
      "WS[j: 40, k: 48] = sum(W[j, k, r] * 0.5, r: 3)\n"
      "Y[i: 32, j: 40] = sum(X[i, k] * WS[j, k], k: 48)\n");
  ASSERT_NE(dag, nullptr);
  State plain(dag);
  State scheduled(dag);
  ASSERT_TRUE(scheduled.Apply(SplitStep{2, 0, {8}, true}).ok());  // WS: j.0, j.1, k, r
  ASSERT_TRUE(scheduled.Apply(ReorderStep{2, {1, 0, 2, 3}}).ok());  // j.1, j.0, k, r
  ASSERT_TRUE(scheduled.Apply(schedule::AnnotationStep{2, 0, schedule::IterAnnotation::kParallel}).ok());
  ASSERT_TRUE(scheduled.Apply(schedule::AnnotationStep{2, 3, schedule::IterAnnotation::kUnroll}).ok());
  ASSERT_TRUE(scheduled.Apply(PragmaStep{2, 0, 64}).ok());
  absl::StatusOr<LoweredFunc> f = Lower(plain);
  absl::StatusOr<LoweredFunc> g = Lower(scheduled);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(f->num_packed, 1);
  ASSERT_EQ(g->num_packed, 1);
  ASSERT_TRUE(g->prepack);
  EXPECT_EQ(ToString(g->prepack), ToString(f->prepack));
  EXPECT_THAT(ToString(g->prepack), ::testing::Not(::testing::HasSubstr("j.1")));
  // Its outermost axis runs in parallel, as the schedule's did.
  const auto* outer = g->prepack.as<For>();
  ASSERT_NE(outer, nullptr) << ToString(g->prepack);
  EXPECT_EQ(outer->kind, ForKind::kParallel);
  EXPECT_EQ(testing::CheckAgainstReference(scheduled), "");
}


// Stores into `name` that sit under a test (an if) anywhere in `body`.
int GuardedStoresInto(const Stmt& body, const std::string& name) {
  int n = 0;
  VisitStmts(body, [&](const Stmt& s) {
    if (const IfThenElse* branch = s.as<IfThenElse>())
      n += StoresInto(branch->then_case, name) + StoresInto(branch->else_case, name);
  });
  return n;
}

// A tuned matmul's shape: C computed in a 6 x 16 local tile (C.local) at
// each (i.0, j.0), with B's 8 x 16 panel copied (packed, where B is a
// constant) at each k.0 where `copy_b`. N = 40 is not a multiple of 16: the
// last column tile runs 8 columns past the end.
State OverrunningTileMatmul(const te::ComputeDagPtr& dag, bool copy_b) {
  const int b = copy_b ? 1 : 0;  // the copy B.local is stage 2, shifting C.local and C
  const int local = 2 + b, out = 3 + b;
  std::vector<schedule::Step> steps = {schedule::CacheWriteStep{2, "local"}};  // C.local 2, C 3
  if (copy_b) steps.push_back(CacheReadStep{1, "local", {2}});
  const int split_j = static_cast<int>(steps.size()) + 1;
  for (schedule::Step step : std::vector<schedule::Step>{
           SplitStep{local, 2, {8}, true},                        // C.local: i j k.0 k.1
           SplitStep{local, 1, {16}, true},                       // i j.0 j.1 k.0 k.1
           SplitStep{local, 0, {6}, true},                        // i.0 i.1 j.0 j.1 k.0 k.1
           ReorderStep{local, {0, 2, 4, 5, 1, 3}},                // i.0 j.0 k.0 k.1 i.1 j.1
           schedule::FollowSplitStep{out, 1, split_j, 1},         // C: i j.0 j.1
           schedule::FollowSplitStep{out, 0, split_j + 1, 1},     // C: i.0 i.1 j.0 j.1
           ReorderStep{out, {0, 2, 1, 3}},                        // C: i.0 j.0 i.1 j.1
           ComputeAtStep{local, out, 1},                          // C.local at C's j.0
           schedule::AnnotationStep{local, 5, schedule::IterAnnotation::kVectorize}})
    steps.push_back(step);
  if (copy_b) steps.push_back(ComputeAtStep{2, local, 2});  // B.local at C.local's k.0
  State state(dag);
  for (const schedule::Step& step : steps) {
    absl::Status applied = state.Apply(step);
    EXPECT_TRUE(applied.ok()) << applied;
  }
  return state;
}

// The local tile reads its own buffer and B's packed panels, which hold
// whole tiles (zero past B's end): it computes its last tile's 8 columns
// past the end too, with the same untested code as every other tile; only
// the copy into C keeps to C's columns. So it does where B is an input
// copied per call into B.local (the copy tests its columns and leaves those
// past the end unset: NaN in the interpreter, which reach only columns no
// one stores). Read from B itself, those columns would be loaded out of B's
// bounds: there they stay tested. Each computes what the reference computes
// (the interpreter also fails any load or store out of bounds).
TEST(LayoutRewriteTest, ATileOverrunningItsAxisIsUntestedWhereItReadsOnlyWholeTiles) {
  const std::string input_b =
      "input A: float32[12, 16]\ninput B: float32[16, 40]\nC[i: 12, j: 40] = sum(A[i, k] * B[k, j], k: 16)\n";
  struct Case {
    std::string name;
    te::ComputeDagPtr dag;
    bool copy_b;
    int packed;
    bool tile_tested;
  };
  const std::vector<Case> cases = {
      {"constant B, packed", testing::Dag("matmul:M=12,N=40,K=16"), true, 1, false},
      {"input B, copied", Definition(input_b), true, 0, false},
      {"input B, read directly", Definition(input_b), false, 0, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_NE(c.dag, nullptr);
    State state = OverrunningTileMatmul(c.dag, c.copy_b);
    absl::StatusOr<LoweredFunc> f = Lower(state);
    ASSERT_TRUE(f.ok()) << f.status();
    EXPECT_EQ(f->num_packed, c.packed);
    EXPECT_GT(StoresInto(f->body, "C.local"), 0);
    EXPECT_EQ(GuardedStoresInto(f->body, "C.local") > 0, c.tile_tested) << ToString(*f);
    EXPECT_EQ(testing::CheckAgainstReference(state), "");
    LowerOptions plain;
    plain.vectorize = plain.unroll = false;
    EXPECT_EQ(testing::CheckAgainstReference(state, plain), "");
  }
}

}  // namespace
}  // namespace tuneforge::lower
