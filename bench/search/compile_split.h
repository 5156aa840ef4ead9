// Where a candidate's compile time goes, and what LLVM's optimization level
// costs and buys: records of a tuning's store rebuilt one by one at each
// level asked for (codegen::CompileOptions::opt_level; workers build at 3),
// each build split into replay + lowering, building the LLVM module, LLVM's
// optimization pipeline and machine code (instruction selection, register
// allocation, object emission); with two levels or more, the store's fastest
// records are then built at each and timed alternately in one runner, so a
// level that builds faster is seen to build kernels as fast, or not.
#pragma once

#include <string>
#include <vector>

namespace tuneforge::bench {

struct CompileSplitOptions {
  std::string db_path;
  int records = 40;                // successful records rebuilt, spread over the store (0: all)
  std::vector<int> levels = {3};   // LLVM optimization levels (0-3), the first the baseline
  int timed = 4;                   // fastest distinct records timed at each level (with 2+ levels)
  int rounds = 3;                  // timings of each, alternating; the best counts
  int threads = 2;                 // parallel-loop threads of the timed kernels
  bool cache = false;              // one function cache per level across the records, as a builder keeps
  bool json = false;
};

// Prints tables, or one JSON object. Returns the exit status.
int RunCompileSplitBench(const CompileSplitOptions& options);

}  // namespace tuneforge::bench
