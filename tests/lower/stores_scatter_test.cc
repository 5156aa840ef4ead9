// StoresScatter: vector code that computes lanes and writes them to
// strided elements is told apart from contiguous stores and from copies
// that transpose a layout (which good programs make too).
#include <gtest/gtest.h>

#include "common/lower/lower.h"
#include "common/lower/passes/vectorize.h"
#include "tests/lower/lower_test_util.h"

namespace tuneforge::lower {
namespace {

using schedule::IterAnnotation;

Buffer Floats(const std::string& name, int64_t size) {
  auto b = std::make_shared<te::BufferNode>();
  b->name = name;
  b->dtype = te::DType::Float32();
  b->shape = {size};
  return b;
}

// The vector code of a matmul C[12, 20] scheduled by `steps`.
Stmt MatmulVectorCode(const std::vector<schedule::Step>& steps) {
  absl::StatusOr<schedule::State> s = schedule::State::Replay(testing::Dag("matmul:M=12,N=20,K=7"), steps);
  EXPECT_TRUE(s.ok()) << s.status();
  if (!s.ok()) return Stmt();
  absl::StatusOr<LoweredFunc> f = Lower(*s, LowerOptions{});
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? f->body : Stmt();
}

TEST(StoresScatterTest, VectorizingTheContiguousAxisDoesNotScatter) {
  // i k j: C[i, j] along j is contiguous.
  Stmt code = MatmulVectorCode({schedule::ReorderStep{2, {0, 2, 1}},
                                schedule::AnnotationStep{2, 2, IterAnnotation::kVectorize}});
  EXPECT_FALSE(StoresScatter(code));
}

TEST(StoresScatterTest, VectorizingARowAxisScattersTheAccumulators) {
  // j k i: C[i, j] along i is 20 floats apart, lane by lane.
  Stmt code = MatmulVectorCode({schedule::ReorderStep{2, {1, 2, 0}},
                                schedule::AnnotationStep{2, 2, IterAnnotation::kVectorize}});
  EXPECT_TRUE(StoresScatter(code));
}

TEST(StoresScatterTest, ATransposingCopyIsNotCounted) {
  // vectorized (x, 0, 8): out[x * 7] = in[x] (a layout transform's copy),
  // then the same lanes computed: out[x * 7] = in[x] * 2.
  Var x = te::MakeVar("x");
  Buffer in = Floats("in", 8), out = Floats("out", 56);
  Expr load = te::MakeBufferLoad(in, {Expr(x)}, te::DType::Float32());
  Stmt copy = Vectorize(MakeFor(x, 8, ForKind::kVectorized, MakeStore(out, {Expr(x) * 7}, load)));
  EXPECT_FALSE(StoresScatter(copy));
  Stmt computed =
      Vectorize(MakeFor(x, 8, ForKind::kVectorized, MakeStore(out, {Expr(x) * 7}, load * Expr(2.0f))));
  EXPECT_TRUE(StoresScatter(computed));
}

}  // namespace
}  // namespace tuneforge::lower
