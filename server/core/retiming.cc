#include "server/core/retiming.h"

#include <algorithm>

namespace tuneforge::server {

int RetimeTop(const JobSpec& spec) {
  if (spec.retime_top < 0) return 0;
  return spec.retime_top == 0 ? kDefaultRetimeTop : std::min(spec.retime_top, kMaxRetimeTop);
}

namespace {

absl::StatusOr<std::vector<Record>> FastestOfJob(RecordStore& store, const std::string& job_id,
                                                 const std::string& workload_key, int top) {
  RecordFilter filter;
  filter.job_id = job_id;
  filter.workload_key = workload_key;
  filter.only_ok = true;
  filter.fastest_first = true;
  filter.limit = top;
  return store.Query(filter);
}

}  // namespace

absl::StatusOr<std::vector<Record>> RecordsToRetime(RecordStore& store, const std::string& job_id,
                                                    const std::string& workload_key, int top,
                                                    const std::set<std::string>& already_issued) {
  if (top <= 0) return std::vector<Record>{};
  absl::StatusOr<std::vector<Record>> fastest = FastestOfJob(store, job_id, workload_key, top);
  if (!fastest.ok()) return fastest.status();
  std::vector<Record> once;
  for (Record& r : *fastest)
    if (r.timings <= 1 && !already_issued.contains(r.task_id)) once.push_back(std::move(r));
  return once;
}

absl::StatusOr<std::vector<Record>> RecordsToCompare(RecordStore& store, const std::string& job_id,
                                                     const std::string& workload_key, int top) {
  if (top < 2) return std::vector<Record>{};
  absl::StatusOr<std::vector<Record>> fastest = FastestOfJob(store, job_id, workload_key, top);
  if (!fastest.ok()) return fastest.status();
  if (fastest->size() < 2) return std::vector<Record>{};
  return fastest;
}

absl::StatusOr<std::vector<Record>> RecordsToCompareAgain(RecordStore& store, const std::string& job_id,
                                                          const std::string& workload_key,
                                                          const std::map<std::string, double>& median_before) {
  RecordFilter filter;
  filter.job_id = job_id;
  filter.workload_key = workload_key;
  filter.only_ok = true;
  filter.limit = 0;  // a busy comparison left its leaders anywhere in the order
  absl::StatusOr<std::vector<Record>> all = store.Query(filter);
  if (!all.ok()) return all.status();
  std::vector<Record> compared;
  for (Record& r : *all) {
    auto before = median_before.find(r.task_id);
    if (before == median_before.end()) continue;
    if (r.median_seconds < kBusyComparisonSlowdown * before->second) return std::vector<Record>{};  // a fair moment
    compared.push_back(std::move(r));
  }
  if (compared.size() < 2) return std::vector<Record>{};
  // In the first comparison's order: its fastest by their medians before.
  std::sort(compared.begin(), compared.end(), [&](const Record& a, const Record& b) {
    return std::pair(median_before.at(a.task_id), a.task_id) < std::pair(median_before.at(b.task_id), b.task_id);
  });
  return compared;
}

}  // namespace tuneforge::server
