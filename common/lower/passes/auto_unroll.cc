#include "common/lower/passes/auto_unroll.h"

#include "common/lower/passes/vectorize.h"
#include "common/lower/stmt_functor.h"
#include "common/overloaded.h"

namespace tuneforge::lower {
namespace {

// Returns the rewritten statement; *steps receives its step count.
Stmt Mark(const Stmt& s, int64_t max_step, int64_t* steps) {
  if (!s) {
    *steps = 0;
    return s;
  }
  int64_t inner = 0;
  Stmt out = MapStmtChildren(s, [&](const Stmt& c) {
    int64_t n = 0;
    Stmt r = Mark(c, max_step, &n);
    inner += n;
    return r;
  });
  if (const For* f = out.as<For>()) {
    // A vectorized loop is one step per body statement only when it will
    // become vector statements; a longer one stays a loop of `extent` steps.
    bool vector = f->kind == ForKind::kVectorized && f->extent <= kMaxVectorLanes;
    *steps = vector ? inner : inner * f->extent;
    if (f->kind == ForKind::kSerial && *steps <= max_step)
      return MakeFor(f->var, f->extent, ForKind::kUnrolled, f->body);
    return out;
  }
  *steps = out.as<Store>() ? 1 : inner;
  return out;
}

}  // namespace

Stmt MarkAutoUnroll(const Stmt& nest, int64_t max_step) {
  int64_t steps = 0;
  return Mark(nest, max_step, &steps);
}

}  // namespace tuneforge::lower
