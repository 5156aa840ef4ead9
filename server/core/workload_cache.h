// Parsed workloads by key: the dispatcher needs a workload's DAG to turn a
// time into GFLOPS and to build kernels for runner-only workers; tasks
// carry only the workload's text.
#pragma once

#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/te/workload.h"
#include "server/domain/workload_source.h"

namespace tuneforge::server {

// "matmul:K=64,M=64,N=64" or "def:<name>": the text records show.
std::string WorkloadLabel(const WorkloadSource& workload, const te::Workload& parsed);

class WorkloadCache {
 public:
  // Parses on first use; later calls with the same key are free.
  absl::StatusOr<te::Workload> Get(const std::string& key, const WorkloadSource& workload);

 private:
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, te::Workload> by_key_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tuneforge::server
