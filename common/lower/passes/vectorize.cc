#include "common/lower/passes/vectorize.h"

#include "common/lower/stmt_functor.h"
#include "common/overloaded.h"
#include "common/te/arith/simplify.h"
#include "common/te/arith/sum_form.h"
#include "common/te/expr_util.h"

namespace tuneforge::lower {
namespace {


// Vectorizes lanes [offset, offset + lanes) of a loop's iterations: the
// loop variable becomes ramp(offset, 1, lanes) (one lane: just offset).
class LoopVectorizer {
 public:
  LoopVectorizer(const Var& var, int64_t offset, int lanes) : var_(var), offset_(offset), lanes_(lanes) {}

  // The vector form of `body`, or a null Stmt when it cannot be vectorized.
  Stmt Run(const Stmt& s) {
    if (!s) return s;
    return std::visit(
        Overloaded{
            [&](const For&) -> Stmt { return Stmt(); },
            [&](const Allocate&) -> Stmt { return Stmt(); },
            [&](const Store& n) -> Stmt {
              if (n.indices.size() != 1) return Stmt();
              Expr index = Vec(n.indices[0]);
              Expr value = Vec(n.value);
              if (!index.dtype().is_vector()) {
                // Every lane would write the same element (a reduction over
                // the vectorized loop): not vectorizable this way.
                if (value.dtype().is_vector()) return Stmt();
                return MakeStore(n.buffer, {index}, value);
              }
              if (!value.dtype().is_vector()) value = te::MakeBroadcast(value, lanes_);
              return MakeStore(n.buffer, {index}, value);
            },
            [&](const IfThenElse& n) -> Stmt {
              if (te::UsesVar(n.condition, var_.get())) return Stmt();
              Stmt t = Run(n.then_case);
              if (!t) return Stmt();
              Stmt e;
              if (n.else_case && !(e = Run(n.else_case))) return Stmt();
              return MakeIf(n.condition, t, e);
            },
            [&](const Seq& n) -> Stmt {
              std::vector<Stmt> out;
              for (const Stmt& c : n.stmts) {
                out.push_back(Run(c));
                if (!out.back()) return Stmt();
              }
              return MakeSeq(std::move(out));
            },
            [&](const LetStmt& n) -> Stmt {
              // Substituted: a let bound to a vector value is not worth keeping.
              return Run(SubstituteStmt(n.body, {{n.var.get(), n.value}}));
            },
        },
        s.get()->v);
  }

 private:
  Expr Vec(const Expr& e) {
    Expr start(static_cast<int>(offset_));
    Expr lanes = lanes_ == 1 ? start : te::MakeRamp(start, 1, lanes_);
    return te::arith::Simplify(te::Substitute(e, {{var_.get(), lanes}}));
  }

