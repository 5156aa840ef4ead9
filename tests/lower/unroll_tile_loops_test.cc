// Which loops UnrollTileLoops marks: the small loops inside a reduction's
// loop (a tile's columns, a tap loop inside the channel loop), never the
// reduction loop that would be left innermost, nor loops outside any
// reduction.
#include "common/lower/passes/unroll_tile_loops.h"

#include <gtest/gtest.h>

#include "absl/container/flat_hash_map.h"
#include "common/lower/stmt_functor.h"

namespace tuneforge::lower {
namespace {

Buffer Buf(const char* name, int64_t size) {
  auto b = std::make_shared<te::BufferNode>();
  b->name = name;
  b->dtype = te::DType::Float32();
  b->shape = {size};
  return b;
}

Expr Load(const Buffer& b, const Expr& index) { return te::MakeBufferLoad(b, {index}, te::DType::Float32()); }

absl::flat_hash_map<std::string, ForKind> Kinds(const Stmt& s) {
  absl::flat_hash_map<std::string, ForKind> out;
  VisitStmts(s, [&](const Stmt& x) {
    if (const For* f = x.as<For>()) out[f->var->name] = f->kind;
  });
  return out;
}

// acc[j] = acc[j] + in[index] over `for (k, 0, kExtent) { for (j, 0, 4) }`.
Stmt Accumulate(const Var& k, int64_t k_extent, const Var& j, const Buffer& acc, const Buffer& in, const Expr& index) {
  Stmt store = MakeStore(acc, {Expr(j)}, Load(acc, Expr(j)) + Load(in, index));
  return MakeFor(k, k_extent, ForKind::kSerial, MakeFor(j, 4, ForKind::kSerial, store));
}

TEST(UnrollTileLoopsTest, ATileLoopInsideTheChannelLoopIsUnrolledAndTheChannelLoopStays) {
  Var k = te::MakeVar("k"), j = te::MakeVar("j");
  Buffer acc = Buf("acc", 4), in = Buf("in", 1024);
  Stmt nest = Accumulate(k, 256, j, acc, in, Expr(k) * 4 + Expr(j));
  For loop = *nest.as<For>();
  EXPECT_TRUE(AccumulatesOver(loop));
  auto kinds = Kinds(UnrollTileLoops(nest));
  EXPECT_EQ(kinds["k"], ForKind::kSerial);
  EXPECT_EQ(kinds["j"], ForKind::kUnrolled);
}

TEST(UnrollTileLoopsTest, AShortReductionUnderASpatialLoopStaysTheInnermostLoop) {
  // for i { for r (4) { acc[i] += in[...] } }: r accumulates, but its parent
  // i does not, so unrolling r would leave the spatial i innermost.
  Var i = te::MakeVar("i"), r = te::MakeVar("r"), k = te::MakeVar("k");
  Buffer acc = Buf("acc", 8), in = Buf("in", 4096);
  Stmt store = MakeStore(acc, {Expr(i)}, Load(acc, Expr(i)) + Load(in, Expr(k) * 32 + Expr(i) * 4 + Expr(r)));
  Stmt nest = MakeFor(k, 16, ForKind::kSerial, MakeFor(i, 8, ForKind::kSerial, MakeFor(r, 4, ForKind::kSerial, store)));
  auto kinds = Kinds(UnrollTileLoops(nest));
  EXPECT_EQ(kinds["r"], ForKind::kSerial);
  EXPECT_EQ(kinds["i"], ForKind::kSerial);
}

TEST(UnrollTileLoopsTest, LoopsOutsideAnyReductionAndLargeTilesAreLeftToLlvm) {
  Var i = te::MakeVar("i"), j = te::MakeVar("j");
  Buffer out = Buf("out", 64), in = Buf("in", 64);
  Stmt copy = MakeFor(
      i, 16, ForKind::kSerial,
      MakeFor(j, 4, ForKind::kSerial, MakeStore(out, {Expr(i) * 4 + Expr(j)}, Load(in, Expr(i) * 4 + Expr(j)))));
  auto kinds = Kinds(UnrollTileLoops(copy));
  EXPECT_EQ(kinds["j"], ForKind::kSerial);
  // A tile row of 100 statements is past the size LLVM unrolls.
  Var k = te::MakeVar("k"), t = te::MakeVar("t");
  Buffer acc = Buf("acc", 100), data = Buf("data", 1 << 16);
  Stmt big = MakeFor(k, 256, ForKind::kSerial,
                     MakeFor(t, 100, ForKind::kSerial,
                             MakeStore(acc, {Expr(t)}, Load(acc, Expr(t)) + Load(data, Expr(k) * 100 + Expr(t)))));
  kinds = Kinds(UnrollTileLoops(big));
  EXPECT_EQ(kinds["t"], ForKind::kSerial);
}

}  // namespace
}  // namespace tuneforge::lower
