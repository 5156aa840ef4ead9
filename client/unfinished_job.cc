#include "client/unfinished_job.h"

#include <algorithm>

#include "common/te/workload.h"

namespace tuneforge::cli {
namespace {

// The keys of the job's workloads, sorted; empty when one does not parse.
std::vector<std::string> WorkloadKeysOf(const v1::JobSpec& spec) {
  std::vector<std::string> keys;
  for (const v1::Workload& w : spec.workloads()) {
    absl::StatusOr<te::Workload> parsed =
        w.has_definition() ? te::ParseDefinition(w.definition(), w.name().empty() ? "def" : w.name())
        : w.has_spec()     ? te::ParseWorkload(w.spec())
                           : absl::InvalidArgumentError("no workload");
    if (!parsed.ok()) return {};
    keys.push_back(parsed->dag->workload_key());
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace

absl::StatusOr<std::optional<v1::Job>> FindUnfinishedJob(client::JobsClient& jobs,
                                                         std::vector<std::string> workload_keys,
                                                         const std::string& device_key) {
  std::sort(workload_keys.begin(), workload_keys.end());
  std::optional<v1::Job> newest;
  for (v1::JobState state : {v1::JOB_STATE_QUEUED, v1::JOB_STATE_RUNNING}) {
    absl::StatusOr<std::vector<v1::Job>> list = jobs.List(state, 0);
    if (!list.ok()) return list.status();
    for (v1::Job& job : *list) {
      if (job.spec().device_key() != device_key || job.spec().workloads_size() != static_cast<int>(workload_keys.size()) ||
          WorkloadKeysOf(job.spec()) != workload_keys)
        continue;
      if (!newest || job.created_unix_ms() > newest->created_unix_ms()) newest = std::move(job);
    }
  }
  return newest;
}

}  // namespace tuneforge::cli
