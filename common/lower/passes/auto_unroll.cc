#include "common/lower/passes/auto_unroll.h"

#include <functional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "common/lower/passes/vectorize.h"
#include "common/lower/stmt_functor.h"
#include "common/overloaded.h"
#include "common/te/arith/sum_form.h"
#include "common/te/expr_util.h"

namespace tuneforge::lower {
namespace {

using MarkedLoops = absl::flat_hash_set<const te::VarNode*>;

// Beyond this many statements and expression nodes in its copies, an
// unrolled nest costs LLVM seconds to compile. In tunings of conv2d 7x7,
// matmul 128x3072x768 and layer norm, the best programs unrolled at most
// 4,274 nodes, the candidates that took 1-10 s to compile 9,400-99,000.
constexpr int64_t kMaxUnrolledNodes = 8192;

// Beyond this many nodes in its copies (about 16 copies of a statement), a
// scalar nest whose innermost unrolled loop walks memory with a stride keeps
// its loops: a tile's transposing write-back (a conv tile kept channel-last,
// stored to NCHW rows). Copied 224 times, a 7x7 stem candidate's write-back
// was 448 scalar loads and stores that LLVM's SLP vectorizer, GVN and DSE
// compared with each other: two thirds of its 175 ms compile, for code no
// faster than the loop's.
constexpr int64_t kMaxStridedScalarNodes = 256;

// Returns the rewritten statement; *steps receives its step count and
// `marked` the loops it marks.
Stmt Mark(const Stmt& s, int64_t max_step, const GovernedLoops& governed, int64_t* steps, MarkedLoops* marked) {
  if (!s) {
    *steps = 0;
    return s;
  }
  int64_t inner = 0;
  Stmt out = MapStmtChildren(s, [&](const Stmt& c) {
    int64_t n = 0;
    Stmt r = Mark(c, max_step, governed, &n, marked);
    inner += n;
    return r;
  });
  if (const For* f = out.as<For>()) {
    // A vectorized loop is one step per body statement only when it will
    // become vector statements; a longer one stays a loop of `extent` steps.
    bool vector = f->kind == ForKind::kVectorized && f->extent <= kMaxVectorLanes;
    *steps = vector ? inner : inner * f->extent;
    if (f->kind == ForKind::kSerial && *steps <= max_step && !governed.contains(f->var.get())) {
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
    n += te::CountNodes(e);
    return e;
  });
  return n;
}

// Whether a vectorized loop's variable `var` reaches `index` through an
// integer division or remainder: a fused axis that crosses rows, whose
// vector access becomes one load or store and one lane insert or extract
// per lane. (Strided lanes and padding's selects stay vector code.)
bool PerLaneIndex(const Expr& index, const te::VarNode* var) {
  bool per_lane = false;
  te::PostOrderVisit(index, [&](const Expr& n) {
    const auto* b = n.as<te::Binary>();
    if (b && (b->op == te::BinOp::kFloorDiv || b->op == te::BinOp::kFloorMod || b->op == te::BinOp::kDiv ||
              b->op == te::BinOp::kMod))
      per_lane = per_lane || te::UsesVar(n, var);
  });
  return per_lane;
}

// Whether `var` moves the access by other than one element a lane: in a
// dimension before the last, or with a stride in the last. A CPU moves such
// lanes one by one too (a gather or scatter of scalar loads): copied 448
// times, the write-back of a transposed conv tile to its output was a block
// of 6,272 loads that took 4-5 s to compile.
bool StridedIndex(const std::vector<Expr>& indices, const te::VarNode* var) {
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!te::UsesVar(indices[d], var)) continue;
    if (d + 1 < indices.size()) return true;
    for (const te::arith::SumTerm& term : te::arith::ToSumForm(indices[d]).terms) {
      const auto* ref = term.atom.as<te::VarRef>();
      if (ref && ref->var.get() == var) return term.coef != 1;
    }
    return true;  // inside an atom: a division's (PerLaneIndex)
  }
  return false;
}

