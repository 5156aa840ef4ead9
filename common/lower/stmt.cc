#include "common/lower/stmt.h"

namespace tuneforge::lower {
namespace {

Stmt Make(StmtVariant v) { return Stmt(std::make_shared<const StmtNode>(StmtNode{std::move(v)})); }

}  // namespace

const char* ForKindName(ForKind kind) {
  switch (kind) {
    case ForKind::kSerial: return "for";
    case ForKind::kParallel: return "parallel";
    case ForKind::kVectorized: return "vectorized";
    case ForKind::kUnrolled: return "unrolled";
    case ForKind::kRolled: return "rolled";
    case ForKind::kVThread: return "vthread";
    case ForKind::kBlockX: return "blockIdx.x";
    case ForKind::kBlockY: return "blockIdx.y";
    case ForKind::kBlockZ: return "blockIdx.z";
    case ForKind::kThreadX: return "threadIdx.x";
    case ForKind::kThreadY: return "threadIdx.y";
    case ForKind::kThreadZ: return "threadIdx.z";
  }
  return "?";
}

Stmt MakeFor(Var var, int64_t extent, ForKind kind, Stmt body) {
  return Make(For{std::move(var), extent, kind, std::move(body)});
}
Stmt MakeStore(Buffer buffer, std::vector<Expr> indices, Expr value) {
  return Make(Store{std::move(buffer), std::move(indices), std::move(value)});
}
Stmt MakeAllocate(Buffer buffer, Stmt body) { return Make(Allocate{std::move(buffer), std::move(body)}); }
Stmt MakeIf(Expr condition, Stmt then_case, Stmt else_case) {
  return Make(IfThenElse{std::move(condition), std::move(then_case), std::move(else_case)});
}
Stmt MakeSeq(std::vector<Stmt> stmts) {
  std::vector<Stmt> flat;
  for (Stmt& s : stmts) {
    if (!s) continue;
    if (const Seq* inner = s.as<Seq>()) {
      flat.insert(flat.end(), inner->stmts.begin(), inner->stmts.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  return Make(Seq{std::move(flat)});
}
Stmt MakeLet(Var var, Expr value, Stmt body) {
  return Make(LetStmt{std::move(var), std::move(value), std::move(body)});
}

}  // namespace tuneforge::lower
