// Properties every row of every program has: finite values, exactly one
// position flag per annotation, exactly one access type and one reuse type
// per used buffer slot, no flags in unused slots.
#include <gtest/gtest.h>

#include <cmath>

#include "absl/strings/str_cat.h"
#include "search/features/feature_table.h"
#include "tests/search/features/feature_test_util.h"

namespace tuneforge::search::testing {
namespace {

using schedule::SplitStep;

void CheckRows(const std::string& label, const ProgramFeatures& f) {
  ASSERT_EQ(f.num_features, NumFeatures());
  ASSERT_EQ(f.values.size(), static_cast<size_t>(f.num_stores) * f.num_features);
  ASSERT_EQ(f.store_stage.size(), static_cast<size_t>(f.num_stores));
  for (int r = 0; r < f.num_stores; ++r) {
    const float* row = f.row(r);
    for (int c = 0; c < f.num_features; ++c)
      ASSERT_TRUE(std::isfinite(row[c]) && row[c] >= 0) << label << " row " << r << " " << FeatureNames()[c];
    for (int base : {features::kF_vec_pos_inner_spatial, features::kF_unroll_pos_inner_spatial,
                     features::kF_parallel_pos_inner_spatial}) {
      float flags = 0;
      for (int k = 0; k < features::kNumPositions; ++k) flags += row[base + k];
      EXPECT_EQ(flags, 1) << label << " row " << r << " " << FeatureNames()[base];
    }
    for (int slot = 0; slot < features::kMaxBuffers; ++slot) {
      auto at = [&](features::BufferFeature b) { return row[features::BufferOffset(slot, b)]; };
      const bool used = at(features::kB_bytes) > 0;
      float acc = at(features::kB_acc_type_read) + at(features::kB_acc_type_write) +
                  at(features::kB_acc_type_read_write);
      float reuse = at(features::kB_reuse_type_loop_multiple_read) +
                    at(features::kB_reuse_type_serial_multiple_read_write) +
                    at(features::kB_reuse_type_no_reuse);
      EXPECT_EQ(acc, used ? 1 : 0) << label << " row " << r << " slot " << slot;
      EXPECT_EQ(reuse, used ? 1 : 0) << label << " row " << r << " slot " << slot;
    }
    // Every store writes a buffer: slot 0 is used.
    EXPECT_GT(row[features::BufferOffset(0, features::kB_bytes)], 0) << label << " row " << r;
  }
}

TEST(InvariantsTest, ManyOperators) {
  for (const char* spec : {"conv2d:N=1,C=3,H=8,W=8,K=4,R=3,S=3,pad=1", "softmax:M=4,N=8",
                           "layer_norm:M=4,N=8", "max_pool2d:N=1,C=2,H=8,W=8,R=2,S=2,stride=2",
                           "avg_pool2d:N=1,C=2,H=8,W=8,R=3,S=3,pad=1", "norm:M=4,N=8",
                           "batch_matmul:B=2,M=4,N=8,K=16", "relu:N=2,C=3"}) {
    schedule::State s = MakeState(spec);
    ProgramFeatures f = Features(s);
    EXPECT_GT(f.num_stores, 0) << spec;
    CheckRows(spec, f);
    for (int stage : f.store_stage) EXPECT_GE(stage, 0) << spec;
  }
}

// Non-divisible splits leave guards; the guard conditions are counted.
TEST(InvariantsTest, GuardedNonDivisibleSplit) {
  schedule::State s = MakeState("matmul:M=12,N=20,K=7", {SplitStep{2, 0, {5}, true}, SplitStep{2, 3, {3}, true}});
  ProgramFeatures f = Features(s);
  CheckRows("guarded matmul", f);
  int update = RowOfStage(f, s, "C");
  ASSERT_GE(update, 0) << Program(s);
  EXPECT_GT(Value(f, update, "int_cmp"), 0) << Program(s);
}

}  // namespace
}  // namespace tuneforge::search::testing
