// ParseWorkload: the spec syntax, canonical specs and every spec error.
#include "common/te/workload.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/te/op_testing.h"

namespace tuneforge::te {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ErrorOf(const std::string& spec) {
  absl::StatusOr<Workload> w = ParseWorkload(spec);
  EXPECT_FALSE(w.ok()) << spec << " parsed";
  if (w.ok()) return "";
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument) << spec;
  return std::string(w.status().message());
}

TEST(WorkloadSpecTest, CanonicalSpecSortsKeysAndDropsDefaults) {
  Workload w = optest::MustParse("matmul:N=1024,M=1024,K=1024");
  EXPECT_EQ(w.spec, "matmul:K=1024,M=1024,N=1024");
  EXPECT_EQ(w.op, "matmul");
  Workload c = optest::MustParse(" conv2d+bias+relu : N=1, C=64,H=56,W=56,K=64,R=3,S=3,pad=1,stride=1,"
                                 "dtype=float32 ");
  EXPECT_EQ(c.spec, "conv2d+bias+relu:C=64,H=56,K=64,N=1,R=3,S=3,W=56,pad=1");
  EXPECT_EQ(c.op, "conv2d+bias+relu");
  Workload d = optest::MustParse("matmul:M=8,N=8,K=8,dtype=float64");
  EXPECT_EQ(d.spec, "matmul:K=8,M=8,N=8,dtype=float64");
}

TEST(WorkloadSpecTest, CanonicalSpecParsesToTheSameWorkload) {
  for (const char* spec : {"conv2d+add+relu:N=1,C=8,H=9,W=9,K=4,R=3,S=3,stride=2,groups=2",
                           "relu:W=4,N=2", "softmax:M=3,N=5,dtype=float64"}) {
    Workload a = optest::MustParse(spec);
    Workload b = optest::MustParse(a.spec);
    EXPECT_EQ(a.spec, b.spec);
    EXPECT_EQ(a.dag->workload_key(), b.dag->workload_key()) << spec;
  }
}

TEST(WorkloadSpecTest, EmptySpec) {
  EXPECT_THAT(ErrorOf(""), HasSubstr("empty workload spec; write OP:KEY=VALUE"));
  EXPECT_THAT(ErrorOf("   "), HasSubstr("empty workload spec"));
}

TEST(WorkloadSpecTest, UnknownOpListsTheValidOnes) {
  std::string e = ErrorOf("matmull:M=1,N=1,K=1");
  EXPECT_THAT(e, HasSubstr("unknown op 'matmull'; valid ops: matmul, batch_matmul, dense, conv1d"));
  for (const OpInfo& op : ListOps()) EXPECT_THAT(e, HasSubstr(op.name));
}

TEST(WorkloadSpecTest, UnknownEpilogueListsTheValidOnes) {
  EXPECT_THAT(ErrorOf("conv2d+swish:N=1,C=1,H=3,W=3,K=1,R=1,S=1"),
              HasSubstr("unknown epilogue 'swish' after '+'; valid epilogues: bias, add, mul, relu"));
}

TEST(WorkloadSpecTest, UnknownKeyListsTheOpsKeys) {
  EXPECT_THAT(ErrorOf("matmul:M=1,N=1,K=1,X=2"),
              HasSubstr("matmul has no key 'X'; its keys: M, N, K, dtype"));
  EXPECT_THAT(ErrorOf("conv2d:N=1,C=1,H=3,W=3,K=1,R=1,S=1,padding=1"),
              HasSubstr("conv2d has no key 'padding'; its keys: N, C, H, W, K, R, S, stride, pad, "
                        "dilation, groups, dtype"));
  EXPECT_THAT(ErrorOf("matmul:m=1,N=1,K=1"), HasSubstr("no key 'm' (did you mean 'M'?)"));
}

TEST(WorkloadSpecTest, MissingRequiredKey) {
  EXPECT_THAT(ErrorOf("matmul:M=1,N=1"),
              HasSubstr("matmul needs key K; write matmul:M=..,N=..,K=.."));
  EXPECT_THAT(ErrorOf("conv2d:N=1,C=1,H=3"), HasSubstr("conv2d needs keys W, K, R, S"));
  EXPECT_THAT(ErrorOf("softmax"), HasSubstr("softmax needs keys M, N"));
  EXPECT_THAT(ErrorOf("relu:"), HasSubstr("relu: needs at least one dimension"));
}

TEST(WorkloadSpecTest, NonIntegerValue) {
  EXPECT_THAT(ErrorOf("matmul:M=abc,N=1,K=1"), HasSubstr("M=abc is not an integer"));
  EXPECT_THAT(ErrorOf("matmul:M=1.5,N=1,K=1"), HasSubstr("M=1.5 is not an integer"));
  EXPECT_THAT(ErrorOf("matmul:M=99999999999999999999,N=1,K=1"), HasSubstr("is not an integer"));
  EXPECT_THAT(ErrorOf("matmul:M=4294967296,N=1,K=1"), HasSubstr("M=4294967296 is too large"));
  EXPECT_THAT(ErrorOf("matmul:M=1,N=1,K=1,dtype=float16"),
              HasSubstr("dtype=float16 is not supported; use float32, float64, int8, int32 or int64"));
  EXPECT_THAT(ErrorOf("matmul:M=1,N=1,K=1,dtype=bool"), HasSubstr("dtype=bool is not supported"));
}

