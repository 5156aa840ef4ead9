#include "client/unfinished_job.h"

#include "common/te/workload.h"

namespace tuneforge::cli {
namespace {

// The job's one workload's key ("" when it has several or none parses).
std::string WorkloadKeyOf(const v1::JobSpec& spec) {
  if (spec.workloads_size() != 1) return "";
  const v1::Workload& w = spec.workloads(0);
  absl::StatusOr<te::Workload> parsed =
      w.has_definition() ? te::ParseDefinition(w.definition(), w.name().empty() ? "def" : w.name())
      : w.has_spec()     ? te::ParseWorkload(w.spec())
                         : absl::InvalidArgumentError("no workload");
  return parsed.ok() ? parsed->dag->workload_key() : "";
}

}  // namespace

absl::StatusOr<std::optional<v1::Job>> FindUnfinishedJob(client::JobsClient& jobs, const std::string& workload_key,
                                                         const std::string& device_key) {
  std::optional<v1::Job> newest;
  for (v1::JobState state : {v1::JOB_STATE_QUEUED, v1::JOB_STATE_RUNNING}) {
    absl::StatusOr<std::vector<v1::Job>> list = jobs.List(state, 0);
    if (!list.ok()) return list.status();
    for (v1::Job& job : *list) {
      if (job.spec().device_key() != device_key || WorkloadKeyOf(job.spec()) != workload_key) continue;
      if (!newest || job.created_unix_ms() > newest->created_unix_ms()) newest = std::move(job);
    }
  }
  return newest;
}

}  // namespace tuneforge::cli
