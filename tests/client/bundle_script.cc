#include "tests/client/bundle_script.h"

#include <sys/utsname.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"

namespace tuneforge::client_test {

std::string HostArch() {
  utsname u{};
  uname(&u);
  return u.machine;
}

std::string BuildDir() {
  const std::string bin = std::getenv("TF_BIN_DIR") ? std::getenv("TF_BIN_DIR") : "build/bin";
  return bin + "/..";
}

int Bundle(const std::string& arch, const std::string& out, const std::string& log, const std::string& build_dir) {
  const std::string script = std::string(TF_TEST_DATA_DIR) + "/../../deploy/bundle.sh";
  const std::string cmd = absl::StrCat(script, " --arch ", arch, " --out ", out, " --build-dir ", build_dir, " > ",
                                       log, " 2>&1");
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace tuneforge::client_test
