#include "bench/search/time_split.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_format.h"
#include "bench/timing.h"
#include "server/record_store/record_store.h"

namespace tuneforge::bench {

std::optional<TimeSplit> SplitTuningTime(const nlohmann::ordered_json& result, const std::string& db_path,
                                         int build_threads) {
  if (!result.is_object() || !result.contains("search") || !result.contains("measure")) return std::nullopt;
  const double trials = std::max(1, result.value("trials", 0));
  TimeSplit split;
  split.wall_s = result.value("wall_s", 0.0) / trials;
  split.propose_s = result["search"].value("propose_s", 0.0) / trials;
  split.learn_s = result["search"].value("learn_s", 0.0) / trials;
  split.compile_s = result["measure"].value("compile_s", 0.0) / std::max(1, build_threads) / trials;
  split.run_s = result["measure"].value("run_s", 0.0) / trials;
  split.retime_s = result["measure"].value("retime_s", 0.0) / trials;
  split.other_s = split.wall_s - split.propose_s - split.learn_s - split.compile_s - split.run_s - split.retime_s;

  absl::StatusOr<std::unique_ptr<server::RecordStore>> store = server::RecordStore::Open(db_path);
  if (!store.ok()) return std::nullopt;
  server::RecordFilter all;
  all.limit = 0;  // every record
  absl::StatusOr<std::vector<server::Record>> records = (*store)->Query(all);
  if (!records.ok()) return std::nullopt;
  std::vector<double> compile_ms;
  for (const server::Record& r : *records) compile_ms.push_back(r.compile_ms);
  split.compile_p50_ms = Quantile(compile_ms, 0.5);
  split.compile_p99_ms = Quantile(compile_ms, 0.99);
  return split;
}

std::string TimeSplitLine(const TimeSplit& s) {
  return absl::StrFormat(
      "%.3f s/trial: propose %.3f, learn %.3f, compile %.3f (p50 %.0f ms, p99 %.0f ms), run %.3f, re-time %.3f, "
      "other %.3f",
      s.wall_s, s.propose_s, s.learn_s, s.compile_s, s.compile_p50_ms, s.compile_p99_ms, s.run_s, s.retime_s,
      s.other_s);
}

}  // namespace tuneforge::bench
