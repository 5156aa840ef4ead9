// The runner's per-workload arguments: inputs filled from the seed, the
// reference outputs (computed once), and the buffers candidates write.
// Kept for the few most recent workloads so that alternating workloads do
// not recompute slow unscheduled references.
#pragma once

#include <cstdint>
#include <list>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/te/ndarray.h"
#include "measure/kernel_args.h"

namespace tuneforge::measure {

struct WorkloadBuffers {
  std::string key;
  uint64_t seed = 0;
  std::vector<ArgSpec> specs;
  std::vector<te::NDArray> inputs;
  std::vector<uint64_t> input_hashes;  // to catch kernels writing inputs
  std::vector<te::NDArray> reference_outputs;
  std::vector<te::NDArray> outputs;  // what candidates write
  bool reference_ready = false;

  // Kernel argument arrays: inputs, then reference / candidate outputs.
  std::vector<void*> ReferenceArgs();
  std::vector<void*> CandidateArgs();
  // Fills candidate outputs with values no correct kernel leaves behind
  // (NaN, 0x5a bytes), so a kernel that skips elements cannot pass on what
  // an earlier kernel wrote.
  void PoisonOutputs();
  // Name of the first input whose contents changed, or empty.
  std::string ChangedInput() const;
};

class WorkloadCache {
 public:
  explicit WorkloadCache(size_t capacity = 4) : capacity_(capacity) {}
  // The buffers for (key, seed, specs), allocating them if not cached.
  // Errors (ResourceExhausted): the arguments do not fit in memory.
  absl::StatusOr<WorkloadBuffers*> Get(const std::string& key, uint64_t seed,
                                       const std::vector<ArgSpec>& specs);
  void Drop(const std::string& key);

 private:
  size_t capacity_;
  std::list<WorkloadBuffers> entries_;  // most recently used first
};

}  // namespace tuneforge::measure
