// Lowering: each schedule shape lowers to the loop nest it describes and
// computes what the unscheduled program computes.
#include "common/lower/lower.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

#include "common/lower/printer.h"
#include "common/te/workload.h"
#include "tests/lower/lower_test_util.h"

namespace tuneforge::lower {
namespace {

using schedule::IterAnnotation;
using schedule::State;
using testing::CheckAgainstReference;
using testing::Dag;
using ::testing::HasSubstr;
using ::testing::Not;

State Apply(const std::string& spec, const std::vector<schedule::Step>& steps) {
  te::ComputeDagPtr dag = Dag(spec);
  EXPECT_NE(dag, nullptr) << spec;
  absl::StatusOr<State> s = State::Replay(dag, steps);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : State(dag);
}

std::string Printed(const State& s, const LowerOptions& options = {}) {
  absl::StatusOr<LoweredFunc> f = Lower(s, options);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? ToString(*f) : "";
}

constexpr char kMatmul[] = "matmul:M=12,N=20,K=7";
// Stage indices of matmul: 0 A, 1 B, 2 C; C's iterators i, j, k.

TEST(LowerTest, NaiveMatmulIsThreeLoopsWithInit) {
  State s = Apply(kMatmul, {});
  std::string text = Printed(s);
  EXPECT_THAT(text, HasSubstr("for (i, 0, 12)"));
  EXPECT_THAT(text, HasSubstr("for (j, 0, 20)"));
  EXPECT_THAT(text, HasSubstr("for (k, 0, 7)"));
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(LowerTest, AReductionsInitSitsInsideItsOuterReductionLoopsThatRunOnce) {
  // k split 1 x 7 and its outer part (extent 1) outermost: each C[i, j] is
  // zeroed just before its own k.1 loop, not the whole of C ahead of all.
  State s = Apply(kMatmul, {
                               schedule::SplitStep{2, 2, {7}, true},   // k -> k.0 (1) k.1 (7)
                               schedule::SplitStep{2, 1, {5}, true},   // j -> j.0 j.1
                               schedule::ReorderStep{2, {3, 0, 1, 4, 2}},  // k.0 i j.0 k.1 j.1
                           });
  LowerOptions loops_only;
  loops_only.vectorize = loops_only.unroll = false;
  std::string text = Printed(s, loops_only);
  EXPECT_THAT(text, HasSubstr("for (j.1.init, 0, 5)"));
  EXPECT_THAT(text, Not(HasSubstr("i.init")));
  EXPECT_THAT(text, Not(HasSubstr("j.0.init")));
  EXPECT_EQ(CheckAgainstReference(s), "");
  EXPECT_EQ(CheckAgainstReference(s, loops_only), "");

  // With k.0 running twice the init must stay outside it.
  State twice = Apply("matmul:M=12,N=20,K=14", {
                                                   schedule::SplitStep{2, 2, {7}, true},
                                                   schedule::SplitStep{2, 1, {5}, true},
                                                   schedule::ReorderStep{2, {3, 0, 1, 4, 2}},
                                               });
  EXPECT_THAT(Printed(twice, loops_only), HasSubstr("for (i.init, 0, 12)"));
  EXPECT_EQ(CheckAgainstReference(twice), "");
}

TEST(LowerTest, AnInitBesideItsUnrolledUpdatesIsOneStoreWithThem) {
  // k.0 (extent 1) outermost, k.1 innermost and unrolled: each element's
  // init and seven multiply-adds become one store, no zeroing store left.
  State s = Apply(kMatmul, {
                               schedule::SplitStep{2, 2, {7}, true},
                               schedule::SplitStep{2, 1, {5}, true},
                               schedule::ReorderStep{2, {3, 0, 1, 2, 4}},  // k.0 i j.0 j.1 k.1
                               schedule::AnnotationStep{2, 4, IterAnnotation::kUnroll},
                           });
  std::string text = Printed(s);
  EXPECT_THAT(text, Not(HasSubstr("= 0.0\n")));
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(LowerTest, DivisibleTilingMatches) {
  State s = Apply(kMatmul, {
                               schedule::SplitStep{2, 0, {4}, true},   // i -> i.0 i.1
                               schedule::SplitStep{2, 2, {5}, true},   // j -> j.0 j.1
                               schedule::ReorderStep{2, {0, 2, 4, 1, 3}},
                           });
  std::string text = Printed(s);
  EXPECT_THAT(text, Not(HasSubstr("if (")));  // divisible: no guard
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(LowerTest, NonDivisibleSplitIsGuardedOrCutIntoATail) {
  State s = Apply(kMatmul, {schedule::SplitStep{2, 0, {5}, true}, schedule::SplitStep{2, 3, {3}, true}});
  LowerOptions guarded;
  guarded.partition_boundaries = false;
  EXPECT_THAT(Printed(s, guarded), HasSubstr("if ("));
  EXPECT_EQ(CheckAgainstReference(s, guarded), "");
  // Partitioned: the partial last tiles of i (12 = 5 + 5 + 2) and k (7 = 3 +
  // 3 + 1) are loops of their own, and nothing is tested per iteration.
  std::string text = Printed(s);
  EXPECT_THAT(text, Not(HasSubstr("if (")));
  EXPECT_THAT(text, HasSubstr("for (i.1, 0, 2)"));
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(LowerTest, VectorizedInnerLoopBecomesRamps) {
  State s = Apply(kMatmul, {
                               schedule::SplitStep{2, 1, {4}, true},  // j -> j.0 j.1
                               schedule::ReorderStep{2, {0, 1, 3, 2}},  // i j.0 k j.1
                               schedule::AnnotationStep{2, 3, IterAnnotation::kVectorize},
                           });
  std::string text = Printed(s);
  EXPECT_THAT(text, HasSubstr("ramp("));
  EXPECT_THAT(text, Not(HasSubstr("j.1, 0, 4")));  // the loop is gone
  EXPECT_EQ(CheckAgainstReference(s), "");
}

// A vectorized width that is not a power of two is cut into whole registers
// and the lanes left over where widening it to the next power of two, as
// LLVM does, would take more registers (passes/vectorize.h): 40 lanes in the
// four 16-lane registers of 64 where three hold them. 28 lanes take two
// either way and stay one vector. The pieces compute what the loop computed.
TEST(LowerTest, AVectorWidthNotAPowerOfTwoIsCutIntoWholeRegisters) {
  struct Case {
    int n;
    int register_lanes;
    std::vector<int> widths;  // the vector statements' widths, in order
  };
  const std::vector<Case> cases = {
      {40, 16, {32, 8}}, {48, 16, {32, 16}}, {36, 16, {32, 4}}, {40, 8, {32, 8}}, {24, 8, {16, 8}},
      {28, 16, {28}},    {25, 16, {25}},     {12, 16, {12}},     {32, 16, {32}},  {40, 0, {40}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(absl::StrCat("N=", c.n, " in registers of ", c.register_lanes, " lanes"));
    State s = Apply(absl::StrCat("matmul:M=3,N=", c.n, ",K=5"),
                    {schedule::ReorderStep{2, {0, 2, 1}},  // i k j
                     schedule::AnnotationStep{2, 2, IterAnnotation::kVectorize}});
    LowerOptions options;
    options.register_lanes = c.register_lanes;
    std::string text = Printed(s, options);
    int offset = 0;
    for (int width : c.widths) {
      // Each piece starts where the last ended; one lane is a scalar store.
      if (width > 1) {
        EXPECT_THAT(text, HasSubstr(absl::StrCat(", 1, ", width, ")")));
      }
      if (offset > 0) {
        EXPECT_THAT(text, HasSubstr(absl::StrCat(" + ", offset, ")")));
      }
      offset += width;
    }
    if (c.widths.size() > 1) {
      EXPECT_THAT(text, Not(HasSubstr(absl::StrCat(", 1, ", c.n, ")"))));
    }
    EXPECT_EQ(CheckAgainstReference(s, options), "");
  }
}

// A vectorized tile that overruns its axis (N = 40 in tiles of 16: the last
// has 8 lanes) tests each lane; where all of a tile's lanes are inside, it
// runs as one vector statement, and only the last tile tests its lanes.
TEST(LowerTest, AVectorizedTileThatOverrunsItsAxisIsOneVectorWhereItFits) {
  State s = Apply("matmul:M=3,N=40,K=5", {schedule::SplitStep{2, 1, {16}, true},  // j -> j.0 j.1
                                          schedule::ReorderStep{2, {0, 1, 3, 2}},  // i j.0 k j.1
                                          schedule::AnnotationStep{2, 3, IterAnnotation::kVectorize}});
  for (bool partition : {false, true}) {
    SCOPED_TRACE(partition ? "partitioned" : "tests kept");
    LowerOptions options;
    options.partition_boundaries = partition;
    std::string text = Printed(s, options);
    EXPECT_THAT(text, HasSubstr(", 1, 16)"));           // the whole tiles' vectors
    EXPECT_THAT(text, HasSubstr("vectorized (j.1"));    // the last tile's lanes, tested
    EXPECT_EQ(CheckAgainstReference(s, options), "");
  }
}

TEST(LowerTest, NestedVectorizedLoopsVectorizeTheInnerOnly) {
  State s = Apply(kMatmul, {schedule::SplitStep{2, 1, {4}, true},
                            schedule::AnnotationStep{2, 1, IterAnnotation::kVectorize},
                            schedule::AnnotationStep{2, 2, IterAnnotation::kVectorize},
                            schedule::ReorderStep{2, {0, 3, 1, 2}}});
  std::string text = Printed(s);
  EXPECT_THAT(text, HasSubstr("vectorized (j.0, 0, 5)"));
  EXPECT_THAT(text, HasSubstr("ramp("));
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(LowerTest, UnrollCopiesTheBody) {
  State s = Apply(kMatmul, {schedule::SplitStep{2, 0, {3}, true},
                            schedule::AnnotationStep{2, 1, IterAnnotation::kUnroll}});
  std::string text = Printed(s);
  EXPECT_THAT(text, Not(HasSubstr("i.1")));
  EXPECT_EQ(CheckAgainstReference(s), "");
  LowerOptions keep;
  keep.unroll = false;
  EXPECT_THAT(Printed(s, keep), HasSubstr("unrolled (i.1, 0, 3)"));
}

// auto_unroll_max_step marks a nest too large to copy whole (128 x 8 vector
// multiply-adds): its reduction loop (k) stays a loop, the tile's rows (i)
// are still copied, so their accumulators keep constant indices. The same
// loops unrolled by name (a schedule's choice) are all copied.
TEST(LowerTest, AnAutoUnrolledNestPastTheBudgetKeepsItsReductionLoop) {
  State s = Apply("matmul:M=8,N=16,K=128", {schedule::ReorderStep{2, {2, 0, 1}},
                                            schedule::AnnotationStep{2, 2, IterAnnotation::kVectorize},
                                            schedule::PragmaStep{2, 0, 4096}});
  std::string text = Printed(s);
  EXPECT_THAT(text, HasSubstr("for (k, 0, 128)"));
  EXPECT_THAT(text, Not(HasSubstr("(i, 0, 8)")));
  EXPECT_EQ(CheckAgainstReference(s), "");
  // Under the budget (K=16), the whole nest is copied.
  State small = Apply("matmul:M=8,N=16,K=16", {schedule::ReorderStep{2, {2, 0, 1}},
                                               schedule::AnnotationStep{2, 2, IterAnnotation::kVectorize},
                                               schedule::PragmaStep{2, 0, 4096}});
  EXPECT_THAT(Printed(small), Not(HasSubstr("(k, 0, 16)")));
  // Unrolled by name: copied whatever its size.
  State named = Apply("matmul:M=8,N=16,K=128", {schedule::ReorderStep{2, {2, 0, 1}},
                                                schedule::AnnotationStep{2, 0, IterAnnotation::kUnroll},
                                                schedule::AnnotationStep{2, 1, IterAnnotation::kUnroll},
                                                schedule::AnnotationStep{2, 2, IterAnnotation::kVectorize}});
  EXPECT_THAT(Printed(named), Not(HasSubstr("(k, 0, 128)")));
}

// Past the budget, a conv's input-channel loop stays a loop but its window
// taps stay copied, though they are outside it: each tap's border test (an
// inlined padding's) is then decided outside the hot loop.
TEST(LowerTest, AnAutoUnrolledConvPastTheBudgetKeepsItsChannelLoopNotItsTaps) {
  State s = Apply("conv2d:N=1,C=64,H=6,W=6,K=4,R=3,S=3,pad=1",
                  {schedule::ComputeInlineStep{1}, schedule::ReorderStep{3, {0, 1, 2, 3, 5, 6, 4}},  // ry rx rc
                   schedule::PragmaStep{3, 0, 1024}});
  std::string text = Printed(s);
  EXPECT_THAT(text, HasSubstr("for (rc, 0, 64)"));
  EXPECT_THAT(text, Not(HasSubstr("(ry, 0, 3)")));
  EXPECT_THAT(text, Not(HasSubstr("(rx, 0, 3)")));
  EXPECT_EQ(CheckAgainstReference(s), "");
}

// An accumulator tile too large for registers (256 x 64 lanes inside the k
// loop) lives in memory whether copied or not: past the budget its outer
// spatial loop stays a loop too (copied whole, a strided depthwise
// candidate's 4,704-lane tile took 2.3 s to compile and ran 5x slower).
TEST(LowerTest, AnAutoUnrolledTileTooLargeForRegistersKeepsItsOuterLoop) {
  auto steps = [] {
    return std::vector<schedule::Step>{schedule::SplitStep{2, 1, {16}, true},   // i j.0 j.1 k
                                       schedule::ReorderStep{2, {3, 0, 1, 2}},  // k i j.0 j.1
                                       schedule::AnnotationStep{2, 3, IterAnnotation::kVectorize},
                                       schedule::PragmaStep{2, 0, 4096}};
  };
  State s = Apply("matmul:M=256,N=64,K=4", steps());
  std::string text = Printed(s);
  EXPECT_THAT(text, HasSubstr("for (i, 0, 256)"));
  EXPECT_THAT(text, Not(HasSubstr("(j.0, 0, 4)")));
  EXPECT_EQ(CheckAgainstReference(s), "");
  // A tile of 8 x 64 lanes fits the registers and is copied.
  State small = Apply("matmul:M=8,N=64,K=4", steps());
  EXPECT_THAT(Printed(small), Not(HasSubstr("(i, 0, 8)")));
  // The same tile computed at an outer loop of its output: the guards of
  // its region (which name every loop until simplified) do not pin it.
  State attached = Apply("matmul:M=512,N=64,K=4", {
                                                      schedule::CacheWriteStep{2, "local"},  // 2 C.local, 3 C
                                                      schedule::SplitStep{3, 0, {256}, true},  // C: i.0 (2) i.1 j
                                                      schedule::ComputeAtStep{2, 3, 0},
                                                      schedule::SplitStep{2, 1, {16}, true},
                                                      schedule::ReorderStep{2, {3, 0, 1, 2}},
                                                      schedule::AnnotationStep{2, 3, IterAnnotation::kVectorize},
                                                      schedule::PragmaStep{2, 0, 4096},
                                                  });
  EXPECT_THAT(Printed(attached), HasSubstr("for (i, 0, 256)"));
  EXPECT_EQ(CheckAgainstReference(attached), "");
}

// An accumulator tile vectorized across rows (i.1@j: 4 rows of 6) is read
// and written lane by lane: its copies are scalar code, so past the budget
// its outer spatial loop stays a loop.
TEST(LowerTest, AnAutoUnrolledTileVectorizedAcrossRowsKeepsItsOuterLoop) {
  State s = Apply("matmul:M=1024,N=6,K=4", {schedule::SplitStep{2, 0, {4}, true},       // i.0 i.1 j k
                                           schedule::ReorderStep{2, {3, 0, 1, 2}},      // k i.0 i.1 j
                                           schedule::FuseStep{2, {2, 3}},               // k i.0 i.1@j
                                           schedule::AnnotationStep{2, 2, IterAnnotation::kVectorize},
                                           schedule::PragmaStep{2, 0, 4096}});
  EXPECT_THAT(Printed(s), HasSubstr("for (i.0, 0, 256)"));
  EXPECT_EQ(CheckAgainstReference(s), "");
}

// An elementwise nest has no reduction loop to keep: past the budget its
// outermost marked loop stays a loop. A vectorized axis fused across rows
// of a tile (m.1@n.1: 4 rows of 3 of a 6-wide row) is read and written lane
// by lane and counts its lanes: 128 x 2 copies of three 12-lane accesses
// pass the budget; counted as one node each they would not.
TEST(LowerTest, AnAutoUnrolledElementwiseNestPastTheBudgetKeepsItsOuterLoop) {
  auto steps = [] {
    return std::vector<schedule::Step>{schedule::SplitStep{2, 0, {4}, true},  // m.0 m.1 n
                                       schedule::SplitStep{2, 2, {3}, true},  // m.0 m.1 n.0 n.1
                                       schedule::ReorderStep{2, {0, 2, 1, 3}},
                                       schedule::FuseStep{2, {2, 3}},  // m.0 n.0 m.1@n.1
                                       schedule::AnnotationStep{2, 2, IterAnnotation::kVectorize},
                                       schedule::PragmaStep{2, 0, 4096}};
  };
  State s = Apply("add:M=512,N=6", steps());
  std::string text = Printed(s);
  EXPECT_THAT(text, HasSubstr("for (m.0, 0, 128)"));
  EXPECT_THAT(text, Not(HasSubstr("(n.0, 0, 2)")));
  EXPECT_EQ(CheckAgainstReference(s), "");
  // 16 x 2 copies fit, and are copied.
  State small = Apply("add:M=64,N=6", steps());
  EXPECT_THAT(Printed(small), Not(HasSubstr("(m.0, 0, 16)")));
  EXPECT_EQ(CheckAgainstReference(small), "");
}

// A transposing copy (a local tile written back to its output) vectorized
// along the output's rows reads its input with a stride: on a CPU, lane by
// lane. Its lanes count, so 512 copies of a 14-lane strided read pass the
// budget and its outer loop stays a loop; 64 copies fit and are copied.
// (Counted as one node each, a conv's 448-copy write-back became a block of
// 6,272 loads that took 4-5 s to compile.)
TEST(LowerTest, AnAutoUnrolledTransposingCopyPastTheBudgetKeepsItsOuterLoop) {
  auto transposed = [](int rows) {
    absl::StatusOr<te::Workload> w = te::ParseDefinition(
        "input A: float32[14, " + std::to_string(rows) + "]\nB[i: " + std::to_string(rows) +
        ", j: 14] = A[j, i]\n");
    EXPECT_TRUE(w.ok()) << w.status();
    State s(w->dag);
    EXPECT_TRUE(s.Apply(schedule::AnnotationStep{1, 1, IterAnnotation::kVectorize}).ok());
    EXPECT_TRUE(s.Apply(schedule::PragmaStep{1, 0, 4096}).ok());
    return s;
  };
  State big = transposed(512);
  EXPECT_THAT(Printed(big), HasSubstr("for (i, 0, 512)"));
  EXPECT_EQ(CheckAgainstReference(big), "");
  State small = transposed(64);
  EXPECT_THAT(Printed(small), Not(HasSubstr("(i, 0, 64)")));
  EXPECT_EQ(CheckAgainstReference(small), "");
}

// Left scalar, a transposing copy's copies are scalar loads and stores that
// LLVM's SLP vectorizer, GVN and DSE compare with each other (a 7x7 stem
// candidate's 224-copy write-back: two thirds of its compile). Past about 16
// copies its loops stay loops; a copy of the same size along rows is copied.
TEST(LowerTest, AnAutoUnrolledScalarTransposingCopyKeepsItsLoops) {
  auto copy = [](const std::string& read) {
    absl::StatusOr<te::Workload> w =
        te::ParseDefinition("input A: float32[64, 64]\nB[i: 16, j: 64] = " + read + "\n");
    EXPECT_TRUE(w.ok()) << w.status();
    State s(w->dag);
    EXPECT_TRUE(s.Apply(schedule::PragmaStep{1, 0, 4096}).ok());
    return s;
  };
  State transposing = copy("A[j, i]");
  std::string text = Printed(transposing);
  EXPECT_THAT(text, HasSubstr("for (i, 0, 16)"));
  EXPECT_THAT(text, HasSubstr("for (j, 0, 64)"));
  EXPECT_EQ(CheckAgainstReference(transposing), "");
  State along_rows = copy("A[i, j]");
  text = Printed(along_rows);
  EXPECT_THAT(text, Not(HasSubstr("(i, 0, 16)")));
  EXPECT_THAT(text, Not(HasSubstr("(j, 0, 64)")));
  EXPECT_EQ(CheckAgainstReference(along_rows), "");
}

// The nearest pragma governs a loop, as in TVM: a local tile computed inside
// its output's loop keeps its own auto_unroll_max_step (16: its zeroing's
// 128 rows and its update's stay loops), though the output's pragma (512)
// covers the loop it sits in and copies the output's own write-back (128
// vectors). Under the largest pragma along the chain, a 7x7 stem
// candidate's zeroing of a 224-vector tile was copied whole beside an
// update left a loop: 72 of its 254 ms of compile. A tile without a pragma
// of its own is governed by its output's.
TEST(LowerTest, AnAttachedStagesOwnPragmaGovernsItsLoops) {
  auto steps = [](int64_t local_step) {
    return std::vector<schedule::Step>{
        schedule::CacheWriteStep{2, "local"},    // 2 C.local, 3 C
        schedule::SplitStep{3, 0, {128}, true},  // C: i.0 (2) i.1 (128) j
        schedule::ComputeAtStep{2, 3, 0},        // C.local: i (128) j (16) k (8)
        schedule::ReorderStep{2, {2, 0, 1}},     // k i j: its zeroing before k
        schedule::AnnotationStep{2, 2, IterAnnotation::kVectorize},
        schedule::AnnotationStep{3, 2, IterAnnotation::kVectorize},
        schedule::PragmaStep{2, 0, local_step},
        schedule::PragmaStep{3, 0, 512},
    };
  };
  State own = Apply("matmul:M=256,N=16,K=8", steps(16));
  std::string text = Printed(own);
  EXPECT_THAT(text, HasSubstr("for (i.init, 0, 128)"));
  EXPECT_THAT(text, HasSubstr("for (i, 0, 128)"));
  EXPECT_THAT(text, Not(HasSubstr("(i.1, 0, 128)")));  // C's write-back, copied
  EXPECT_EQ(CheckAgainstReference(own), "");
  State inherited = Apply("matmul:M=256,N=16,K=8", steps(0));
  text = Printed(inherited);
  EXPECT_THAT(text, Not(HasSubstr("(i.init, 0, 128)")));
  EXPECT_THAT(text, Not(HasSubstr("(i.1, 0, 128)")));
  EXPECT_EQ(CheckAgainstReference(inherited), "");
}

// A vectorized loop longer than kMaxVectorLanes stays a loop of `extent`
// steps: auto-unroll must not copy it hundreds of times (a random schedule
// doing so took LLVM minutes to compile).
TEST(LowerTest, AutoUnrollCountsALongVectorizedLoopAsALoop) {
  State s = Apply("matmul:M=100,N=8,K=2", {schedule::ReorderStep{2, {1, 2, 0}},
                                           schedule::AnnotationStep{2, 2, IterAnnotation::kVectorize},
                                           schedule::PragmaStep{2, 0, 512}});
  std::string text = Printed(s);
  EXPECT_THAT(text, HasSubstr("(j, 0, 8)"));  // not unrolled into 8 copies
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(LowerTest, ParallelFusedOuterLoops) {
  State s = Apply(kMatmul, {schedule::FuseStep{2, {0, 1}},
                            schedule::AnnotationStep{2, 0, IterAnnotation::kParallel}});
  std::string text = Printed(s);
  EXPECT_THAT(text, HasSubstr("parallel (i@j, 0, 240)"));
  EXPECT_EQ(CheckAgainstReference(s), "");
}

// A copy vectorized along an axis its input strides over loads lane by lane
// on a CPU. Wider than one AVX-512 register (a Winograd input tile's 64
// channels) it stays a rolled loop: as vector code LLVM built each lane's
// address in a vector and spent hundreds of milliseconds per kernel on it.
// A 16-lane one stays vector code, and a contiguous copy is vector code at
// any width.
State VectorizedCopy(const std::string& body, int rows, int lanes) {
  absl::StatusOr<te::Workload> w = te::ParseDefinition(
      "input A: float32[" + std::to_string(lanes) + ", " + std::to_string(rows) + "]\nB[i: " +
      std::to_string(rows) + ", j: " + std::to_string(lanes) + "] = " + body + "\n");
  EXPECT_TRUE(w.ok()) << w.status();
  if (!w.ok()) return State(Dag(kMatmul));
  State s(w->dag);
  EXPECT_TRUE(s.Apply(schedule::AnnotationStep{1, 1, IterAnnotation::kVectorize}).ok());
  return s;
}

TEST(LowerTest, AWideGatheringCopyStaysARolledLoop) {
  State wide = VectorizedCopy("A[j, i]", 14, 64);
  EXPECT_THAT(Printed(wide), HasSubstr("rolled (j, 0, 64)"));
  EXPECT_EQ(CheckAgainstReference(wide), "");

  // Longer than a vector statement may be (kMaxVectorLanes), too: not
  // handed to LLVM's loop vectorizer (a 128-lane Winograd input tile).
  State longer = VectorizedCopy("A[j, i]", 14, 128);
  EXPECT_THAT(Printed(longer), HasSubstr("rolled (j, 0, 128)"));
  EXPECT_EQ(CheckAgainstReference(longer), "");

  State narrow = VectorizedCopy("A[j, i]", 14, 16);
  EXPECT_THAT(Printed(narrow), Not(HasSubstr("rolled")));
  EXPECT_THAT(Printed(narrow), HasSubstr("ramp("));
  EXPECT_EQ(CheckAgainstReference(narrow), "");

  absl::StatusOr<te::Workload> contiguous =
      te::ParseDefinition("input A: float32[14, 64]\nB[i: 14, j: 64] = A[i, j] * 2.0\n");
  ASSERT_TRUE(contiguous.ok()) << contiguous.status();
  State c(contiguous->dag);
  ASSERT_TRUE(c.Apply(schedule::AnnotationStep{1, 1, IterAnnotation::kVectorize}).ok());
  EXPECT_THAT(Printed(c), Not(HasSubstr("rolled")));
  EXPECT_THAT(Printed(c), HasSubstr("ramp("));
}

// A padded border's test that does not depend on the rolled loop goes
// around it (a loop of loads, a loop of zeros): inside, each element's
// guarded load would be a branch of its own.
TEST(LowerTest, ARolledCopyTakesItsBorderTestOutside) {
  State s = VectorizedCopy("select(i >= 1, A[j, i - 1], 0.0)", 14, 64);
  LowerOptions unpartitioned;
  unpartitioned.partition_boundaries = false;
  const std::string text = Printed(s, unpartitioned);
  EXPECT_THAT(text, HasSubstr("rolled (j, 0, 64)"));
  EXPECT_THAT(text, HasSubstr("if ("));
  EXPECT_THAT(text, Not(HasSubstr("select(")));
  EXPECT_EQ(CheckAgainstReference(s, unpartitioned), "");
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(LowerTest, FuseThenSplitNonDivisible) {
  State s = Apply(kMatmul, {schedule::FuseStep{2, {0, 1}}, schedule::SplitStep{2, 0, {7}, true}});
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(LowerTest, CacheWriteComputedAtTileAllocatesTheTile) {
  // C.local computes a 4 x 5 tile inside C's j.0 loop.
  State s = Apply(kMatmul, {
                               schedule::CacheWriteStep{2, "local"},  // 2 C.local, 3 C
                               schedule::SplitStep{3, 0, {4}, true},
                               schedule::SplitStep{3, 2, {5}, true},
                               schedule::ReorderStep{3, {0, 2, 1, 3}},
                               schedule::ComputeAtStep{2, 3, 1},
                           });
  EXPECT_EQ(s.stage(2).nodes[0].extent, 4);
  EXPECT_EQ(s.stage(2).nodes[1].extent, 5);
  std::string text = Printed(s);
  EXPECT_THAT(text, HasSubstr("allocate C.local[float32 * 4 * 5]"));
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(LowerTest, CacheWriteAtNonDivisibleTileIsGuarded) {
  State s = Apply(kMatmul, {
                               schedule::CacheWriteStep{2, "local"},
                               schedule::SplitStep{3, 0, {5}, true},
                               schedule::SplitStep{3, 2, {6}, true},
                               schedule::ReorderStep{3, {0, 2, 1, 3}},
                               schedule::ComputeAtStep{2, 3, 1},
                           });
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(LowerTest, RfactorMatches) {
  State s = Apply(kMatmul, {schedule::SplitStep{2, 2, {3}, true},  // k -> k.0 k.1
                            schedule::RfactorStep{2, 3, 2}});
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(LowerTest, ConvWithInlinedPadding) {
  State s = Apply("conv2d:N=1,C=3,H=6,W=6,K=4,R=3,S=3,pad=1", {});
  int pad = s.StageIndex("pad");
  ASSERT_GE(pad, 0) << s.ToString();
  ASSERT_TRUE(s.Apply(schedule::ComputeInlineStep{pad}).ok());
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(LowerTest, ConvWithPaddingComputedAtOutputRow) {
  State s = Apply("conv2d:N=1,C=3,H=6,W=6,K=4,R=3,S=3,pad=1,stride=2", {});
  int pad = s.StageIndex("pad");
  int conv = s.num_stages() - 1;
  ASSERT_GE(pad, 0) << s.ToString();
  ASSERT_TRUE(s.Apply(schedule::ComputeAtStep{pad, conv, 2}).ok()) << s.ToString();
  EXPECT_EQ(CheckAgainstReference(s), "");
}

TEST(LowerTest, GpuBindingOnCpuIsAnError) {
  State s = Apply(kMatmul, {schedule::AnnotationStep{2, 0, IterAnnotation::kBlockX}});
  absl::StatusOr<LoweredFunc> f = Lower(s);
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.status().message(), HasSubstr("blockIdx.x"));
  EXPECT_THAT(f.status().message(), HasSubstr("GPU"));
}

// A shared-memory cache computed inside the loop bound to threadIdx holds
// the part of every thread of the block (one buffer per block), not one
// thread's: its loops then run over the whole tile, which the threads fetch
// together on a GPU. Run here as plain loops, it computes the product.
TEST(LowerTest, ASharedCacheInsideTheThreadLoopSpansTheBlocksThreads) {
  // matmul 16 x 16 x 8: C (stage 3 after the cache) tiled 4 x 4, a block per
  // tile, a thread per output; A's rows of the tile cached at k.0.
  State s = Apply("matmul:M=16,N=16,K=8",
                  {schedule::SplitStep{2, 0, {4}, true}, schedule::SplitStep{2, 2, {4}, true},
                   schedule::ReorderStep{2, {0, 2, 1, 3, 4}}, schedule::FuseStep{2, {0, 1}},
                   schedule::FuseStep{2, {1, 2}}, schedule::SplitStep{2, 2, {4}, true},
                   schedule::AnnotationStep{2, 0, IterAnnotation::kBlockX},
                   schedule::AnnotationStep{2, 1, IterAnnotation::kThreadX},
                   schedule::CacheReadStep{0, "shared", {2}}, schedule::ComputeAtStep{1, 3, 2}});
  // A.shared: 4 rows (every thread's row of the tile) x 4 of k, not 1 x 4.
  EXPECT_EQ(s.stage(1).nodes[0].extent, 4) << s.ToString();
  EXPECT_EQ(s.stage(1).nodes[1].extent, 4) << s.ToString();
  LowerOptions gpu;
  gpu.gpu = true;
  gpu.vectorize = false;
  EXPECT_EQ(CheckAgainstReference(s, gpu), "");
}

// On a CPU the same cache under a vthread loop (no threadIdx around it) is a
// plain copy per iteration: vthread loops are serial loops there (the fuzz
// test's case 2697, conv1d, broke when the region was relaxed over them).
TEST(LowerTest, ASharedCacheUnderAVThreadLoopOnACpuStaysPerIteration) {
  State s = Apply("matmul:M=16,N=16,K=8",
                  {schedule::SplitStep{2, 0, {4}, true},
                   schedule::AnnotationStep{2, 0, IterAnnotation::kVThread},
                   schedule::CacheReadStep{0, "shared", {2}}, schedule::ComputeAtStep{1, 3, 1}});
  // A.shared: one row of A per (i.0, i.1) iteration.
  EXPECT_EQ(s.stage(1).nodes[0].extent, 1) << s.ToString();
  EXPECT_EQ(CheckAgainstReference(s), "");
}

}  // namespace
}  // namespace tuneforge::lower
