#include "tests/support/removed_at_exit.h"

#include <filesystem>
#include <mutex>
#include <vector>

namespace tuneforge::test_support {
namespace {

struct PathsRemovedAtExit {
  std::mutex mu;
  std::vector<std::string> paths;
  ~PathsRemovedAtExit() {
    std::error_code ignored;
    for (const std::string& p : paths) std::filesystem::remove_all(p, ignored);
  }
};

}  // namespace

void RemoveAtExit(const std::string& path) {
  static PathsRemovedAtExit made;
  std::lock_guard<std::mutex> lock(made.mu);
  made.paths.push_back(path);
}

}  // namespace tuneforge::test_support
