#include "server/core/workload_cache.h"

#include "absl/strings/str_cat.h"

namespace tuneforge::server {

absl::StatusOr<te::Workload> ParseWorkloadProto(const v1::Workload& workload) {
  switch (workload.source_case()) {
    case v1::Workload::kSpec:
      return te::ParseWorkload(workload.spec());
    case v1::Workload::kDefinition:
      return te::ParseDefinition(workload.definition(), workload.name().empty() ? "def" : workload.name());
    case v1::Workload::SOURCE_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError("workload: give a spec or a definition");
}

std::string WorkloadLabel(const v1::Workload& workload, const te::Workload& parsed) {
  if (workload.has_definition()) return absl::StrCat("def:", parsed.op);
  return parsed.spec;
}

absl::StatusOr<te::Workload> WorkloadCache::Get(const std::string& key, const v1::Workload& workload) {
  {
    absl::MutexLock lock(&mu_);
    auto it = by_key_.find(key);
    if (it != by_key_.end()) return it->second;
  }
  absl::StatusOr<te::Workload> parsed = ParseWorkloadProto(workload);
  if (!parsed.ok()) return parsed.status();
  if (parsed->dag->workload_key() != key)
    return absl::InvalidArgumentError(absl::StrCat("workload key ", key, " does not match the workload (",
                                                   parsed->dag->workload_key(), ")"));
  absl::MutexLock lock(&mu_);
  by_key_.emplace(key, *parsed);
  return *parsed;
}

}  // namespace tuneforge::server
