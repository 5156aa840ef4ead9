#include "common/lower/passes/roll_loops.h"

#include "common/lower/stmt_functor.h"

namespace tuneforge::lower {

Stmt RollLoops(const Stmt& body) {
  if (!body) return body;
  Stmt out = MapStmtChildren(body, [](const Stmt& child) { return RollLoops(child); });
  const For* loop = out.as<For>();
  if (!loop || loop->kind != ForKind::kUnrolled) return out;
  return MakeFor(loop->var, loop->extent, ForKind::kSerial, loop->body);
}

}  // namespace tuneforge::lower
