#include "worker/agent/workload_cache.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tuneforge::worker {
namespace {

absl::StatusOr<te::Workload> Parse(const v1::Workload& workload) {
  switch (workload.source_case()) {
    case v1::Workload::kSpec:
      if (absl::StartsWith(workload.spec(), "def:"))
        return absl::InvalidArgumentError(absl::StrCat(
            "workload spec '", workload.spec(),
            "' names a definition file, which a worker does not read; send the definition's "
            "text in Workload.definition"));
      return te::ParseWorkload(workload.spec());
    case v1::Workload::kDefinition:
      return te::ParseDefinition(workload.definition(),
                                 workload.name().empty() ? "def" : workload.name());
    case v1::Workload::SOURCE_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(
      "the task's workload has neither a spec nor a definition; set Workload.spec or "
      "Workload.definition");
}

}  // namespace

absl::StatusOr<std::shared_ptr<const te::Workload>> WorkloadCache::Get(
    const v1::Workload& workload) {
  const std::string key =
      workload.source_case() == v1::Workload::kDefinition
          ? absl::StrCat("definition:", workload.name(), "\n", workload.definition())
          : absl::StrCat("spec:", workload.spec());
  if (auto it = parsed_.find(key); it != parsed_.end()) return it->second;
  absl::StatusOr<te::Workload> parsed = Parse(workload);
  if (!parsed.ok()) return parsed.status();
  if (parsed_.size() >= kMaxEntries) parsed_.clear();
  auto shared = std::make_shared<const te::Workload>(*std::move(parsed));
  parsed_.emplace(key, shared);
  return shared;
}

}  // namespace tuneforge::worker
