// A workload's other forms: a 3x3 stride-1 conv2d has a Winograd form that
// computes its outputs from the same inputs; other convs and ops have none.
#include "common/te/workload_forms.h"

#include "gtest/gtest.h"
#include "tests/te/op_testing.h"

namespace tuneforge::te {
namespace {

TEST(WorkloadFormsTest, AThreeByThreeConvsWinogradFormComputesItsOutputs) {
  for (const char* spec : {"conv2d:N=1,C=3,H=9,W=7,K=4,R=3,S=3,pad=1", "conv2d:N=2,C=2,H=8,W=8,K=3,R=3,S=3"}) {
    SCOPED_TRACE(spec);
    Workload conv = optest::MustParse(spec);
    std::optional<Workload> form = WinogradFormOf(conv);
    ASSERT_TRUE(form.has_value());
    EXPECT_EQ(form->op, "conv2d_winograd");
    EXPECT_NE(form->dag->workload_key(), conv.dag->workload_key());
    // Same inputs (data, kernel) in the same order, the same outputs.
    const std::vector<NDArray> inputs = optest::RandomInputs(*conv.dag, 3);
    const std::vector<NDArray> direct = optest::Run(*conv.dag, inputs);
    const std::vector<NDArray> winograd = optest::Run(*form->dag, inputs);
    ASSERT_EQ(direct.size(), 1u);
    ASSERT_EQ(winograd.size(), 1u);
    ASSERT_EQ(direct[0].shape(), winograd[0].shape());
    const int64_t n = direct[0].num_elements();
    for (int64_t i = 0; i < n; ++i)
      ASSERT_NEAR(direct[0].GetDouble(i), winograd[0].GetDouble(i), 1e-4) << "element " << i;
  }
}

TEST(WorkloadFormsTest, OtherConvsAndOpsHaveNone) {
  for (const char* spec :
       {"conv2d:N=1,C=4,H=9,W=9,K=4,R=3,S=3,stride=2", "conv2d:N=1,C=4,H=9,W=9,K=4,R=1,S=1",
        "conv2d:N=1,C=4,H=9,W=9,K=4,R=3,S=3,dilation=2", "conv2d:N=1,C=4,H=9,W=9,K=4,R=3,S=3,groups=2",
        "conv2d+relu:N=1,C=4,H=9,W=9,K=4,R=3,S=3", "matmul:M=8,N=8,K=8"})
    EXPECT_FALSE(WinogradFormOf(optest::MustParse(spec)).has_value()) << spec;
}

}  // namespace
}  // namespace tuneforge::te