// Calls fn with the indices of every store and every load below s.
void VisitAccessIndices(const Stmt& s, const std::function<void(const std::vector<Expr>&)>& fn) {
  VisitStmts(s, [&](const Stmt& x) {
    if (const Store* st = x.as<Store>()) fn(st->indices);
  });
  VisitExprs(s, [&](const Expr& e) {
    te::PostOrderVisit(e, [&](const Expr& n) {
      if (const auto* load = n.as<te::BufferLoad>()) fn(load->indices);
    });
  });
}

// Which vector accesses go lane by lane: those through a division only
// (what every nest budgets), or strided ones too (an elementwise nest's).
enum class LaneByLane { kDivisions, kDivisionsAndStrides };

// Extra nodes for the accesses of a vectorized loop's body that go lane by
// lane: `lanes` each (counted as one node, a 24-lane gather in a copied
// tile hid 24 loads and inserts per copy; layer norm and batch matmul
// candidates of that kind took 2-10 s to compile).
int64_t PerLaneAccessNodes(const For& loop, LaneByLane which) {
  const te::VarNode* var = loop.var.get();
  int64_t accesses = 0;
  auto count = [&](const std::vector<Expr>& indices) {
    if (which == LaneByLane::kDivisionsAndStrides && StridedIndex(indices, var)) {
      ++accesses;
      return;
    }
    for (const Expr& i : indices) {
      if (PerLaneIndex(i, var)) {
        ++accesses;
        return;
      }
    }
  };
  VisitAccessIndices(loop.body, count);
  return accesses * loop.extent;
}

// Nodes of s once its unrolled loops are copied.
int64_t UnrolledNodes(const Stmt& s, LaneByLane which) {
  if (!s) return 0;
  int64_t inner = 0;
  MapStmtChildren(s, [&](const Stmt& c) {
    inner += UnrolledNodes(c, which);
    return c;
  });
  const For* f = s.as<For>();
  if (f && f->kind == ForKind::kUnrolled) return f->extent * inner;
  if (f && f->kind == ForKind::kVectorized && f->extent <= kMaxVectorLanes)
    return OwnNodes(s) + inner + PerLaneAccessNodes(*f, which);
  return OwnNodes(s) + inner;
}

// Which conditions pin a loop to its copies: any; only the selects of
// padding (an attached stage guards its own region with branches that name
// every spatial loop until simplification proves them true); or none (the
// copies are scalar code, which deciding a border test does not save).
enum class PinningTests { kAny, kSelects, kNone };

// Whether a condition below the loop tests its variable (a window tap's
// border test: copied, each tap's test is decided above the tile and the
// taps that read padding are dropped; kept as a loop, the tests stay in the
// hot loop and made conv 7x7 candidates 10-16x slower, a Winograd input
// tile's 15-20%).
bool TestedByACondition(const For& f, PinningTests which) {
  if (which == PinningTests::kNone) return false;
  const te::VarNode* var = f.var.get();
  bool tested = false;
  VisitStmts(f.body, [&](const Stmt& x) {
    const IfThenElse* branch = x.as<IfThenElse>();
    if (branch && which == PinningTests::kAny) tested = tested || te::UsesVar(branch->condition, var);
  });
  VisitExprs(f.body, [&](const Expr& e) {
    te::PostOrderVisit(e, [&](const Expr& n) {
      if (const auto* select = n.as<te::Select>()) tested = tested || te::UsesVar(select->cond, var);
    });
  });
  return tested;
}

// Whether the store's index moves with `var`.
bool StoreIndexUses(const Store& st, const te::VarNode* var) {
  for (const Expr& i : st.indices)
    if (te::UsesVar(i, var)) return true;
  return false;
}

// Whether a store below the loop indexes by its variable (else it walks a
// reduction, a conv's input channels, whose copies all update the same
// accumulators).
bool IndexesAStore(const For& f) {
  bool used = false;
  VisitStmts(f.body, [&](const Stmt& x) {
    if (const Store* st = x.as<Store>()) used = used || StoreIndexUses(*st, f.var.get());
  });
  return used;
}

