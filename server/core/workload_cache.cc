#include "server/core/workload_cache.h"

#include "absl/strings/str_cat.h"

namespace tuneforge::server {

std::string WorkloadLabel(const WorkloadSource& workload, const te::Workload& parsed) {
  if (workload.is_definition()) return absl::StrCat("def:", parsed.op);
  return parsed.spec;
}

absl::StatusOr<te::Workload> WorkloadCache::Get(const std::string& key, const WorkloadSource& workload) {
  {
    absl::MutexLock lock(&mu_);
    auto it = by_key_.find(key);
    if (it != by_key_.end()) return it->second;
  }
  absl::StatusOr<te::Workload> parsed = measure::ParseWorkloadSource(workload);
  if (!parsed.ok()) return parsed.status();
  if (parsed->dag->workload_key() != key)
    return absl::InvalidArgumentError(absl::StrCat("workload key ", key, " does not match the workload (",
                                                   parsed->dag->workload_key(), ")"));
  absl::MutexLock lock(&mu_);
  by_key_.emplace(key, *parsed);
  return *parsed;
}

}  // namespace tuneforge::server
