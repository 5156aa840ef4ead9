// A workload's other forms: a 3x3 stride-1 conv2d, with or without an
// epilogue, has a Winograd form that computes its outputs from the same
// inputs; other convs and ops have none.
#include "common/te/workload_forms.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/te/op_testing.h"

namespace tuneforge::te {
namespace {

TEST(WorkloadFormsTest, AThreeByThreeConvsWinogradFormComputesItsOutputs) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"conv2d:N=1,C=3,H=9,W=7,K=4,R=3,S=3,pad=1", "conv2d_winograd"},
      {"conv2d:N=2,C=2,H=8,W=8,K=3,R=3,S=3", "conv2d_winograd"},
      // An epilogue carries over, its inputs (bias, the residual) too.
      {"conv2d+bias+relu:N=1,C=3,H=9,W=7,K=4,R=3,S=3,pad=1", "conv2d_winograd+bias+relu"},
      {"conv2d+bias+add+relu:N=1,C=4,H=6,W=6,K=4,R=3,S=3,pad=1", "conv2d_winograd+bias+add+relu"}};
  for (const auto& [spec, form_op] : cases) {
    SCOPED_TRACE(spec);
    Workload conv = optest::MustParse(spec);
    std::optional<Workload> form = WinogradFormOf(conv);
    ASSERT_TRUE(form.has_value());
    EXPECT_EQ(form->op, form_op);
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
    // The epilogue's relu clamps some outputs: the check is not of zeros.
    double largest = 0;
    for (int64_t i = 0; i < n; ++i) largest = std::max(largest, std::abs(direct[0].GetDouble(i)));
    EXPECT_GT(largest, 0.1);
  }
}

TEST(WorkloadFormsTest, OtherConvsAndOpsHaveNone) {
  for (const char* spec :
       {"conv2d:N=1,C=4,H=9,W=9,K=4,R=3,S=3,stride=2", "conv2d:N=1,C=4,H=9,W=9,K=4,R=1,S=1",
        "conv2d:N=1,C=4,H=9,W=9,K=4,R=3,S=3,dilation=2", "conv2d:N=1,C=4,H=9,W=9,K=4,R=3,S=3,groups=2",
        "conv2d+bias+relu:N=1,C=4,H=9,W=9,K=4,R=3,S=3,stride=2", "depthwise_conv2d:N=1,C=4,H=9,W=9,R=3,S=3",
        "matmul:M=8,N=8,K=8"})
    EXPECT_FALSE(WinogradFormOf(optest::MustParse(spec)).has_value()) << spec;
}

}  // namespace
}  // namespace tuneforge::te