// Whether a vectorized loop below s goes lane by lane.
bool HasPerLaneAccess(const Stmt& s, LaneByLane which) {
  bool found = false;
  VisitStmts(s, [&](const Stmt& x) {
    const For* f = x.as<For>();
    found = found || (f && f->kind == ForKind::kVectorized && f->extent <= kMaxVectorLanes &&
                      PerLaneAccessNodes(*f, which) > 0);
  });
  return found;
}

// Whether a store below s reads the element it writes (an accumulator):
// such a nest is a register tile whose spatial loops must stay copied.
bool UpdatesAnAccumulator(const Stmt& s) {
  bool updates = false;
  VisitStmts(s, [&](const Stmt& x) {
    const Store* st = x.as<Store>();
    if (!st || updates) return;
    te::PostOrderVisit(st->value, [&](const Expr& n) {
      const auto* load = n.as<te::BufferLoad>();
      updates = updates || (load && load->buffer.get() == st->buffer.get());
    });
  });
  return updates;
}

// Beyond this many lanes of accumulators (twice the float32 lanes of
// AVX-512's 32 registers), a tile lives in memory whether its loops are
// copied or not: a strided depthwise candidate with a 4,704-lane tile
// copied inside its kept tap loop took 2.3 s to compile and ran 9x slower
// than the best.
constexpr int64_t kMaxRegisterTileLanes = 1024;

// Lanes of the accumulators below s, given the unrolled and vectorized
// loops around it (`copied`): for each store that reads its own buffer, the
// extents of those loops that move its index.
int64_t AccumulatorLanesUnder(const Stmt& s, std::vector<const For*>* copied) {
  if (!s) return 0;
  if (const Store* st = s.as<Store>()) {
    if (!UpdatesAnAccumulator(s)) return 0;
    int64_t lanes = 1;
    for (const For* f : *copied)
      if (StoreIndexUses(*st, f->var.get())) lanes *= f->extent;
    return lanes;
  }
  const For* f = s.as<For>();
  const bool copies = f && (f->kind == ForKind::kUnrolled || f->kind == ForKind::kVectorized);
  if (copies) copied->push_back(f);
  int64_t lanes = 0;
  MapStmtChildren(s, [&](const Stmt& c) {
    lanes += AccumulatorLanesUnder(c, copied);
    return c;
  });
  if (copies) copied->pop_back();
  return lanes;
}

// Lanes of the accumulators a nest's copies update.
int64_t AccumulatorLanes(const Stmt& nest) {
  std::vector<const For*> copied;
  return AccumulatorLanesUnder(nest, &copied);
}

// s with the outermost loop this pass marked kept as a loop, one that no
// condition tests (and, when `reductions_only`, that indexes no store); s
// itself when there is none. *kept says whether one was found.
Stmt KeepOneLoop(const Stmt& s, const MarkedLoops& marked, bool reductions_only, PinningTests pinning, bool* kept) {
  if (!s || *kept) return s;
  if (const For* f = s.as<For>(); f && f->kind == ForKind::kUnrolled && marked.contains(f->var.get()) &&
                                 f->extent > 1 && !TestedByACondition(*f, pinning) &&
                                 !(reductions_only && IndexesAStore(*f))) {
    *kept = true;
    return MakeFor(f->var, f->extent, ForKind::kSerial, f->body);
  }
  return MapStmtChildren(s, [&](const Stmt& c) { return KeepOneLoop(c, marked, reductions_only, pinning, kept); });
}

// Keeps the loops this pass marked in s as loops, outermost first, one that
// no condition tests (and, when `reductions_only`, that indexes no store)
// each time, until s fits the budget or no such loop is left.
Stmt KeepLoopsUntilItFits(Stmt s, const MarkedLoops& marked, bool reductions_only, LaneByLane which,
                          PinningTests pinning = PinningTests::kAny, int64_t budget = kMaxUnrolledNodes) {
  while (UnrolledNodes(s, which) > budget) {
    bool kept = false;
    s = KeepOneLoop(s, marked, reductions_only, pinning, &kept);
    if (!kept) break;
  }
  return s;
}

bool HasVectorizedLoop(const Stmt& s) {
  bool found = false;
  VisitStmts(s, [&](const Stmt& x) {
    const For* f = x.as<For>();
    found = found || (f && f->kind == ForKind::kVectorized);
  });
  return found;
}

