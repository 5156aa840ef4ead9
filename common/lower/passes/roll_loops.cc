#include "common/lower/passes/roll_loops.h"

#include "common/lower/stmt_functor.h"

namespace tuneforge::lower {
namespace {

Stmt Roll(const Stmt& body, ForKind serial_kind) {
  if (!body) return body;
  Stmt out = MapStmtChildren(body, [serial_kind](const Stmt& child) { return Roll(child, serial_kind); });
  const For* loop = out.as<For>();
  if (!loop || (loop->kind != ForKind::kUnrolled && loop->kind != ForKind::kSerial) || loop->kind == serial_kind)
    return out;
  return MakeFor(loop->var, loop->extent, serial_kind, loop->body);
}

// Arithmetic on values: a float operation or a math function. Index and
// comparison arithmetic (integers and booleans) is not.
bool ComputesValues(const Expr& value) {
  bool computes = false;
  te::PostOrderVisit(value, [&computes](const Expr& e) {
    if ((e.as<te::Binary>() || e.as<te::Call>()) && e.dtype().is_float()) computes = true;
  });
  return computes;
}

}  // namespace

bool OnlyCopies(const Stmt& nest) {
  bool only_copies = true;
  VisitStmts(nest, [&only_copies](const Stmt& s) {
    if (const Store* store = s.as<Store>(); store && ComputesValues(store->value)) only_copies = false;
  });
  return only_copies;
}

Stmt RollLoops(const Stmt& body) { return Roll(body, OnlyCopies(body) ? ForKind::kRolled : ForKind::kSerial); }

}  // namespace tuneforge::lower
