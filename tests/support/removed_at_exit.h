// Temp files and folders a test process made, removed when it exits, so
// that test runs leave nothing behind in the temp directory.
#pragma once

#include <string>

namespace tuneforge::test_support {

// Removes `path` (a file, or a folder with everything in it) at exit.
void RemoveAtExit(const std::string& path);

}  // namespace tuneforge::test_support
