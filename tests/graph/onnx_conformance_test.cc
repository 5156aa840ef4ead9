// ONNX backend conformance: every node test case of Debian's
// libonnx-testdata whose ops the importer supports is imported, compiled,
// run on its stored inputs and compared with its stored outputs. A case the
// importer refuses as unsupported (Unimplemented) is counted, not failed;
// any other failure is a bug.
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "gtest/gtest.h"
#include "tests/graph/model_testing.h"

namespace tuneforge::graph {
namespace {

namespace fs = std::filesystem;

constexpr char kTestData[] = "/usr/share/libonnx-testdata/data";

struct Tally {
  int passed = 0, unsupported = 0;
  std::vector<std::string> failures, refusals;
};

Tally RunSuite(const std::string& suite) {
  Tally t;
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(fs::path(kTestData) / suite))
    if (fs::exists(e.path() / "model.onnx")) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  for (const fs::path& dir : cases) {
    CaseOutcome o = RunBackendCase(dir.string());
    if (o.kind == CaseOutcome::kPassed) ++t.passed;
    else if (o.kind == CaseOutcome::kUnsupported) {
      ++t.unsupported;
      t.refusals.push_back(dir.filename().string() + ": " + o.message);
    }
    else t.failures.push_back(dir.filename().string() + ": " + o.message);
  }
  std::cout << suite << ": " << t.passed << " passed, " << t.unsupported << " unsupported, "
            << t.failures.size() << " failed, of " << cases.size() << " cases\n";
  for (const std::string& f : t.failures) std::cout << "  FAILED " << f << "\n";
  // TF_LIST_UNSUPPORTED=1 lists why each refused case was refused.
  if (std::getenv("TF_LIST_UNSUPPORTED"))
    for (const std::string& r : t.refusals) std::cout << "  unsupported " << r << "\n";
  return t;
}

TEST(OnnxConformanceTest, NodeCasesWithSupportedOpsMatchTheirStoredOutputs) {
  if (!fs::exists(kTestData)) GTEST_SKIP() << "libonnx-testdata is not installed (deploy/setup.sh installs it)";
  Tally t = RunSuite("node");
  EXPECT_TRUE(t.failures.empty()) << t.failures.size() << " supported cases failed (listed above)";
  // What the importer covers today: a drop is a regression, not noise.
  EXPECT_GE(t.passed, 320);
}

TEST(OnnxConformanceTest, PytorchConvertedCasesWithSupportedOpsMatchTheirStoredOutputs) {
  if (!fs::exists(kTestData)) GTEST_SKIP() << "libonnx-testdata is not installed (deploy/setup.sh installs it)";
  Tally t = RunSuite("pytorch-converted");
  EXPECT_TRUE(t.failures.empty()) << t.failures.size() << " supported cases failed (listed above)";
  EXPECT_GE(t.passed, 75);
}

}  // namespace
}  // namespace tuneforge::graph
