// Bad models give one clear error naming the problem, never a crash:
// malformed and truncated files, unsupported ops, dynamic shapes, missing
// initializers, unsupported opsets; and random corruptions of a good file.
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "graph/model/model.h"
#include "graph/onnx/import.h"
#include "tests/graph/onnx_builder.h"

namespace tuneforge::graph {
namespace {

using ::testing::HasSubstr;

TEST(ImportErrorsTest, BytesThatAreNoModelSaySo) {
  auto g = ImportOnnxBytes("this is not a model", "junk.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("junk.onnx is not an ONNX model"));
  EXPECT_FALSE(ImportOnnxBytes("", "empty.onnx").ok());
}

TEST(ImportErrorsTest, ATruncatedFileIsRefused) {
  std::string bytes = testing::Mlp().Bytes();
  for (size_t cut : {bytes.size() / 2, bytes.size() - 3, size_t{10}}) {
    auto g = ImportOnnxBytes(bytes.substr(0, cut), "cut.onnx");
    EXPECT_FALSE(g.ok()) << "cut at " << cut;
  }
}

TEST(ImportErrorsTest, AnUnsupportedOpNamesTheNodeTheOpAndTheSupportedOnes) {
  testing::OnnxBuilder b;
  b.Input("x", {1, 4}).Node("Hardmax", {"x"}, {"y"}).Output("y", {1, 4});
  auto g = ImportOnnxModel(b.model());
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(g.status().message(), HasSubstr("node 'y' (Hardmax): this op is not supported"));
  EXPECT_THAT(g.status().message(), HasSubstr("Conv"));
}

TEST(ImportErrorsTest, ADynamicDimensionIsRefusedWithTheFix) {
  testing::OnnxBuilder b;
  b.Input("x", {1, 4}).Node("Relu", {"x"}, {"y"}).Output("y", {1, 4});
  onnx::ModelProto m = b.model();
  auto* dim = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0);
  dim->set_dim_param("batch");
  auto g = ImportOnnxModel(m);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("dynamic dimension 0 ('batch')"));
  EXPECT_THAT(g.status().message(), HasSubstr("export the model with fixed input shapes"));
}

TEST(ImportErrorsTest, AMissingInitializerNamesTheValueAndTheNode) {
  testing::OnnxBuilder b;
  b.Input("x", {1, 4}).Node("MatMul", {"x", "w"}, {"y"}).Output("y", {1, 4});
  auto g = ImportOnnxModel(b.model());
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("node 'y' (MatMul): reads 'w'"));
  EXPECT_THAT(g.status().message(), HasSubstr("missing initializer"));
}

TEST(ImportErrorsTest, AnOpsetNewerThanSupportedSaysWhichAreSupported) {
  testing::OnnxBuilder b(19);
  b.Input("x", {1, 4}).Node("Relu", {"x"}, {"y"}).Output("y", {1, 4});
  auto g = ImportOnnxModel(b.model());
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("opset 19"));
  EXPECT_THAT(g.status().message(), HasSubstr("1 to 17"));
}

TEST(ImportErrorsTest, ShapesThatDoNotFitAreInvalidNotACrash) {
  testing::OnnxBuilder b;
  b.Input("x", {1, 3, 8, 8}).Weight("w", {4, 5, 3, 3}).Node("Conv", {"x", "w"}, {"y"}).Output("y", {1, 4, 6, 6});
  auto g = ImportOnnxModel(b.model());
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(g.status().message(), HasSubstr("node 'y' (Conv)"));
}

// A transposed conv's attributes and bias are checked like a conv's: each
// bad one is an error naming it, not a kernel that reads out of bounds.
TEST(ImportErrorsTest, ATransposedConvsBadAttributesAndBiasAreInvalid) {
  struct Case {
    std::string what;
    std::function<void(testing::OnnxBuilder&)> attrs;
    bool bias_of_3 = false;
  };
  std::vector<Case> cases = {
      {"strides and dilations must be positive", [](testing::OnnxBuilder& b) { b.AttrInts("strides", {0, 2}); }},
      {"pads must not be negative", [](testing::OnnxBuilder& b) { b.AttrInts("pads", {-1, 0, 0, 0}); }},
      {"output_padding must be", [](testing::OnnxBuilder& b) {
         b.AttrInts("strides", {2, 2}).AttrInts("output_padding", {2, 0});
       }},
      {"auto_pad 'SAME'", [](testing::OnnxBuilder& b) { b.AttrString("auto_pad", "SAME"); }},
      {"output_shape needs 2", [](testing::OnnxBuilder& b) { b.AttrInts("output_shape", {1, 2, 3}); }},
      {"group must be positive", [](testing::OnnxBuilder& b) { b.AttrInt("group", 0); }},
      {"bias has 3 elements", [](testing::OnnxBuilder&) {}, true},
  };
  for (const Case& c : cases) {
    testing::OnnxBuilder b;
    b.Input("x", {1, 4, 5, 5}).Weight("w", {4, 2, 3, 3});
    std::vector<std::string> inputs = {"x", "w"};
    if (c.bias_of_3) {
      b.Weight("bias", {3});
      inputs.push_back("bias");
    }
    b.Node("ConvTranspose", inputs, {"y"});
    c.attrs(b);
    b.Output("y", {1, 2, 7, 7});
    auto g = ImportOnnxModel(b.model());
    ASSERT_FALSE(g.ok()) << c.what;
    EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument) << c.what;
    EXPECT_THAT(g.status().message(), HasSubstr("node 'y' (ConvTranspose)")) << c.what;
    EXPECT_THAT(g.status().message(), HasSubstr(c.what));
  }
}

// Random byte flips of a valid model: every result is a model or an error.
TEST(ImportErrorsTest, CorruptedBytesNeverCrash) {
  const std::string good = testing::AttentionBlock().Bytes();
  std::mt19937_64 rng(42);
  int refused = 0;
  for (int i = 0; i < 300; ++i) {
    std::string bytes = good;
    int flips = 1 + static_cast<int>(rng() % 8);
    for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    auto g = ImportOnnxBytes(bytes, "corrupt.onnx");
    if (!g.ok()) {
      ++refused;
      continue;
    }
    auto m = BuildModel(*std::move(g), "corrupt");  // whatever imports must also partition
    (void)m;
  }
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace tuneforge::graph
