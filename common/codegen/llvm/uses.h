// The variables and buffers a statement refers to, in order of first use:
// what a parallel task must capture, and which buffers need alias scopes.
#pragma once

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "common/lower/stmt.h"

namespace tuneforge::codegen {

struct Uses {
  std::vector<const te::VarNode*> vars;  // every VarRef, bound inside or not
  std::vector<te::Buffer> buffers;       // every buffer loaded or stored
};

Uses CollectUses(const lower::Stmt& s);

}  // namespace tuneforge::codegen
