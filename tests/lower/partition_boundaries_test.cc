// Border tests out of the hot loops: a padded convolution's innermost loops
// test nothing, no multiply-add reads the padding, and the result is still
// the unscheduled program's.
#include "common/lower/passes/partition_boundaries.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/lower/lower.h"
#include "common/lower/printer.h"
#include "common/lower/stmt_functor.h"
#include "common/overloaded.h"
#include "common/te/arith/simplify.h"
#include "common/te/expr_util.h"
#include "common/te/op_semantics.h"
#include "tests/lower/lower_test_util.h"

namespace tuneforge::lower {
namespace {

using schedule::IterAnnotation;
using schedule::State;
using testing::CheckAgainstReference;
using testing::Dag;

// Stages: 0 data, 1 pad, 2 kernel, 3 conv2d; conv2d's iterators: 0 n, 1 k,
// 2 oh, 3 ow, 4 rc, 5 ry, 6 rx.
constexpr char kConv[] = "conv2d:N=1,C=8,H=6,W=6,K=4,R=3,S=3,pad=1";
constexpr int kConvStage = 3;

// The padding inlined into the conv, the kernel window unrolled: each tap's
// border test is then over the output loops alone.
State PaddedConv(const std::vector<schedule::Step>& more = {}) {
  te::ComputeDagPtr dag = Dag(kConv);
  EXPECT_NE(dag, nullptr);
  State s(dag);
  EXPECT_EQ(s.StageIndex("pad"), 1);
  EXPECT_TRUE(s.Apply(schedule::ComputeInlineStep{1}).ok());
  EXPECT_TRUE(s.Apply(schedule::AnnotationStep{kConvStage, 5, IterAnnotation::kUnroll}).ok());
  EXPECT_TRUE(s.Apply(schedule::AnnotationStep{kConvStage, 6, IterAnnotation::kUnroll}).ok());
  for (const schedule::Step& step : more) EXPECT_TRUE(s.Apply(step).ok()) << s.ToString();
  return s;
}

LoweredFunc LowerOrDie(const State& s, bool partition = true) {
  LowerOptions options;
  options.partition_boundaries = partition;
  absl::StatusOr<LoweredFunc> f = Lower(s, options);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *f : LoweredFunc{};
}

bool HasSelect(const Stmt& s) {
  bool found = false;
  VisitExprs(s, [&](const te::Expr& top) {
    te::PostOrderVisit(top, [&](const te::Expr& e) { found = found || e.as<te::Select>(); });
  });
  return found;
}

// Innermost loops (no loop inside) that still test something per iteration.
int InnermostLoopsWithTests(const Stmt& body) {
  int n = 0;
  VisitStmts(body, [&](const Stmt& s) {
    const For* f = s.as<For>();
    if (!f) return;
    bool inner_loop = false;
    VisitStmts(f->body, [&](const Stmt& x) { inner_loop = inner_loop || x.as<For>(); });
    if (!inner_loop && HasSelect(f->body)) ++n;
  });
  return n;
}

// The additions along a store's sum, `((x + t1) + t2) + t3`: 3. One store
// holds a run of accumulations once they are chained (chain_accumulations.h).
int64_t SumTerms(const Store& n) {
  int64_t terms = 0;
  for (const te::Binary* add = n.value.as<te::Binary>(); add && add->op == te::BinOp::kAdd;
       add = add->a.as<te::Binary>())
    ++terms;
  return terms;
}

// Whether the sum starts from the element the store writes (a run that
// continues an accumulation, not one that starts from an init).
bool StartsFromOwnElement(const Store& n) {
  Expr base = n.value;
  while (const te::Binary* add = base.as<te::Binary>()) {
    if (add->op != te::BinOp::kAdd) break;
    base = add->a;
  }
  return LoadsStoredElement(base, n);
}

// The statements of `body` as they were before accumulations were chained:
// a chained store is its init (unless it continues the element) and one
// statement per term.
int64_t UnchainedStmts(const Stmt& body) {
  int64_t n = CountStmts(body);
  VisitStmts(body, [&](const Stmt& s) {
    const Store* store = s.as<Store>();
    if (store && SumTerms(*store) > 0) n += SumTerms(*store) - (StartsFromOwnElement(*store) ? 1 : 0);
  });
  return n;
}

bool HasLoop(const Stmt& s) {
  bool found = false;
  VisitStmts(s, [&](const Stmt& x) { found = found || x.as<For>(); });
  return found;
}

bool HasIf(const Stmt& s) {
  bool found = false;
  VisitStmts(s, [&](const Stmt& x) { found = found || x.as<IfThenElse>(); });
  return found;
}

// How many times the kernel runs an accumulation into the output: each term
// counted once per iteration of the loops around its store. A loop with an
// `if` inside is walked value by value, so each test is decided where it is
// asked (loop values and LetStmt values substituted into it).
int64_t AccumulationsRun(const Stmt& s, te::VarMap& values, int64_t times = 1) {
  if (!s) return 0;
  return std::visit(
      Overloaded{
          [&](const For& n) -> int64_t {
            if (!HasIf(n.body)) return AccumulationsRun(n.body, values, times * n.extent);
            int64_t sum = 0;
            for (int64_t i = 0; i < n.extent; ++i) {
              values[n.var.get()] = te::Expr(i);
              sum += AccumulationsRun(n.body, values, times);
            }
            values.erase(n.var.get());
            return sum;
          },
          [&](const Store& n) -> int64_t { return SumTerms(n) * times; },
          [&](const Seq& n) {
            int64_t sum = 0;
            for (const Stmt& c : n.stmts) sum += AccumulationsRun(c, values, times);
            return sum;
          },
          [&](const Allocate& n) { return AccumulationsRun(n.body, values, times); },
          [&](const LetStmt& n) {
            values[n.var.get()] = te::arith::Simplify(te::Substitute(n.value, values));
            int64_t sum = AccumulationsRun(n.body, values, times);
            values.erase(n.var.get());
            return sum;
          },
          [&](const IfThenElse& n) -> int64_t {
            std::optional<te::Scalar> c =
                te::ConstantValue(te::arith::Simplify(te::Substitute(n.condition, values)));
            EXPECT_TRUE(c.has_value()) << "a test the loops around it do not decide";
            if (!c) return 0;
            return AccumulationsRun(c->i != 0 ? n.then_case : n.else_case, values, times);
          },
      },
      s.get()->v);
}

int64_t AccumulationsRun(const Stmt& s) {
  te::VarMap values;
  return AccumulationsRun(s, values);
}

// The loops named `name`; each must be innermost.
int InnermostLoopsNamed(const Stmt& body, const std::string& name) {
  int n = 0;
  VisitStmts(body, [&](const Stmt& x) {
    const For* f = x.as<For>();
    if (!f || f->var->name != name) return;
    ++n;
    EXPECT_FALSE(HasLoop(f->body)) << name << " is not innermost";
  });
  return n;
}

// The conv lowered with every border test asked above an innermost rc loop,
// `tap_sets` copies of it, no tap reading the padding, and the result right.
void ExpectEachTapSetOnceAboveRc(const State& s, int tap_sets) {
  LoweredFunc f = LowerOrDie(s);
  EXPECT_FALSE(HasSelect(f.body)) << ToString(f);
  EXPECT_EQ(InnermostLoopsNamed(f.body, "rc"), tap_sets) << ToString(f);
  EXPECT_EQ(AccumulationsRun(f.body), 4 * 8 * 16 * 16);
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(PartitionBoundariesTest, SerialBorderLoopsAreCutAndNoTapReadsThePadding) {
  // The window unrolled inside oh and ow, rc outside them: no innermost loop
  // carries the reduction, so oh and ow are cut, with nothing left to ask.
  State s = PaddedConv({schedule::ReorderStep{kConvStage, {0, 1, 4, 2, 3, 5, 6}}});
  LoweredFunc plain = LowerOrDie(s, /*partition=*/false);
  LoweredFunc cut = LowerOrDie(s);
  EXPECT_TRUE(HasSelect(plain.body));
  EXPECT_FALSE(HasSelect(cut.body)) << ToString(cut);
  EXPECT_FALSE(HasIf(cut.body)) << ToString(cut);
  // Rows (and columns) of a 6-wide output each see 2, 3, 3, 3, 3, 2 window
  // rows inside the image: 16 x 16 taps per output channel and input channel.
  EXPECT_EQ(AccumulationsRun(cut.body), 4 * 8 * 16 * 16);
  EXPECT_EQ(AccumulationsRun(plain.body), 4 * 8 * 36 * 9);
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(PartitionBoundariesTest, TestsAroundAReductionLoopAreAskedOnceAboveItPerSetOfTaps) {
  // The window unrolled inside rc, the innermost loop: each distinct set of
  // taps (3 row classes x 3 column classes) is one copy of the rc loop, asked
  // above it per output pixel, and no tap reads the padding.
  ExpectEachTapSetOnceAboveRc(PaddedConv(), 9);
}

TEST(PartitionBoundariesTest, ATileInsideTheChannelLoopIsUnrolledAndItsBordersAskedAboveIt) {
  // A direct conv's register tile: ow split by 3 (ow.1) inside rc, with the
  // window, nothing marked unrolled. The tile's small loops are unrolled in
  // lowering (unroll_tile_loops.h), so rc is the innermost loop and every
  // border test is asked above it; cutting ow.0 and oh instead copied the
  // full tile into each border piece.
  State s(Dag(kConv));
  ASSERT_TRUE(s.Apply(schedule::ComputeInlineStep{1}).ok());
  // -> n k oh ow.0 ow.1 rc ry rx, reordered to n k oh ow.0 rc ry rx ow.1
  ASSERT_TRUE(s.Apply(schedule::SplitStep{kConvStage, 3, {3}, true}).ok()) << s.ToString();
  ASSERT_TRUE(s.Apply(schedule::ReorderStep{kConvStage, {0, 1, 2, 3, 5, 6, 7, 4}}).ok()) << s.ToString();
  // Rows: top, middle, bottom; columns: ow.0 = 0 (left border), 1 (right).
  ExpectEachTapSetOnceAboveRc(s, 6);
}

TEST(PartitionBoundariesTest, ATestOverAParallelLoopIsAskedAboveTheInnermostLoop) {
  // oh parallel: not cut (its iterations are the thread pool's), so its
  // border tests are hoisted above the rc loop instead.
  State s = PaddedConv({schedule::AnnotationStep{kConvStage, 2, IterAnnotation::kParallel}});
  LoweredFunc plain = LowerOrDie(s, /*partition=*/false);
  LoweredFunc cut = LowerOrDie(s);
  EXPECT_GT(InnermostLoopsWithTests(plain.body), 0) << ToString(plain);
  EXPECT_EQ(InnermostLoopsWithTests(cut.body), 0) << ToString(cut);
  EXPECT_THAT(ToString(cut), ::testing::HasSubstr("if ("));
  EXPECT_EQ(CheckAgainstReference(s), "");
}

// The `if` a versioned parallel loop asks first, or null.
const IfThenElse* SteadyStateTest(const Stmt& body) {
  const IfThenElse* found = nullptr;
  VisitStmts(body, [&](const Stmt& x) {
    const For* f = x.as<For>();
    if (f && f->kind == ForKind::kParallel && !found) found = f->body.as<IfThenElse>();
  });
  return found;
}

TEST(PartitionBoundariesTest, AParallelLoopWithRareBorderRowsAsksOnceWhetherARowIsOne) {
  // 18 output rows, oh parallel: rows 0 and 17 (1 in 9) read padding. The
  // loop asks once whether a row is one of the 16 inside; those run the body
  // with their row tests decided (3 column classes: 3 copies of the rc loop,
  // no tap on padding), the border rows the body with its tests. Unswitching
  // each row test above each copy made 9 copies of it.
  State s(Dag("conv2d:N=1,C=8,H=18,W=6,K=4,R=3,S=3,pad=1"));
  ASSERT_TRUE(s.Apply(schedule::ComputeInlineStep{1}).ok());
  for (int unrolled : {5, 6})
    ASSERT_TRUE(s.Apply(schedule::AnnotationStep{kConvStage, unrolled, IterAnnotation::kUnroll}).ok());
  ASSERT_TRUE(s.Apply(schedule::AnnotationStep{kConvStage, 2, IterAnnotation::kParallel}).ok());
  LoweredFunc f = LowerOrDie(s);
  const IfThenElse* steady = SteadyStateTest(f.body);
  ASSERT_NE(steady, nullptr) << ToString(f);
  EXPECT_EQ(te::ToString(steady->condition), "((oh >= 1) && (oh <= 16))");
  EXPECT_FALSE(HasSelect(steady->then_case)) << ToString(f);
  EXPECT_TRUE(HasSelect(steady->else_case)) << ToString(f);
  EXPECT_EQ(InnermostLoopsNamed(steady->then_case, "rc"), 3) << ToString(f);
  EXPECT_EQ(InnermostLoopsNamed(steady->else_case, "rc"), 1) << ToString(f);
  // Inside rows: 3 window rows x 16 column taps; border rows: all 9 taps of
  // their 6 pixels, the padded ones multiplying zeros.
  EXPECT_EQ(AccumulationsRun(f.body), 4 * 8 * (16 * 3 * 16 + 2 * 9 * 6));
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(PartitionBoundariesTest, AParallelLoopIsNotVersionedWhereItsCopiesInsideAreFewer) {
  // The same conv with only the window's rows unrolled: each row test is
  // asked once above a 3-tap column loop, so the loop as partitioned holds
  // three small copies, less code than a versioned loop's two whole bodies
  // (its border one with a select in every tap), though its border rows
  // are as rare (1 in 9).
  State s(Dag("conv2d:N=1,C=8,H=18,W=6,K=4,R=3,S=3,pad=1"));
  ASSERT_TRUE(s.Apply(schedule::ComputeInlineStep{1}).ok());
  ASSERT_TRUE(s.Apply(schedule::AnnotationStep{kConvStage, 5, IterAnnotation::kUnroll}).ok());
  ASSERT_TRUE(s.Apply(schedule::AnnotationStep{kConvStage, 2, IterAnnotation::kParallel}).ok());
  LoweredFunc f = LowerOrDie(s);
  EXPECT_EQ(SteadyStateTest(f.body), nullptr) << ToString(f);
  EXPECT_EQ(InnermostLoopsWithTests(f.body), 0) << ToString(f);
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(PartitionBoundariesTest, ATestOverAnExpressionNarrowsItsRangeSoImpliedTestsAreDecided) {
  // oh and ow fused and parallel: the row is floordiv(oh@ow, 6), the column
  // floormod(oh@ow, 6); each branch on `row >= 1` knows the row's range, so
  // `row < 5` is not asked where `row >= 1` failed: rows 0, 1-4 and 5, the
  // same for columns, 9 copies of the rc loop (not 2^4).
  State s = PaddedConv({schedule::FuseStep{kConvStage, {2, 3}},
                        schedule::AnnotationStep{kConvStage, 2, IterAnnotation::kParallel}});
  LoweredFunc cut = LowerOrDie(s);
  EXPECT_EQ(InnermostLoopsWithTests(cut.body), 0) << ToString(cut);
  int rc_loops = 0;
  VisitStmts(cut.body, [&](const Stmt& x) {
    if (const For* f = x.as<For>(); f && f->var->name == "rc") ++rc_loops;
  });
  EXPECT_EQ(rc_loops, 9) << ToString(cut);
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(PartitionBoundariesTest, TestsOverOneSumOfTermsDecideEachOther) {
  // A 7-wide stride-2 window over columns 16 * ow.0 + 8 * ow.1 (ow.0
  // parallel, so not cut): a register tile's left taps test that sum
  // against 3, 2 and 1, its last right tap against 24; all are tests of
  // 2 * ow.0 + ow.1 (>= 1, <= 2). Each branch narrows that sum, so three
  // column classes (left border, inside, right border) are three copies of
  // the rc loop with no test left; branching on each test in turn without
  // knowing what the others imply made 15, and left selects in them.
  State s(Dag("conv2d:N=1,C=2,H=4,W=32,K=2,R=1,S=7,pad=3,stride=2"));
  ASSERT_TRUE(s.Apply(schedule::ComputeInlineStep{1}).ok());
  // n k oh ow.0 ow.1 ow.2 rc ry rx -> n k ow.0 oh ow.1 rc ry rx ow.2
  ASSERT_TRUE(s.Apply(schedule::SplitStep{kConvStage, 3, {2, 4}, true}).ok()) << s.ToString();
  ASSERT_TRUE(s.Apply(schedule::ReorderStep{kConvStage, {0, 1, 3, 2, 4, 6, 7, 8, 5}}).ok()) << s.ToString();
  for (int unrolled : {7, 8})
    ASSERT_TRUE(s.Apply(schedule::AnnotationStep{kConvStage, unrolled, IterAnnotation::kUnroll}).ok());
  ASSERT_TRUE(s.Apply(schedule::AnnotationStep{kConvStage, 2, IterAnnotation::kParallel}).ok());
  LoweredFunc f = LowerOrDie(s);
  EXPECT_EQ(InnermostLoopsNamed(f.body, "rc"), 3) << ToString(f);
  EXPECT_FALSE(HasSelect(f.body)) << ToString(f);
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(PartitionBoundariesTest, ACutInsideAStridedWindowStillMatches) {
  // ow split in two (ow.1 unrolled), the window unrolled: the tests are over
  // ow.0 with a stride, cut where 2 * (2 * ow.0 + ow.1) + rx - 1 leaves 0..8.
  State s(Dag("conv2d:N=1,C=4,H=9,W=9,K=4,R=3,S=3,pad=1,stride=2"));
  ASSERT_TRUE(s.Apply(schedule::ComputeInlineStep{1}).ok());
  // -> n k oh ow.0 ow.1 rc ry rx
  ASSERT_TRUE(s.Apply(schedule::SplitStep{kConvStage, 3, {2}, true}).ok()) << s.ToString();
  ASSERT_TRUE(s.Apply(schedule::ReorderStep{kConvStage, {0, 1, 2, 3, 5, 6, 7, 4}}).ok()) << s.ToString();
  for (int unrolled : {5, 6, 7})
    ASSERT_TRUE(s.Apply(schedule::AnnotationStep{kConvStage, unrolled, IterAnnotation::kUnroll}).ok());
  LoweredFunc plain = LowerOrDie(s, /*partition=*/false);
  LoweredFunc cut = LowerOrDie(s);
  EXPECT_LT(AccumulationsRun(cut.body), AccumulationsRun(plain.body)) << ToString(cut);
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(PartitionBoundariesTest, ALargeUnrolledBodyIsNotCopiedPastTheBudget) {
  // 64 input channels and the window unrolled: 576 statements per output
  // pixel. Cutting oh and ow into 3 pieces each would copy them 8 more times.
  State s(Dag("conv2d:N=1,C=64,H=6,W=6,K=4,R=3,S=3,pad=1"));
  ASSERT_TRUE(s.Apply(schedule::ComputeInlineStep{1}).ok());
  for (int unrolled : {4, 5, 6})
    ASSERT_TRUE(s.Apply(schedule::AnnotationStep{kConvStage, unrolled, IterAnnotation::kUnroll}).ok());
  int64_t plain = UnchainedStmts(LowerOrDie(s, /*partition=*/false).body);
  int64_t cut = UnchainedStmts(LowerOrDie(s).body);
  EXPECT_GT(plain, 576);
  EXPECT_LE(cut, plain + 512);
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(PartitionBoundariesTest, APaddedRowOfARowVectorIsNotMultipliedIn) {
  // A depthwise conv vectorized along its output rows (n c oh ry rx ow, ow
  // 8 lanes): the first and last output rows each have a window row in the
  // padding, whose taps become x8(0 * w) once the row test is decided.
  // Those go; the column borders stay per-lane selects. Output rows see
  // 2, 3, 3, 3, 3, 2 window rows: 16 x 3 taps per channel, the first of
  // each of the 6 rows starting its sum (zero init folded) rather than
  // adding to it.
  State s(Dag("depthwise_conv2d:N=1,C=2,H=6,W=8,R=3,S=3,pad=1,stride=1"));
  ASSERT_EQ(s.StageIndex("pad"), 1);
  ASSERT_TRUE(s.Apply(schedule::ComputeInlineStep{1}).ok());
  ASSERT_TRUE(s.Apply(schedule::ReorderStep{kConvStage, {0, 1, 2, 4, 5, 3}}).ok()) << s.ToString();
  ASSERT_TRUE(s.Apply(schedule::AnnotationStep{kConvStage, 3, IterAnnotation::kUnroll}).ok());
  ASSERT_TRUE(s.Apply(schedule::AnnotationStep{kConvStage, 4, IterAnnotation::kUnroll}).ok());
  ASSERT_TRUE(s.Apply(schedule::AnnotationStep{kConvStage, 5, IterAnnotation::kVectorize}).ok());
  LoweredFunc f = LowerOrDie(s);
  bool multiplies_zero = false;
  VisitExprs(f.body, [&](const te::Expr& top) {
    te::PostOrderVisit(top, [&](const te::Expr& e) {
      const auto* m = e.as<te::Binary>();
      multiplies_zero = multiplies_zero || (m && m->op == te::BinOp::kMul &&
                                            (te::IsZeroConstant(m->a) || te::IsZeroConstant(m->b)));
    });
  });
  EXPECT_FALSE(multiplies_zero) << ToString(f);
  EXPECT_EQ(AccumulationsRun(f.body), 2 * (16 * 3 - 6)) << ToString(f);
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(PartitionBoundariesTest, ALoopWithoutBorderTestsIsUntouched) {
  State s(Dag("matmul:M=12,N=20,K=7"));
  ASSERT_TRUE(s.Apply(schedule::SplitStep{2, 0, {4}, true}).ok());
  EXPECT_EQ(ToString(LowerOrDie(s)), ToString(LowerOrDie(s, /*partition=*/false)));
}

}  // namespace
}  // namespace tuneforge::lower
