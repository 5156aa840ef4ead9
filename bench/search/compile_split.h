// Where a candidate's compile time goes: records of a tuning's store rebuilt
// one by one, each build split into replay + lowering, building the LLVM
// module, LLVM's optimization pipeline and machine code (instruction
// selection, register allocation, object emission). The p50 / p90 / max per
// phase say which part to cut for the throughput targets.
#pragma once

#include <string>

namespace tuneforge::bench {

// `records`: how many successful records to rebuild, spread evenly over the
// store's order (0: all). Prints a table, or one JSON object.
int RunCompileSplitBench(const std::string& db_path, int records, bool json);

}  // namespace tuneforge::bench
