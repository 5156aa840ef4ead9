// Workload keys: the same computation however it is written gets one key;
// any change to shapes, dtypes or math gets another.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/te/op_testing.h"

namespace tuneforge::te {
namespace {

std::string KeyOf(const std::string& spec) {
  Workload w = optest::MustParse(spec);
  return w.dag ? w.dag->workload_key() : "";
}

std::string DefKey(const std::string& text) {
  Workload w = optest::MustDefine(text);
  return w.dag ? w.dag->workload_key() : "";
}

TEST(WorkloadKeyTest, IsSixteenHexDigits) {
  EXPECT_THAT(KeyOf("matmul:M=1024,N=1024,K=1024"), ::testing::MatchesRegex("[0-9a-f]{16}"));
}

TEST(WorkloadKeyTest, KeyOrderAndDefaultsDoNotMatter) {
  EXPECT_EQ(KeyOf("matmul:M=64,N=32,K=16"), KeyOf("matmul:K=16,N=32,M=64"));
  EXPECT_EQ(KeyOf("conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3"),
            KeyOf("conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,stride=1,pad=0,dilation=1,groups=1,dtype=float32"));
}

TEST(WorkloadKeyTest, DefinitionWithOtherNamesMatchesTheSpec) {
  EXPECT_EQ(DefKey("input X: float32[64, 16]\ninput Y: float32[16, 32] constant\n"
                   "Z[row: 64, col: 32] = sum(X[row, r] * Y[r, col], r: 16)\n"),
            KeyOf("matmul:M=64,N=32,K=16"));
  EXPECT_EQ(DefKey("let M = 8\nlet N = 8\ninput lhs: float64[M, 4]\ninput rhs: float64[4, N] constant\n"
                   "prod[a: M, b: N] = sum(lhs[a, q] * rhs[q, b], q: 4)\n"
                   "act[a: M, b: N] = max(prod[a, b], 0.0)\n"),
            KeyOf("matmul+relu:M=8,N=8,K=4,dtype=float64"));
}

TEST(WorkloadKeyTest, ShapesDtypesAndMathChangeTheKey) {
  std::vector<std::string> keys = {
      KeyOf("matmul:M=64,N=32,K=16"),
      KeyOf("matmul:M=32,N=64,K=16"),             // transposed shape
      KeyOf("matmul:M=64,N=32,K=17"),             // reduction length
      KeyOf("matmul:M=64,N=32,K=16,dtype=float64"),
      KeyOf("matmul:M=64,N=32,K=16,dtype=int32"),
      KeyOf("matmul+relu:M=64,N=32,K=16"),
      KeyOf("matmul+sigmoid:M=64,N=32,K=16"),
      KeyOf("dense:M=64,N=32,K=16"),              // weights read transposed
      KeyOf("batch_matmul:B=1,M=64,N=32,K=16"),
  };
  for (size_t a = 0; a < keys.size(); ++a)
    for (size_t b = a + 1; b < keys.size(); ++b) EXPECT_NE(keys[a], keys[b]) << a << " vs " << b;
  std::vector<std::string> conv = {
      KeyOf("conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3"),
      KeyOf("conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,pad=1"),
      KeyOf("conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,stride=2"),
      KeyOf("conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,dilation=2"),
      KeyOf("conv2d:N=1,C=8,H=8,W=8,K=8,R=3,S=3,groups=2"),
  };
  for (size_t a = 0; a < conv.size(); ++a)
    for (size_t b = a + 1; b < conv.size(); ++b) EXPECT_NE(conv[a], conv[b]) << a << " vs " << b;
}

TEST(WorkloadKeyTest, CanonicalTextIsStable) {
  // Records in the store are keyed by this text's hash: a change here orphans
  // every stored record, so it must be deliberate.
  Workload w = optest::MustParse("matmul:M=2,N=4,K=3");
  EXPECT_EQ(w.dag->canonical_text(),
            "t0:float32[2,3]=input\n"
            "t1:float32[3,4]=input const\n"  // B is a weight (layout rewrite)
            "t2:float32[2,4]=sum((t0[v0, v2] * t1[v2, v1]), axis=[v2:3])\n");
  EXPECT_EQ(KeyOf("matmul:M=1024,N=1024,K=1024"), KeyOf("matmul:M=1024,N=1024,K=1024"));
  Workload again = optest::MustParse("matmul:M=2,N=4,K=3");
  EXPECT_EQ(w.dag->canonical_text(), again.dag->canonical_text());
}

}  // namespace
}  // namespace tuneforge::te
