// The features of a Winograd program read its inlined transform matrices as
// constants: unrolled, each entry is one constant multiply in the kernel,
// so the rows count no selects and no comparisons for them, and lowering
// for features no longer carries each matrix's select chain through every
// pass (about 45 % of a Winograd search round's feature time).
#include <gtest/gtest.h>

#include "common/lower/lower.h"
#include "common/lower/stmt_functor.h"
#include "common/te/expr_util.h"
#include "search/features/features.h"
#include "tests/search/features/feature_test_util.h"

namespace tuneforge::search {
namespace {

using testing::MakeState;
using testing::RowOfStage;
using testing::Value;

// A small Winograd conv with its constant matrices inlined, as the sketch
// rules leave them.
schedule::State WinogradWithInlinedMatrices() {
  schedule::State s = MakeState("conv2d_winograd:N=1,C=4,H=6,W=6,K=4,pad=1,tile=2");
  for (int i = 0; i < s.num_stages(); ++i) {
    if (!s.dag()->analysis(i).is_constant_matrix) continue;
    const bool inlined = s.Apply(schedule::ComputeInlineStep{i}).ok();
    EXPECT_TRUE(inlined) << "stage " << i;
  }
  return s;
}

int Selects(const lower::LoweredFunc& f) {
  int n = 0;
  lower::VisitExprs(f.body, [&](const te::Expr& e) {
    te::PostOrderVisit(e, [&](const te::Expr& x) { n += x.as<te::Select>() ? 1 : 0; });
  });
  return n;
}

TEST(ConstantMatrixFeaturesTest, TheFeaturesProgramReadsTheMatricesAsConstants) {
  schedule::State s = WinogradWithInlinedMatrices();
  lower::LowerOptions with_chains = FeatureLowerOptions();
  with_chains.constant_matrices_as_one = false;
  absl::StatusOr<lower::LoweredFunc> chained = lower::Lower(s, with_chains);
  absl::StatusOr<lower::LoweredFunc> features = lower::Lower(s, FeatureLowerOptions());
  ASSERT_TRUE(chained.ok()) << chained.status();
  ASSERT_TRUE(features.ok()) << features.status();
  // The padding's select stays; the matrices' chains (one select per
  // non-zero entry, in every transform statement) are gone.
  EXPECT_GT(Selects(*chained), 30);
  EXPECT_LE(Selects(*features), 2);

  ProgramFeatures f = testing::Features(s);
  const int data_pack = RowOfStage(f, s, "data_pack");
  ASSERT_GE(data_pack, 0);
  EXPECT_EQ(Value(f, data_pack, "select_op"), 0);
  EXPECT_EQ(Value(f, data_pack, "float_cmp"), 0);
  // Each term is the tile entry times 1 (folded): the sum's additions remain.
  EXPECT_GT(Value(f, data_pack, "float_addsub") + Value(f, data_pack, "float_mad"), 0);
}

}  // namespace
}  // namespace tuneforge::search
