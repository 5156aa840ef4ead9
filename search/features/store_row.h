// The writers of one store's row, one per group of feature_table.h. Each
// writes raw values (before the log transform) into its own columns of a
// zeroed row of kRowWidth doubles.
#pragma once

#include <vector>

#include "search/features/access_pattern.h"
#include "search/features/op_counter.h"
#include "search/features/program_walk.h"

namespace tuneforge::search::features {

struct StoreInput {
  const ProgramWalk& walk;
  const std::vector<StoreAccesses>& accesses;  // per store of the walk
  int store = 0;

  const StoreSite& site() const { return walk.stores[store]; }
  const StoreAccesses& access() const { return accesses[store]; }
};

// compute group: the op counts times outer_prod.
void WriteComputeFeatures(const StoreInput& in, const OpCounts& ops, double* row);
// annotation, gpu, allocation and other groups (auto_unroll_max_step
// excepted: it comes from the State).
void WriteLoopFeatures(const StoreInput& in, double* row);
// arith_intensity group.
void WriteArithmeticIntensity(const StoreInput& in, const OpCounts& ops, double* row);
// The kMaxBuffers buffer blocks.
void WriteBufferFeatures(const StoreInput& in, double* row);

}  // namespace tuneforge::search::features
