// The row layout: one name per column, unique, generated from the table.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "search/features/feature_table.h"
#include "search/features/features.h"

namespace tuneforge::search {
namespace {

TEST(FeatureTableTest, NamesAreUniqueAndOnePerColumn) {
  const std::vector<std::string>& names = FeatureNames();
  EXPECT_EQ(NumFeatures(), static_cast<int>(names.size()));
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
  // 16 compute + 3 * 11 annotation + 7 gpu + 10 arithmetic intensity
  // + 4 allocation + 3 other = 73 store features, then 5 buffers * 18.
  EXPECT_EQ(features::kNumStoreFeatures, 73);
  EXPECT_EQ(features::kNumBufferFeatures, 18);
  EXPECT_EQ(NumFeatures(), 73 + 5 * 18);
}

TEST(FeatureTableTest, LayoutFollowsTheLists) {
  const std::vector<std::string>& names = FeatureNames();
  EXPECT_EQ(names[features::kF_float_mad], "float_mad");
  EXPECT_EQ(names[features::kF_vec_pos_none], "vec_pos_none");
  EXPECT_EQ(names[features::kF_arith_intensity_curve_9], "arith_intensity_curve_9");
  EXPECT_EQ(names[features::BufferOffset(0, features::kB_acc_type_read)], "B0.acc_type_read");
  EXPECT_EQ(names[features::BufferOffset(2, features::kB_bytes)], "B2.bytes");
  EXPECT_EQ(names.back(), "B4.stride");
}

TEST(FeatureTableTest, CountsAreLogScaledFlagsAreNot) {
  using features::Transform;
  EXPECT_EQ(features::TransformOf(features::kF_float_mad), Transform::kLog);
  EXPECT_EQ(features::TransformOf(features::kF_outer_prod), Transform::kLog);
  EXPECT_EQ(features::TransformOf(features::kF_num_loops), Transform::kRaw);
  EXPECT_EQ(features::TransformOf(features::kF_vec_pos_inner_spatial), Transform::kRaw);
  EXPECT_EQ(features::TransformOf(features::BufferOffset(3, features::kB_unique_lines)), Transform::kLog);
  EXPECT_EQ(features::TransformOf(features::BufferOffset(4, features::kB_acc_type_write)), Transform::kRaw);
}

// README.md documents every feature of the table (by its name in
// backquotes, buffer features without their slot prefix).
TEST(FeatureTableTest, ReadmeDocumentsEveryFeature) {
  std::ifstream in(std::string(TF_TEST_DATA_DIR) + "/../../search/features/README.md");
  ASSERT_TRUE(in.good()) << "search/features/README.md not found";
  std::stringstream text;
  text << in.rdbuf();
  for (const features::FeatureInfo& f : features::kStoreFeatureInfo)
    EXPECT_NE(text.str().find(std::string("`") + f.name + "`"), std::string::npos) << f.name;
  for (const features::FeatureInfo& f : features::kBufferFeatureInfo)
    EXPECT_NE(text.str().find(std::string("`") + f.name + "`"), std::string::npos) << f.name;
}

TEST(FeatureTableTest, SchemaVersionIsSet) { EXPECT_GE(kFeatureSchemaVersion, 1); }

}  // namespace
}  // namespace tuneforge::search
