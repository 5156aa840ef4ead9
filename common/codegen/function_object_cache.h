// Machine code of single kernel functions, by a digest of the function's
// unoptimized IR (and the target and optimization level it was built for).
// Each parallel stage of a kernel is a function of its own
// (llvm/parallel_outline.cc), the packing of constants another, and an
// evolutionary search changes one stage of a program at a time: over a
// 1,000-trial Winograd tuning 73 % of the IR compiled was a function compiled
// before, unchanged. A builder keeps one cache for its life and passes it in
// CompileOptions; CompileToObject then optimizes and compiles only the
// functions it has not seen (llvm/function_parts.cc).
//
// Thread-safe. Bounded by bytes: the oldest entries go first.
//
// Builders are processes of their own (a crash kills one candidate, not the
// worker) and a worker runs one per core, each handed whichever candidate
// comes next: apart, each cache saw half of a tuning's functions. Shared
// through a folder (ShareThrough), a function one builder compiled is a file
// the others read; each process deletes its own oldest files past the bound.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"

namespace tuneforge::codegen {

class FunctionObjectCache {
 public:
  static constexpr size_t kDefaultMaxBytes = size_t{64} << 20;
  explicit FunctionObjectCache(size_t max_bytes = kDefaultMaxBytes) : max_bytes_(max_bytes) {}

  // The object compiled for `digest` (counted as a hit), or nullopt (a miss).
  std::optional<std::string> Find(const std::string& digest);
  // Keeps `object` for `digest`, dropping the oldest entries to stay within
  // the bound; an object larger than the whole bound is not kept.
  void Add(const std::string& digest, std::string object);

  // Finds also look in `dir`, and Add writes there; empty: memory only.
  // A builder calls it with each request's folder (the same one for the
  // pool's life), so a changed folder drops the files it tracked.
  void ShareThrough(const std::string& dir);

  int64_t hits() const;
  int64_t misses() const;
  size_t bytes() const;
  size_t entries() const;

 private:
  // Into memory, dropping the oldest entries to stay within the bound.
  void KeepLocked(const std::string& digest, std::string object);

  mutable std::mutex mu_;
  const size_t max_bytes_;
  size_t bytes_ = 0;
  absl::flat_hash_map<std::string, std::string> objects_;
  std::deque<std::string> order_;  // digests, oldest first
  std::string dir_;                 // shared folder; empty: none
  size_t written_bytes_ = 0;        // of the files this process wrote there
  std::deque<std::pair<std::string, size_t>> written_;  // path, bytes; oldest first
  int64_t hits_ = 0, misses_ = 0;
};

}  // namespace tuneforge::codegen
