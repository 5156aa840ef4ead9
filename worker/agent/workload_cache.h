// The workloads of measure tasks, parsed once: a lease usually carries many
// candidates of the same workload, and later leases repeat it.
#pragma once

#include <memory>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "common/te/workload.h"
#include "proto/tuneforge.pb.h"

namespace tuneforge::worker {

namespace v1 = ::tuneforge::v1;

class WorkloadCache {
 public:
  // A spec with te::ParseWorkload, a definition text with te::ParseDefinition.
  // Errors: neither set, a spec naming a file ("def:PATH": the server sends
  // definitions as text, and a worker reads no files for it), parse errors.
  absl::StatusOr<std::shared_ptr<const te::Workload>> Get(const v1::Workload& workload);

 private:
  // Plenty for the workloads of the jobs running at once; cleared when full.
  static constexpr size_t kMaxEntries = 256;
  absl::flat_hash_map<std::string, std::shared_ptr<const te::Workload>> parsed_;
};

}  // namespace tuneforge::worker
