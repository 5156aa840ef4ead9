// Candidates this worker built, kept for their re-timing. The server re-times
// a job's leaders in a later round (server/core/retiming.h): the same
// program, timed again in a new session. Its code is the same too, so the
// worker times the kernel it built before instead of compiling it again (a
// conv leader's compile is 0.3-1 s, as long as its timing). Bounded by the
// objects' bytes, oldest out first; a kernel no longer here is rebuilt.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "common/schedule/state.h"
#include "measure/builder.h"

namespace tuneforge::worker {

class BuiltKernelCache {
 public:
  explicit BuiltKernelCache(size_t max_bytes) : max_bytes_(max_bytes) {}

  // The key of a candidate: its workload and its steps (one worker builds
  // for one target).
  static std::string KeyOf(const std::string& workload_key, const std::vector<schedule::Step>& steps);

  // Null when not kept.
  std::shared_ptr<const measure::BuiltKernel> Find(const std::string& key) const;
  // Keeps a kernel that built; a failed one, or one larger than the whole
  // bound, is not kept.
  void Add(const std::string& key, measure::BuiltKernel kernel);

  size_t bytes() const { return bytes_; }
  size_t size() const { return kernels_.size(); }

 private:
  static size_t BytesOf(const measure::BuiltKernel& kernel);

  size_t max_bytes_;
  size_t bytes_ = 0;
  absl::flat_hash_map<std::string, std::shared_ptr<const measure::BuiltKernel>> kernels_;
  std::deque<std::string> order_;  // oldest first
};

}  // namespace tuneforge::worker
