#include "common/lower/stmt_functor.h"

#include "common/overloaded.h"

namespace tuneforge::lower {
namespace {

Stmt MapOrNull(const Stmt& s, const std::function<Stmt(const Stmt&)>& fn) { return s ? fn(s) : s; }

}  // namespace

Stmt MapStmtChildren(const Stmt& s, const std::function<Stmt(const Stmt&)>& fn) {
  return std::visit(Overloaded{
                        [&](const For& n) {
                          Stmt b = MapOrNull(n.body, fn);
                          return b.same_as(n.body) ? s : MakeFor(n.var, n.extent, n.kind, b);
                        },
                        [&](const Store&) { return s; },
                        [&](const Allocate& n) {
                          Stmt b = MapOrNull(n.body, fn);
                          return b.same_as(n.body) ? s : MakeAllocate(n.buffer, b);
                        },
                        [&](const IfThenElse& n) {
                          Stmt t = MapOrNull(n.then_case, fn), e = MapOrNull(n.else_case, fn);
                          if (t.same_as(n.then_case) && e.same_as(n.else_case)) return s;
                          return MakeIf(n.condition, t, e);
                        },
                        [&](const Seq& n) {
                          std::vector<Stmt> out;
                          bool changed = false;
                          for (const Stmt& c : n.stmts) {
                            out.push_back(MapOrNull(c, fn));
                            changed = changed || !out.back().same_as(c);
                          }
                          return changed ? MakeSeq(std::move(out)) : s;
                        },
                        [&](const LetStmt& n) {
                          Stmt b = MapOrNull(n.body, fn);
                          return b.same_as(n.body) ? s : MakeLet(n.var, n.value, b);
                        },
                    },
                    s.get()->v);
}

Stmt MapOwnExprs(const Stmt& s, const std::function<Expr(const Expr&)>& fn) {
  return std::visit(Overloaded{
                        [&](const For&) { return s; },
                        [&](const Store& n) {
                          bool changed = false;
                          std::vector<Expr> idx;
                          for (const Expr& i : n.indices) {
                            idx.push_back(fn(i));
                            changed = changed || !idx.back().same_as(i);
                          }
                          Expr v = fn(n.value);
                          if (!changed && v.same_as(n.value)) return s;
                          return MakeStore(n.buffer, std::move(idx), v);
                        },
                        [&](const Allocate&) { return s; },
                        [&](const IfThenElse& n) {
                          Expr c = fn(n.condition);
                          return c.same_as(n.condition) ? s : MakeIf(c, n.then_case, n.else_case);
                        },
                        [&](const Seq&) { return s; },
                        [&](const LetStmt& n) {
                          Expr v = fn(n.value);
                          return v.same_as(n.value) ? s : MakeLet(n.var, v, n.body);
                        },
                    },
                    s.get()->v);
}

Stmt MapAllExprs(const Stmt& s, const std::function<Expr(const Expr&)>& fn) {
  if (!s) return s;
  Stmt t = MapStmtChildren(s, [&](const Stmt& c) { return MapAllExprs(c, fn); });
  return MapOwnExprs(t, fn);
}

Stmt SubstituteStmt(const Stmt& s, const te::VarMap& map) {
  if (map.empty()) return s;
  return MapAllExprs(s, [&](const Expr& e) { return te::Substitute(e, map); });
}

void VisitStmts(const Stmt& s, const std::function<void(const Stmt&)>& fn) {
  if (!s) return;
  fn(s);
  MapStmtChildren(s, [&](const Stmt& c) {
    VisitStmts(c, fn);
    return c;
  });
}

void VisitExprs(const Stmt& s, const std::function<void(const Expr&)>& fn) {
  VisitStmts(s, [&](const Stmt& x) {
    MapOwnExprs(x, [&](const Expr& e) {
      fn(e);
      return e;
    });
  });
}

int64_t CountStmts(const Stmt& s) {
  int64_t n = 0;
  VisitStmts(s, [&](const Stmt&) { ++n; });
  return n;
}

namespace {
bool SameIndices(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!te::StructurallyEqual(a[i], b[i])) return false;
  return true;
}
}  // namespace

bool LoadsStoredElement(const Expr& e, const Store& store) {
  const auto* load = e.as<te::BufferLoad>();
  return load && load->buffer == store.buffer && SameIndices(load->indices, store.indices);
}

bool SameStoredElement(const Store& a, const Store& b) {
  return a.buffer == b.buffer && SameIndices(a.indices, b.indices);
}

}  // namespace tuneforge::lower
