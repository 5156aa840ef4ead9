// Where a tuning's wall time went, per trial: the server's search (propose,
// learn), the worker's builds and runs, re-timing the best programs, and the
// rest (dispatch, waiting between rounds); and the spread of compile times.
// Read from the tuning's JSON result (`tune --json`: wall_s, search,
// measure) and its record store (each record's compile_ms).
#pragma once

#include <optional>
#include <string>

#include "nlohmann/json.hpp"

namespace tuneforge::bench {

// Seconds per trial, except the compile percentiles (per candidate).
struct TimeSplit {
  double wall_s = 0;
  double propose_s = 0;
  double learn_s = 0;
  double compile_s = 0;  // build times summed, over the worker's parallel builds (its cores)
  double run_s = 0;
  double retime_s = 0;
  double other_s = 0;    // wall minus all of the above
  double compile_p50_ms = 0;
  double compile_p99_ms = 0;
};

// nullopt when the result is not a tuning's JSON or the store cannot be read.
std::optional<TimeSplit> SplitTuningTime(const nlohmann::ordered_json& result, const std::string& db_path,
                                         int build_threads);

// "0.69 s/trial: propose 0.05, learn 0.01, compile 0.05 (p50 61 ms, p99 887 ms), run 0.41, re-time 0.05, other 0.12"
std::string TimeSplitLine(const TimeSplit& split);

}  // namespace tuneforge::bench
