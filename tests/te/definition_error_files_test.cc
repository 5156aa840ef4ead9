// Runs every bad definition in tests/errors/definitions: each file's first
// line is "# error: <text>", and loading the file must fail with a message
// containing that text.
#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "common/te/workload.h"

namespace tuneforge::te {
namespace {

TEST(DefinitionErrorFilesTest, EachFileFailsWithItsMessage) {
  std::filesystem::path dir = std::filesystem::path(TF_TEST_DATA_DIR) / ".." / "errors" / "definitions";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".def") continue;
    ++count;
    std::ifstream in(entry.path());
    std::string first;
    std::getline(in, first);
    const std::string marker = "# error: ";
    ASSERT_EQ(first.rfind(marker, 0), 0u) << entry.path() << " must start with '" << marker << "'";
    std::string expected = first.substr(marker.size());
    absl::StatusOr<Workload> w = LoadDefinitionFile(entry.path().string());
    ASSERT_FALSE(w.ok()) << entry.path() << " loaded, but should fail with: " << expected;
    EXPECT_THAT(std::string(w.status().message()), ::testing::HasSubstr(expected)) << entry.path();
    // Errors start with the file's path so a user knows which file is wrong.
    EXPECT_THAT(std::string(w.status().message()), ::testing::StartsWith(entry.path().string()));
  }
  EXPECT_GE(count, 15);
}

}  // namespace
}  // namespace tuneforge::te
