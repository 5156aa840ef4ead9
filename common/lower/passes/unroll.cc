#include "common/lower/passes/unroll.h"

#include "common/lower/stmt_functor.h"

namespace tuneforge::lower {
namespace {

// Beyond this many statements, unrolling costs more compile time than it
// can win back.
constexpr int64_t kMaxUnrolledStmts = 4096;

Stmt UnrollLoops(const Stmt& s) {
  if (!s) return s;
  Stmt t = MapStmtChildren(s, UnrollLoops);
  const For* f = t.as<For>();
  if (!f || f->kind != ForKind::kUnrolled) return t;
  // Too large to copy: a plain loop. (Left marked, LLVM would unroll it
  // fully itself, and take minutes to compile the result.)
  if (f->extent * CountStmts(f->body) > kMaxUnrolledStmts)
    return MakeFor(f->var, f->extent, ForKind::kSerial, f->body);
  std::vector<Stmt> copies;
  copies.reserve(f->extent);
  for (int64_t i = 0; i < f->extent; ++i)
    copies.push_back(SubstituteStmt(f->body, {{f->var.get(), Expr(i)}}));
  return MakeSeq(std::move(copies));
}

}  // namespace

Stmt Unroll(const Stmt& body) { return UnrollLoops(body); }

}  // namespace tuneforge::lower
