// Removes the statements `acc[i] = acc[i] + 0 * w` (and `acc[i] + 0`) that a
// padded tap becomes once PartitionBoundaries has decided its test. Exact
// for finite `w`; like every convolution library, the kernel does not
// multiply a weight by the padding.
#pragma once

#include "common/lower/stmt.h"

namespace tuneforge::lower {

Stmt DropPaddedTaps(const Stmt& body);

}  // namespace tuneforge::lower
