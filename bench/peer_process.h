// Peers (OpenBLAS, oneDNN) are timed in a fresh child process each: their
// thread pools spin after a call and would steal cores from whatever runs
// next, and OpenBLAS reads OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE when it is
// loaded, which this machine's environment sets to pin it to AVX2 kernels.
// The child is this benchmark binary re-run as `--peer NAME ARGS...` with
// those variables removed, so every peer runs at its best.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tuneforge::bench {

// Runs `self --peer <args>` and parses "seconds=<s> note=<text>" from its
// output; nullopt (with a message on stderr) when the child fails.
struct PeerResult {
  double seconds = 0;
  std::string note;  // e.g. the OpenBLAS core type
};
std::optional<PeerResult> RunPeer(const std::string& self, const std::vector<std::string>& args);

// The child side: handles `--peer ...` and returns the process exit code.
int PeerMain(const std::vector<std::string>& args);

}  // namespace tuneforge::bench
