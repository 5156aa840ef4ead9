// Multi-dimensional buffer indices become one element offset, using each
// buffer's strides (dense, or padded by storage_align).
#pragma once

#include "common/lower/stmt.h"

namespace tuneforge::lower {

Stmt FlattenBuffers(const Stmt& body);

}  // namespace tuneforge::lower
