// ChainAccumulations: a run of stores that sum into one element becomes one
// store of the sum, in the same order; anything that could read the
// element mid-sum ends the run. A matmul whose reduction is unrolled
// innermost lowers to one store per output and still computes the product.
#include <gtest/gtest.h>

#include "common/lower/lower.h"
#include "common/lower/passes/chain_accumulations.h"
#include "common/lower/printer.h"
#include "common/lower/stmt_functor.h"
#include "common/te/expr_util.h"
#include "tests/lower/lower_test_util.h"

namespace tuneforge::lower {
namespace {

using schedule::IterAnnotation;

Buffer FloatArray(const std::string& name, int64_t size) {
  auto b = std::make_shared<te::BufferNode>();
  b->name = name;
  b->dtype = te::DType::Float32();
  b->shape = {size};
  return b;
}

Expr Load(const Buffer& b, int64_t i) { return te::MakeBufferLoad(b, {Expr(i)}, te::DType::Float32()); }
// acc[i] = acc[i] + term
Stmt Accumulate(const Buffer& acc, int64_t i, Expr term) {
  return MakeStore(acc, {Expr(i)}, Load(acc, i) + std::move(term));
}

int CountStores(const Stmt& s) {
  int n = 0;
  VisitStmts(s, [&](const Stmt& x) { n += x.as<Store>() ? 1 : 0; });
  return n;
}

TEST(ChainAccumulationsTest, AZeroInitAndItsAdditionsBecomeOneStoreOfTheSumInOrder) {
  Buffer acc = FloatArray("acc", 4), in = FloatArray("in", 4);
  Stmt run = MakeSeq({MakeStore(acc, {Expr(0)}, Expr(0.0f)), Accumulate(acc, 0, Load(in, 0)),
                      Accumulate(acc, 0, Load(in, 1)), Accumulate(acc, 0, Load(in, 2))});
  Stmt chained = ChainAccumulations(run);
  ASSERT_EQ(CountStores(chained), 1);
  const Store* store = chained.as<Store>();
  ASSERT_NE(store, nullptr);
  // The zero it starts from adds nothing: the sum starts at the first term.
  EXPECT_TRUE(te::StructurallyEqual(store->value, (Load(in, 0) + Load(in, 1)) + Load(in, 2)));
}

TEST(ChainAccumulationsTest, AnInitOtherThanZeroIsTheSumsFirstTerm) {
  Buffer acc = FloatArray("acc", 4), in = FloatArray("in", 4);
  Stmt chained = ChainAccumulations(
      MakeSeq({MakeStore(acc, {Expr(0)}, Load(in, 3)), Accumulate(acc, 0, Load(in, 0)), Accumulate(acc, 0, Load(in, 1))}));
  const Store* store = chained.as<Store>();
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(te::StructurallyEqual(store->value, (Load(in, 3) + Load(in, 0)) + Load(in, 1)));
}

TEST(ChainAccumulationsTest, ARunWithoutItsInitStartsFromTheElement) {
  // The rest of the sum was accumulated by an outer loop.
  Buffer acc = FloatArray("acc", 4), in = FloatArray("in", 4);
  Stmt chained = ChainAccumulations(MakeSeq({Accumulate(acc, 1, Load(in, 0)), Accumulate(acc, 1, Load(in, 1))}));
  const Store* store = chained.as<Store>();
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(te::StructurallyEqual(store->value, (Load(acc, 1) + Load(in, 0)) + Load(in, 1)));
}

TEST(ChainAccumulationsTest, WhatCouldReadTheElementMidSumEndsTheRun) {
  Buffer acc = FloatArray("acc", 4), in = FloatArray("in", 4);
  // A term that reads the accumulator's buffer (here another element).
  Stmt reads_acc = MakeSeq({MakeStore(acc, {Expr(0)}, Expr(0.0f)), Accumulate(acc, 0, Load(in, 0)),
                            Accumulate(acc, 0, Load(acc, 2)), Accumulate(acc, 0, Load(in, 1))});
  EXPECT_EQ(CountStores(ChainAccumulations(reads_acc)), 3);
  // Another element's store in between.
  Stmt interleaved = MakeSeq({Accumulate(acc, 0, Load(in, 0)), Accumulate(acc, 1, Load(in, 1)),
                              Accumulate(acc, 0, Load(in, 2))});
  EXPECT_EQ(CountStores(ChainAccumulations(interleaved)), 3);
  // A sum whose element is not its first operand keeps its own order.
  Stmt reversed = MakeSeq({MakeStore(acc, {Expr(0)}, Expr(0.0f)), MakeStore(acc, {Expr(0)}, Load(in, 0) + Load(acc, 0))});
  EXPECT_EQ(CountStores(ChainAccumulations(reversed)), 2);
}

TEST(ChainAccumulationsTest, ALongRunIsCutIntoSumsOfSixtyFourTerms) {
  Buffer acc = FloatArray("acc", 1), in = FloatArray("in", 200);
  std::vector<Stmt> run = {MakeStore(acc, {Expr(0)}, Expr(0.0f))};
  for (int64_t i = 0; i < 200; ++i) run.push_back(Accumulate(acc, 0, Load(in, i)));
  // The init and 64 terms; then the element and 65 terms, twice; then 6.
  EXPECT_EQ(CountStores(ChainAccumulations(MakeSeq(std::move(run)))), 4);
}

TEST(ChainAccumulationsTest, AnUnrolledInnermostReductionLowersToOneStorePerOutput) {
  // matmul C[12, 20] += A * B over k = 7, k unrolled innermost: the init
  // and seven multiply-adds of each C[i, j] are one store.
  absl::StatusOr<schedule::State> s = schedule::State::Replay(
      testing::Dag("matmul:M=12,N=20,K=7"), {schedule::AnnotationStep{2, 2, IterAnnotation::kUnroll}});
  ASSERT_TRUE(s.ok()) << s.status();
  absl::StatusOr<LoweredFunc> f = Lower(*s, LowerOptions{});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(CountStores(f->body), 1) << ToString(*f);
  EXPECT_EQ(testing::CheckAgainstReference(*s), "");
}

}  // namespace
}  // namespace tuneforge::lower
