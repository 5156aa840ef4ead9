// Tuning curves: best GFLOPS against trials and against wall time for each
// workload and search policy, next to OpenBLAS and oneDNN measured in the
// same run. Each tuning is the real embedded path (`tuneforge tune` in a
// child process with a fresh database); its progress lines are the curve.
#pragma once

#include <string>
#include <vector>

namespace tuneforge::bench {

struct TuningOptions {
  std::string tuneforge_binary;  // build/bin/tuneforge
  std::string self;              // this binary, for the peers
  std::vector<std::string> policies = {"ansor", "random"};
  std::vector<std::string> workloads;  // names of TuningWorkloads(); empty: all
  int trials = 1000;
  int threads = 2;
  bool json = false;
  // Where each tuning's record store is kept (WORKLOAD-POLICY.db) for a look
  // at its schedules afterwards; empty: deleted with the tuning's folder.
  std::string keep_dbs;
};

// "matmul_1024", "matmul_128x3072x768", "conv2d_3x3_256_14", "conv2d_direct_3x3_256_14", ...
std::vector<std::string> TuningWorkloadNames();

int RunTuningCurves(const TuningOptions& options);

}  // namespace tuneforge::bench
