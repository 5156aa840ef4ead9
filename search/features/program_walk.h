// One pass over a lowered program collecting what the features need: every
// loop, every Store with the chain of loops and guards around it, every
// Allocate and every LetStmt binding. Pointers point into the program,
// which must outlive the walk.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "common/lower/stmt.h"

namespace tuneforge::search::features {

struct Loop {
  const te::VarNode* var = nullptr;
  int64_t extent = 1;
  lower::ForKind kind = lower::ForKind::kSerial;
  int depth = 0;        // enclosing loops
  int first_store = 0;  // the stores inside are [first_store, end_store) (DFS order)
  int end_store = 0;
};

struct Allocation {
  const te::BufferNode* buffer = nullptr;
  int64_t outer_prod = 1;  // product of the extents of the loops around the Allocate
  int depth = 0;           // number of those loops
};

struct StoreSite {
  const lower::Store* store = nullptr;
  std::vector<int> loops;                 // indices into ProgramWalk::loops, outermost first
  std::vector<const te::Expr*> guards;    // conditions of the IfThenElse around it
  int64_t outer_prod = 1;                 // product of the loops' extents
};

struct ProgramWalk {
  std::vector<Loop> loops;       // in pre-order: a loop's ancestors come first
  std::vector<StoreSite> stores; // in program (DFS) order
  absl::flat_hash_map<const te::BufferNode*, Allocation> allocations;
  absl::flat_hash_map<const te::VarNode*, te::Expr> lets;  // LetStmt var -> value
};

ProgramWalk WalkProgram(const lower::Stmt& body);

}  // namespace tuneforge::search::features