  Var var_;
  int64_t offset_;
  int lanes_;
};

// The load a copying store writes, looking through a border's select with a
// constant arm (a padded input's zeros).
const te::BufferLoad* CopiedLoad(const Expr& value) {
  if (const auto* load = value.as<te::BufferLoad>()) return load;
  const auto* select = value.as<te::Select>();
  if (!select) return nullptr;
  auto constant = [](const Expr& e) {
    const Expr& v = e.as<te::Broadcast>() ? e.as<te::Broadcast>()->value : e;
    return v.as<te::FloatImm>() || v.as<te::IntImm>();
  };
  if (constant(select->false_value)) return select->true_value.as<te::BufferLoad>();
  if (constant(select->true_value)) return select->false_value.as<te::BufferLoad>();
  return nullptr;
}

// A vector index whose lanes code generation loads one at a time: not
// contiguous, not one element for all lanes, not a stride short enough for
// one load of the span (kMaxSpanLoadStride).
bool LoadsLaneByLane(const Expr& index) {
  if (index.as<te::Broadcast>()) return false;
  std::optional<RampStart> ramp = RampStartOf(index);
  return !ramp || ramp->stride < 0 || ramp->stride > kMaxSpanLoadStride;
}

// Vector code that only copies elements gathered lane by lane (a Winograd
// transform's input tile, read 196 floats apart). Wider than
// kMaxGatheredCopyLanes, such a loop stays a loop, rolled (ForKind::kRolled):
// as vector code its lanes are still loaded one by one, and LLVM, which
// builds each gather from a vector of 64-bit addresses, spent about 280 ms
// of a Winograd kernel's code generation on 36 such 64-lane copies; unrolled,
// LLVM's SLP vectorizer compares the addresses of every pair of the copy's
// loads, which cost more. Narrower copies stay vector code: their gathers
// are cheap to build, and dozens of small rolled loops (LLVM analyses each)
// cost more than they did. Longer than kMaxVectorLanes too: left to LLVM's
// loop vectorizer, a 128-lane input tile became masked gathers interleaved
// by four (1,283 instructions of optimized IR in its function, 902 rolled).
constexpr int64_t kMaxGatheredCopyLanes = 16;
bool IsGatheringCopy(const Stmt& vector_body) {
  bool any = false, all = true;
  VisitStmts(vector_body, [&](const Stmt& s) {
    const Store* store = s.as<Store>();
    if (!store) return;
    any = true;
    const te::BufferLoad* load = CopiedLoad(store->value);
    all = all && load && load->indices.size() == 1 && load->indices[0].dtype().is_vector() &&
          LoadsLaneByLane(load->indices[0]);
  });
  return any && all;
}

// The rolled loop of a gathering copy. A border's select that does not
// depend on the loop goes around it, a loop of loads and a loop of zeros:
// left inside, each element's load sits behind a branch of its own.
Stmt RolledCopy(const For& loop) {
  const Store* store = loop.body.as<Store>();
  const te::Select* select = store ? store->value.as<te::Select>() : nullptr;
  if (!select || te::UsesVar(select->cond, loop.var.get()))
    return MakeFor(loop.var, loop.extent, ForKind::kRolled, loop.body);
  auto copy_of = [&](const Expr& value) {
    return MakeFor(loop.var, loop.extent, ForKind::kRolled, MakeStore(store->buffer, store->indices, value));
  };
  return MakeIf(select->cond, copy_of(select->true_value), copy_of(select->false_value));
}

// A vector whose width is not a power of two has no machine form: LLVM
// widens it to the next power of two, so a 40-lane accumulator takes the
// registers of 64 lanes (four zmm, not three), and a register tile of 8 x 40
// that fits AVX-512's 32 registers spills every accumulator (matmul
// 1000^3: 15.6 GFLOPS, against 421 cut). Where widening takes more
// registers than the lanes need, such a loop becomes one vector statement
// per power of two of whole registers in its width, widest first, and one
// for the lanes left over, which fill part of one register (16-lane
// registers: 40 = 32 + 8, 48 = 32 + 16, 36 = 32 + 4). Where it takes no more
// (28 or 25 lanes in two registers either way), the loop stays one
// statement: cut, a strided depthwise conv's 28-lane rows ran no faster. The
// pieces run in the loop's order. Unknown register width (0): left whole.
Stmt VectorPieces(const For& loop, Stmt whole, int64_t register_lanes) {
  const int64_t extent = loop.extent;
  if (register_lanes <= 0 || (extent & (extent - 1)) == 0) return whole;
  int64_t widened = 1;
  while (widened < extent) widened *= 2;
  auto registers = [&](int64_t lanes) { return (lanes + register_lanes - 1) / register_lanes; };
  if (registers(extent) >= registers(widened)) return whole;
  const int64_t rest = extent % register_lanes;
  std::vector<int64_t> widths;
  for (int64_t lanes = widened; lanes >= register_lanes; lanes >>= 1)
    if ((extent - rest) & lanes) widths.push_back(lanes);
  if (rest > 0) widths.push_back(rest);
  std::vector<Stmt> pieces;
  int64_t offset = 0;
  for (int64_t lanes : widths) {
    Stmt piece = LoopVectorizer(loop.var, offset, static_cast<int>(lanes)).Run(loop.body);
    if (!piece) return whole;  // the whole width vectorized, so each piece does
    pieces.push_back(std::move(piece));
    offset += lanes;
  }
  return MakeSeq(std::move(pieces));
}

// Whether `condition` is comparisons joined by && whose sides are linear in
// `var` (it appears only as a term of a sum): each is then monotone in it,
// and holds at every lane of [0, extent) when it holds at both ends.
bool LinearTestsIn(const Expr& condition, const te::VarNode* var) {
  const auto* test = condition.as<te::Binary>();
  if (!test) return false;
  if (test->op == te::BinOp::kAnd) return LinearTestsIn(test->a, var) && LinearTestsIn(test->b, var);
  if (test->op != te::BinOp::kLT && test->op != te::BinOp::kLE && test->op != te::BinOp::kGT &&
      test->op != te::BinOp::kGE)
    return false;
  for (const Expr& side : {test->a, test->b}) {
    if (side.dtype().is_vector()) return false;
    for (const te::arith::SumTerm& term : te::arith::ToSumForm(side).terms) {
      const auto* ref = term.atom.as<te::VarRef>();
      if (!(ref && ref->var.get() == var) && te::UsesVar(term.atom, var)) return false;
    }
  }
  return true;
}

// A vectorized loop whose body is one test of its own variable: the partial
// last tile of a split that does not divide its axis (`if (j0 + j < 1000)`),
// which cannot be one vector statement. Where the test is linear in the
// variable, every lane passes when both ends of the loop pass; the body then
// runs as vector code (cut into registers as any other), else the loop runs
// as it was, its lanes tested one by one: only the axis's last tile. The
// test does not change inside the tile's reduction loop, so partitioning or
// LLVM's unswitching asks it once above it. An 8 x 32 tile of matmul 1000^3
// (its last tile 8 lanes of 32) tested every lane of every tile: 16.3
// GFLOPS, 326 versioned. Null when the loop is not of that form.
Stmt VersionedAtTheEdge(const For& loop, int64_t register_lanes) {
  const IfThenElse* test = loop.body.as<IfThenElse>();
  if (!test || test->else_case || !te::UsesVar(test->condition, loop.var.get()) ||
      !LinearTestsIn(test->condition, loop.var.get()))
    return Stmt();
  Stmt vec = LoopVectorizer(loop.var, 0, static_cast<int>(loop.extent)).Run(test->then_case);
  if (!vec) return Stmt();
  auto at = [&](int64_t lane) {
    Expr value(static_cast<int>(lane));
    return te::arith::Simplify(te::Substitute(test->condition, {{loop.var.get(), value}}));
  };
  Expr every_lane = te::arith::Simplify(te::LogicalAnd(at(0), at(loop.extent - 1)));
  For unguarded{loop.var, loop.extent, loop.kind, test->then_case};
  return MakeIf(every_lane, VectorPieces(unguarded, vec, register_lanes),
                MakeFor(loop.var, loop.extent, loop.kind, loop.body));
}

Stmt VectorizeLoops(const Stmt& s, int64_t register_lanes) {
  if (!s) return s;
  Stmt t = MapStmtChildren(s, [&](const Stmt& c) { return VectorizeLoops(c, register_lanes); });
  const For* f = t.as<For>();
  if (!f || f->kind != ForKind::kVectorized) return t;
  // A loop around code that is already vector (an inner vectorized loop)
  // stays a loop: lanes of lanes have no machine form.
  bool has_vectors = false;
  VisitExprs(f->body, [&](const Expr& e) { has_vectors = has_vectors || e.dtype().is_vector(); });
  if (has_vectors) return t;
  Stmt vec = LoopVectorizer(f->var, 0, static_cast<int>(f->extent)).Run(f->body);
  if (vec && f->extent > kMaxGatheredCopyLanes && IsGatheringCopy(vec)) return RolledCopy(*f);
  // Any other loop this long is LLVM's to vectorize.
  if (f->extent > kMaxVectorLanes) return t;
  if (vec) return VectorPieces(*f, vec, register_lanes);
  Stmt versioned = VersionedAtTheEdge(*f, register_lanes);
  return versioned ? versioned : t;
}

}  // namespace

std::optional<RampStart> RampStartOf(const te::Expr& index) {
  if (const auto* ramp = index.as<te::Ramp>()) return RampStart{ramp->base, ramp->stride};
  const auto* add = index.as<te::Binary>();
  if (!add || add->op != te::BinOp::kAdd) return std::nullopt;
  for (const auto& [vec, offset] : {std::pair(add->a, add->b), std::pair(add->b, add->a)}) {
    const auto* ramp = vec.as<te::Ramp>();
    const auto* splat = offset.as<te::Broadcast>();
    if (ramp && splat && ramp->base.dtype() == splat->value.dtype()) {
      return RampStart{ramp->base + splat->value, ramp->stride};
    }
  }
  return std::nullopt;
}

std::optional<te::Expr> ContiguousBase(const te::Expr& index) {
  std::optional<RampStart> r = RampStartOf(index);
  if (r && r->stride == 1) return r->base;
  return std::nullopt;
}

std::optional<te::Expr> UniformIndex(const te::Expr& index) {
  if (const auto* splat = index.as<te::Broadcast>()) return splat->value;
  if (const auto* ramp = index.as<te::Ramp>(); ramp && ramp->stride == 0) return ramp->base;
  return std::nullopt;
}

Stmt Vectorize(const Stmt& body, int64_t register_lanes) { return VectorizeLoops(body, register_lanes); }

bool StoresScatter(const Stmt& vector_code) {
  bool scatters = false;
  VisitStmts(vector_code, [&](const Stmt& s) {
    const Store* store = s.as<Store>();
    if (scatters || !store || store->indices.size() != 1) return;
    const Expr& index = store->indices[0];
    if (!index.dtype().is_vector() || CopiedLoad(store->value)) return;
    scatters = !ContiguousBase(index) && !UniformIndex(index);  // as code generation writes it
  });
  return scatters;
}

}  // namespace tuneforge::lower
