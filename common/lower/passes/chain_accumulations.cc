#include "common/lower/passes/chain_accumulations.h"

#include <optional>
#include <utility>
#include <vector>

#include "common/lower/stmt_functor.h"
#include "common/te/expr_util.h"
#include "common/te/op_semantics.h"

namespace tuneforge::lower {
namespace {

// A longer run is cut into sums of this many terms: an unrolled reduction
// of hundreds of steps would otherwise be one expression that deep, for
// every recursive pass after it and for the C source of a GPU kernel.
constexpr int kMaxChainedTerms = 64;

bool ReadsBuffer(const Expr& e, const Buffer& buffer) {
  bool reads = false;
  te::PostOrderVisit(e, [&](const Expr& x) {
    if (const auto* load = x.as<te::BufferLoad>(); load && load->buffer == buffer) reads = true;
  });
  return reads;
}

// The term t of `acc[i] = acc[i] + t` (acc[i] the store's own element, read
// as the left operand: the order of the sum is kept), where t reads nothing
// of acc; nullopt for any other store.
std::optional<Expr> AccumulatedTerm(const Store& store) {
  const auto* add = store.value.as<te::Binary>();
  if (!add || add->op != te::BinOp::kAdd || !LoadsStoredElement(add->a, store) || ReadsBuffer(add->b, store.buffer))
    return std::nullopt;
  return add->b;
}

// The statements of a sequence with each run joined. A store can start a
// run when its value reads its buffer at most as the first operand of its
// sum, its own element: an init that reads no accumulator, or one step
// `acc[i] = acc[i] + t` (the rest of the sum was accumulated elsewhere, an
// outer loop over another part of the reduction).
std::vector<Stmt> JoinRuns(const std::vector<Stmt>& stmts) {
  std::vector<Stmt> out;
  bool last_starts_run = false;
  int last_terms = 0;  // terms joined into the last statement
  for (const Stmt& s : stmts) {
    const Store* store = s.as<Store>();
    const Store* last = out.empty() ? nullptr : out.back().as<Store>();
    std::optional<Expr> term = store ? AccumulatedTerm(*store) : std::nullopt;
    if (term && last && last_starts_run && last_terms < kMaxChainedTerms && SameStoredElement(*last, *store)) {
      // An init of zero and its first step are the step's term alone (a sum
      // of -0.0 terms then gives -0.0, not +0.0: equal as numbers).
      Expr value = te::IsZeroConstant(last->value) ? *term : te::MakeBinary(te::BinOp::kAdd, last->value, *term);
      out.back() = MakeStore(store->buffer, store->indices, std::move(value));
      ++last_terms;
      continue;
    }
    out.push_back(s);
    last_starts_run = store && (term || !ReadsBuffer(store->value, store->buffer));
    last_terms = 0;
  }
  return out;
}

Stmt Chain(const Stmt& s) {
  if (!s) return s;
  Stmt mapped = MapStmtChildren(s, Chain);
  const Seq* seq = mapped.as<Seq>();
  if (!seq) return mapped;
  std::vector<Stmt> joined = JoinRuns(seq->stmts);
  if (joined.size() == seq->stmts.size()) return mapped;
  return joined.size() == 1 ? joined[0] : MakeSeq(std::move(joined));
}

}  // namespace

Stmt ChainAccumulations(const Stmt& body) { return Chain(body); }

}  // namespace tuneforge::lower
