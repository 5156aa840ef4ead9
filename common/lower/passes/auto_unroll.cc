#include "common/lower/passes/auto_unroll.h"

#include "absl/container/flat_hash_set.h"
#include "common/lower/passes/vectorize.h"
#include "common/lower/stmt_functor.h"
#include "common/overloaded.h"

namespace tuneforge::lower {
namespace {

using MarkedLoops = absl::flat_hash_set<const te::VarNode*>;

// Beyond this many statements and expression nodes in its copies, an
// unrolled nest costs LLVM seconds to compile. In tunings of conv2d 7x7,
// matmul 128x3072x768 and layer norm, the best programs unrolled at most
// 4,274 nodes, the candidates that took 1-10 s to compile 9,400-99,000.
constexpr int64_t kMaxUnrolledNodes = 8192;

// Returns the rewritten statement; *steps receives its step count and
// `marked` the loops it marks.
Stmt Mark(const Stmt& s, int64_t max_step, int64_t* steps, MarkedLoops* marked) {
  if (!s) {
    *steps = 0;
    return s;
  }
  int64_t inner = 0;
  Stmt out = MapStmtChildren(s, [&](const Stmt& c) {
    int64_t n = 0;
    Stmt r = Mark(c, max_step, &n, marked);
    inner += n;
    return r;
  });
  if (const For* f = out.as<For>()) {
    // A vectorized loop is one step per body statement only when it will
    // become vector statements; a longer one stays a loop of `extent` steps.
    bool vector = f->kind == ForKind::kVectorized && f->extent <= kMaxVectorLanes;
    *steps = vector ? inner : inner * f->extent;
    if (f->kind == ForKind::kSerial && *steps <= max_step) {
      marked->insert(f->var.get());
      return MakeFor(f->var, f->extent, ForKind::kUnrolled, f->body);
    }
    return out;
  }
  *steps = out.as<Store>() ? 1 : inner;
  return out;
}

// The statement itself and the nodes of the expressions it holds.
int64_t OwnNodes(const Stmt& s) {
  int64_t n = 1;
  MapOwnExprs(s, [&](const Expr& e) {
    te::PostOrderVisit(e, [&](const Expr&) { ++n; });
    return e;
  });
  return n;
}

// Nodes of s once its unrolled loops are copied.
int64_t UnrolledNodes(const Stmt& s) {
  if (!s) return 0;
  int64_t inner = 0;
  MapStmtChildren(s, [&](const Stmt& c) {
    inner += UnrolledNodes(c);
    return c;
  });
  const For* f = s.as<For>();
  if (f && f->kind == ForKind::kUnrolled) return f->extent * inner;
  return OwnNodes(s) + inner;
}

// A loop that may stay a loop: no store below it indexes by it (it walks a
// reduction, a conv's input channels, so its copies all update the same
// accumulators), and no condition below it tests it (a window tap's border
// test: copied, each tap's test is decided above the tile and the taps that
// read padding are dropped; kept as a loop, the tests stay in the hot loop
// and made conv 7x7 candidates 10-16x slower).
bool MayStayALoop(const For& f) {
  const te::VarNode* var = f.var.get();
  bool used = false;
  VisitStmts(f.body, [&](const Stmt& x) {
    if (const Store* st = x.as<Store>())
      for (const Expr& i : st->indices) used = used || te::UsesVar(i, var);
    if (const IfThenElse* branch = x.as<IfThenElse>()) used = used || te::UsesVar(branch->condition, var);
  });
  VisitExprs(f.body, [&](const Expr& e) {
    te::PostOrderVisit(e, [&](const Expr& n) {
      if (const auto* select = n.as<te::Select>()) used = used || te::UsesVar(select->cond, var);
    });
  });
  return !used;
}

// s with the outermost reduction loop this pass marked kept as a loop; s
// itself when there is none. *kept says whether one was found.
Stmt KeepOneReductionLoop(const Stmt& s, const MarkedLoops& marked, bool* kept) {
  if (!s || *kept) return s;
  if (const For* f = s.as<For>();
      f && f->kind == ForKind::kUnrolled && marked.contains(f->var.get()) && MayStayALoop(*f)) {
    *kept = true;
    return MakeFor(f->var, f->extent, ForKind::kSerial, f->body);
  }
  return MapStmtChildren(s, [&](const Stmt& c) { return KeepOneReductionLoop(c, marked, kept); });
}

// A nest too large to copy whole keeps the reduction loops this pass marked
// (those that may stay loops) as loops, outermost first, until it fits: the
// register tile's spatial loops stay unrolled, so its accumulators keep
// their constant indices (keeping a spatial loop instead made kernels 3-10x
// slower). Loops a schedule unrolls by name stay unrolled: a Winograd
// transform's taps must be copied for its constant matrix's zeros to fold
// away.
Stmt FitUnrolledNests(const Stmt& s, const MarkedLoops& marked) {
  if (!s) return s;
  const For* f = s.as<For>();
  if (!f || f->kind != ForKind::kUnrolled)
    return MapStmtChildren(s, [&](const Stmt& c) { return FitUnrolledNests(c, marked); });
  Stmt nest = s;
  while (UnrolledNodes(nest) > kMaxUnrolledNodes) {
    bool kept = false;
    nest = KeepOneReductionLoop(nest, marked, &kept);
    if (!kept) break;
  }
  return nest;
}

}  // namespace

Stmt MarkAutoUnroll(const Stmt& nest, int64_t max_step) {
  int64_t steps = 0;
  MarkedLoops marked;
  Stmt out = Mark(nest, max_step, &steps, &marked);
  return FitUnrolledNests(out, marked);
}

}  // namespace tuneforge::lower
