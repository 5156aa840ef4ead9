// deploy/bundle.sh of this checkout as the bundle tests run it.
#pragma once

#include <string>

namespace tuneforge::client_test {

// This machine's architecture as uname names it ("x86_64", "aarch64").
std::string HostArch();
// The binaries' build folder: the parent of TF_BIN_DIR.
std::string BuildDir();
// Runs deploy/bundle.sh --arch ARCH --out OUT --build-dir BUILD_DIR; its
// exit code, and its output in `log`.
int Bundle(const std::string& arch, const std::string& out, const std::string& log,
           const std::string& build_dir = BuildDir());
std::string ReadAll(const std::string& path);

}  // namespace tuneforge::client_test
