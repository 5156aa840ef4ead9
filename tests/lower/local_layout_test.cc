// Local buffers store their region in the order the innermost loops walk
// it (common/lower/local_layout.h): an accumulator tile with a non-last
// axis innermost, and a copy of a weight read along a non-last dimension,
// keep that loop's accesses contiguous; packed weights inherit the order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/lower/lower.h"
#include "common/lower/stmt_functor.h"
#include "tests/lower/lower_test_util.h"

namespace tuneforge::lower {
namespace {

using ::testing::ElementsAre;
using schedule::CacheReadStep;
using schedule::CacheWriteStep;
using schedule::ComputeAtStep;
using schedule::ReorderStep;
using schedule::SplitStep;
using schedule::State;

// The shape of the local buffer `name` allocated in `body` (empty if none).
std::vector<int64_t> AllocatedShape(const Stmt& body, const std::string& name) {
  std::vector<int64_t> shape;
  VisitStmts(body, [&](const Stmt& s) {
    if (const Allocate* a = s.as<Allocate>(); a && a->buffer->name == name) shape = a->buffer->shape;
  });
  return shape;
}

State MustReplay(const std::string& spec, const std::vector<schedule::Step>& steps) {
  absl::StatusOr<State> s = State::Replay(testing::Dag(spec), steps);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : State(testing::Dag(spec));
}

TEST(LocalLayoutTest, AnAccumulatorTileWithItsRowsInnermostStoresRowsLast) {
  // C.local's tile (i.1: 4, j.1: 8) walked j.1 outside i.1: stored [j][i].
  State s = MustReplay("matmul:M=32,N=32,K=16", {
                                                    CacheWriteStep{2, "local"},  // 2 C.local, 3 C
                                                    SplitStep{3, 0, {4}, true},
                                                    SplitStep{3, 2, {8}, true},
                                                    ReorderStep{3, {0, 2, 1, 3}},
                                                    ComputeAtStep{2, 3, 1},
                                                    ReorderStep{2, {2, 1, 0}},  // k, j, i
                                                });
  absl::StatusOr<LoweredFunc> f = Lower(s);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_THAT(AllocatedShape(f->body, "C.local"), ElementsAre(8, 4));
  EXPECT_EQ(testing::CheckAgainstReference(s), "");
  LowerOptions plain;
  plain.vectorize = plain.unroll = false;
  EXPECT_EQ(testing::CheckAgainstReference(s, plain), "");
}

TEST(LocalLayoutTest, TheTensorsOrderStaysWhereTheLoopsFollowIt) {
  State s = MustReplay("matmul:M=32,N=32,K=16", {
                                                    CacheWriteStep{2, "local"},
                                                    SplitStep{3, 0, {4}, true},
                                                    SplitStep{3, 2, {8}, true},
                                                    ReorderStep{3, {0, 2, 1, 3}},
                                                    ComputeAtStep{2, 3, 1},
                                                });
  absl::StatusOr<LoweredFunc> f = Lower(s);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_THAT(AllocatedShape(f->body, "C.local"), ElementsAre(4, 8));
}

TEST(LocalLayoutTest, ADenseWeightReadAlongItsRowsIsPackedWithRowsInnermost) {
  // dense: Y[i, j] = sum_k X[i, k] * W[j, k], W constant. Tiles (j.0, k.0,
  // i, k.1, j.1) with W's (16 x 8) tile copied inside k.0: the kernel reads
  // it along j.1, so each packed tile is [k: 8][j: 16], contiguous in j.
  State s = MustReplay("dense:M=8,N=64,K=32", {
                                                  SplitStep{2, 1, {16}, true},  // i, j.0, j.1, k
                                                  SplitStep{2, 3, {8}, true},   // i, j.0, j.1, k.0, k.1
                                                  ReorderStep{2, {1, 3, 0, 4, 2}},
                                                  CacheReadStep{1, "local", {2}},  // 2 W.local, 3 Y
                                                  ComputeAtStep{2, 3, 1},
                                              });
  ASSERT_TRUE(s.dag()->op(1)->constant);
  absl::StatusOr<LoweredFunc> f = Lower(s);
  ASSERT_TRUE(f.ok()) << f.status();
  ASSERT_EQ(f->num_packed, 1);
  EXPECT_THAT(f->args.back()->shape, ElementsAre(4, 4, 8, 16));  // [j.0][k.0][k][j]
  EXPECT_EQ(testing::CheckAgainstReference(s), "");
  LowerOptions unpacked;
  unpacked.hoist_constants = false;
  absl::StatusOr<LoweredFunc> g = Lower(s, unpacked);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_THAT(AllocatedShape(g->body, s.stage(2).op->name), ElementsAre(8, 16));
  EXPECT_EQ(testing::CheckAgainstReference(s, unpacked), "");
}

}  // namespace
}  // namespace tuneforge::lower
