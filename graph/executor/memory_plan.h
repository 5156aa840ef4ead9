// The executor's static memory plan: every intermediate value gets an offset
// in one arena, fixed before the first run; values whose lifetimes do not
// overlap share bytes. Reshapes alias their input's storage; constants and
// the model's inputs are read where they are.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/ir/graph.h"
#include "graph/partition/fuse.h"

namespace tuneforge::graph {

struct Storage {
  enum class Kind { kArena, kInput, kConstant };
  Kind kind = Kind::kArena;
  int64_t offset = 0;  // kArena: bytes into the arena
  int input = -1;      // kInput: index into the graph's inputs
};

struct MemoryPlan {
  std::vector<Storage> storage;  // per value (unused values: kArena at 0)
  std::vector<ValueId> root;     // per value: itself, or what a reshape chain reads
  int64_t arena_bytes = 0;
  int64_t naive_bytes = 0;  // what one buffer per value would take, for reports
};

MemoryPlan PlanMemory(const Graph& graph, const std::vector<Group>& groups);

// Every offset in the arena (and the arena itself, and an exported model's
// constants) is a multiple of this: a cache line, and any vector load.
inline constexpr int64_t kTensorAlignment = 64;
inline int64_t AlignToTensor(int64_t bytes) {
  return (bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
}

}  // namespace tuneforge::graph
