// Every op of the table: builds from a small spec, reads only inside its
// tensors (checked statically and by running it), and is documented.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "absl/container/flat_hash_set.h"
#include "common/te/definition/bounds_check.h"
#include "common/te/ops/op_table.h"
#include "tests/te/op_testing.h"

namespace tuneforge::te {
namespace {

using ::testing::HasSubstr;

TEST(OpsTableTest, EveryOpHasASample) {
  absl::flat_hash_set<std::string> sampled;
  for (const std::string& spec : optest::OpSamples()) sampled.insert(spec.substr(0, spec.find(':')));
  for (const OpInfo& op : ListOps()) EXPECT_TRUE(sampled.contains(op.name)) << op.name;
}

TEST(OpsTableTest, EveryReadStaysInsideItsTensor) {
  for (const std::string& spec : optest::OpSamples()) {
    Workload w = optest::MustParse(spec);
    ASSERT_NE(w.dag, nullptr) << spec;
    for (const Tensor& op : w.dag->ops()) {
      absl::Status s = definition::CheckReadsInBounds(op);
      EXPECT_TRUE(s.ok()) << spec << ": " << s;
    }
    // The interpreter fails on any out-of-bounds read it performs.
    std::vector<NDArray> out = optest::Run(*w.dag, optest::RandomInputs(*w.dag));
    EXPECT_EQ(out.size(), w.dag->OutputOps().size()) << spec;
  }
}

TEST(OpsTableTest, EveryOpAndKeyIsDocumented) {
  for (const OpInfo& op : ListOps()) {
    EXPECT_FALSE(op.summary.empty()) << op.name;
    EXPECT_FALSE(op.params.empty()) << op.name;
    for (const ParamInfo& p : op.params) EXPECT_FALSE(p.meaning.empty()) << op.name << "." << p.key;
  }
  std::string help = WorkloadHelp();
  for (const OpInfo& op : ListOps()) EXPECT_THAT(help, HasSubstr(op.name + ": ")) << op.name;
  EXPECT_THAT(help, HasSubstr("conv2d: 2-d convolution, data NCHW, kernel OIHW\n      keys: N C H W K "
                              "R S stride=1 pad=0 dilation=1 groups=1 dtype=float32"));
  EXPECT_THAT(help, HasSubstr("gelu: "));
}

TEST(OpsTableTest, EveryOpAcceptsEveryNumericDtype) {
  for (const std::string& spec : optest::OpSamples()) {
    std::string op = std::string(spec).substr(0, std::string(spec).find(':'));
    // Fractional transform matrices (Winograd) and normalisations need floats.
    bool float_only = op == "softmax" || op == "norm" || op == "layer_norm" || op == "conv2d_winograd";
    for (const char* dtype : {"float64", "int32"}) {
      absl::StatusOr<Workload> w = ParseWorkload(absl::StrCat(spec, ",dtype=", dtype));
      if (float_only && std::string(dtype) == "int32") {
        ASSERT_FALSE(w.ok()) << spec;
        EXPECT_THAT(w.status().message(), HasSubstr("needs dtype=float32 or dtype=float64"));
        continue;
      }
      ASSERT_TRUE(w.ok()) << spec << " " << dtype << ": " << w.status();
      for (int i : w->dag->OutputOps()) EXPECT_EQ(ToString(w->dag->op(i)->dtype), dtype) << spec;
    }
  }
}

}  // namespace
}  // namespace tuneforge::te