TEST(WorkloadSpecTest, DuplicatedKey) {
  EXPECT_THAT(ErrorOf("matmul:M=1,N=1,K=1,M=2"), HasSubstr("key 'M' is given twice"));
  EXPECT_THAT(ErrorOf("matmul:M=1,N=1,K=1,dtype=float32,dtype=float64"),
              HasSubstr("key 'dtype' is given twice"));
}

TEST(WorkloadSpecTest, BadSeparators) {
  EXPECT_THAT(ErrorOf("matmul:M=1,,N=1,K=1"), HasSubstr("empty KEY=VALUE item"));
  EXPECT_THAT(ErrorOf("matmul:M=1,N=1,K=1,"), HasSubstr("no trailing comma"));
  EXPECT_THAT(ErrorOf("matmul:M=1;N=1;K=1"),
              HasSubstr("M=1;N=1;K=1 is not an integer; separate KEY=VALUE pairs with ','"));
  EXPECT_THAT(ErrorOf("matmul:M1024,N=1,K=1"), HasSubstr("'M1024' is not KEY=VALUE"));
  EXPECT_THAT(ErrorOf("matmul:=5,N=1,K=1"), HasSubstr("'=5' has no key before '='"));
  EXPECT_THAT(ErrorOf("matmul:M=,N=1,K=1"), HasSubstr("key 'M' has no value"));
  EXPECT_THAT(ErrorOf("conv2d++relu:N=1"), HasSubstr("empty op name"));
  EXPECT_THAT(ErrorOf("+relu:N=1"), HasSubstr("empty op name"));
}

TEST(WorkloadSpecTest, OpErrorsNameTheSpec) {
  EXPECT_THAT(ErrorOf("conv2d:N=1,C=6,H=8,W=8,K=4,R=3,S=3,groups=4"),
              HasSubstr("workload 'conv2d:N=1,C=6,H=8,W=8,K=4,R=3,S=3,groups=4': conv2d: C=6 is not "
                        "divisible by groups=4"));
  EXPECT_THAT(ErrorOf("matmul:M=0,N=1,K=1"), HasSubstr("matmul: M=0 must be positive"));
}

TEST(WorkloadSpecTest, TooLargeTensorsAreRejected) {
  EXPECT_THAT(ErrorOf("matmul:M=2000000000,N=2000000000,K=1"),
              HasSubstr("tensor 'C' would hold 4e+18 elements, more than the limit"));
}

TEST(WorkloadSpecTest, TooManyEpilogues) {
  std::string spec = "matmul";
  for (int i = 0; i < 17; ++i) spec += "+relu";
  EXPECT_THAT(ErrorOf(spec + ":M=2,N=2,K=2"), HasSubstr("17 epilogues; at most 16 may follow an op"));
}

TEST(WorkloadSpecTest, DefPrefixLoadsADefinitionFile) {
  std::string path = std::string(TF_TEST_DATA_DIR) + "/defs/matmul.def";
  Workload w = optest::MustParse("def:" + path);
  EXPECT_EQ(w.spec, "def:" + path);
  EXPECT_EQ(w.op, "matmul");
  absl::StatusOr<Workload> missing = ParseWorkload("def:/no/such/file.def");
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr("cannot read definition file '/no/such/file.def'"));
}

TEST(WorkloadSpecTest, ListOpsHasEveryInterfaceOp) {
  std::vector<std::string> names;
  for (const OpInfo& op : ListOps()) names.push_back(op.name);
  for (const char* required :
       {"matmul", "batch_matmul", "dense", "conv1d", "conv2d", "conv3d", "depthwise_conv2d",
        "conv2d_transpose", "capsule_conv2d", "norm", "softmax", "layer_norm", "relu", "add",
        "max_pool2d", "avg_pool2d"})
    EXPECT_THAT(names, ::testing::Contains(required));
  const OpInfo* conv = nullptr;
  std::vector<OpInfo> ops = ListOps();
  for (const OpInfo& op : ops)
    if (op.name == "conv2d") conv = &op;
  ASSERT_NE(conv, nullptr);
  std::vector<std::string> keys;
  for (const ParamInfo& p : conv->params) keys.push_back(p.key);
  EXPECT_THAT(keys, ElementsAre("N", "C", "H", "W", "K", "R", "S", "stride", "pad", "dilation", "groups"));
  EXPECT_EQ(conv->params[7].default_value, 1);
  EXPECT_TRUE(conv->params[0].required);
}

}  // namespace
}  // namespace tuneforge::te