// Whether an innermost loop this pass marked in s (no marked loop inside it)
// reads or writes with a stride along its variable.
bool WalksWithAStride(const Stmt& s, const MarkedLoops& marked) {
  bool strided = false;
  VisitStmts(s, [&](const Stmt& x) {
    const For* f = x.as<For>();
    if (strided || !f || f->kind != ForKind::kUnrolled || !marked.contains(f->var.get())) return;
    bool innermost = true;
    VisitStmts(f->body, [&](const Stmt& y) {
      const For* g = y.as<For>();
      innermost = innermost && !(g && g->kind == ForKind::kUnrolled && marked.contains(g->var.get()));
    });
    if (!innermost) return;
    VisitAccessIndices(f->body, [&](const std::vector<Expr>& indices) {
      strided = strided || StridedIndex(indices, f->var.get());
    });
  });
  return strided;
}

// A nest too large to copy whole keeps the reduction loops this pass marked
// (those that index no store and that no condition tests) as loops,
// outermost first, until it fits: the register tile's spatial loops stay
// unrolled, so its accumulators keep their constant indices (keeping a
// spatial loop instead made kernels 3-10x slower). Only a tile too large
// for registers (kMaxRegisterTileLanes), or one whose vectors go lane by
// lane through a division (a vector across rows: its copies are scalar
// loads), then keeps its spatial loops too.
// A nest without accumulators whose vectors go lane by lane (an
// elementwise stage vectorized across rows, or read with a stride: a tile's
// transposing write-back) keeps its other marked loops that no condition
// tests, outermost first: its copies are scalar code. So does a scalar one
// whose innermost copied loop walks memory with a stride, beyond a much
// smaller budget (kMaxStridedScalarNodes). A plain elementwise
// nest stays copied (kept as loops, the zero-fill of Winograd's batched
// matmul tile made its best programs 5-15% slower). Loops a schedule
// unrolls by name stay unrolled: a Winograd transform's taps must be copied
// for its constant matrix's zeros to fold away.
Stmt FitUnrolledNests(const Stmt& s, const MarkedLoops& marked) {
  if (!s) return s;
  const For* f = s.as<For>();
  if (!f || f->kind != ForKind::kUnrolled)
    return MapStmtChildren(s, [&](const Stmt& c) { return FitUnrolledNests(c, marked); });
  // Strided lanes count only for a nest without accumulators: in a register
  // tile (a stride-2 conv's input row) they are the hot loop's loads, which
  // the budget's loops must not be kept for.
  Stmt nest = KeepLoopsUntilItFits(s, marked, /*reductions_only=*/true, LaneByLane::kDivisions);
  if (UpdatesAnAccumulator(nest)) {
    if (HasPerLaneAccess(nest, LaneByLane::kDivisions))
      nest = KeepLoopsUntilItFits(nest, marked, /*reductions_only=*/false, LaneByLane::kDivisions, PinningTests::kNone);
    else if (AccumulatorLanes(nest) > kMaxRegisterTileLanes)
      nest = KeepLoopsUntilItFits(nest, marked, /*reductions_only=*/false, LaneByLane::kDivisions,
                                  PinningTests::kSelects);
  } else if (HasPerLaneAccess(nest, LaneByLane::kDivisionsAndStrides)) {
    nest = KeepLoopsUntilItFits(nest, marked, /*reductions_only=*/false, LaneByLane::kDivisionsAndStrides);
  } else if (!HasVectorizedLoop(nest) && WalksWithAStride(nest, marked)) {
    nest = KeepLoopsUntilItFits(nest, marked, /*reductions_only=*/false, LaneByLane::kDivisions, PinningTests::kAny,
                                kMaxStridedScalarNodes);
  }
  return nest;
}

}  // namespace

Stmt MarkAutoUnroll(const Stmt& nest, int64_t max_step, const GovernedLoops& governed) {
  int64_t steps = 0;
  MarkedLoops marked;
  Stmt out = Mark(nest, max_step, governed, &steps, &marked);
  return FitUnrolledNests(out, marked);
}

}  // namespace tuneforge::lower
