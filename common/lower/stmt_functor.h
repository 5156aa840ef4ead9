// Generic traversal and rewriting of lowered statements.
#pragma once

#include <functional>

#include "common/lower/stmt.h"
#include "common/te/expr_util.h"

namespace tuneforge::lower {

// s with each direct child statement c replaced by fn(c) (null children stay
// null); s itself when nothing changed.
Stmt MapStmtChildren(const Stmt& s, const std::function<Stmt(const Stmt&)>& fn);
// s with every expression directly held by s (not by its child statements)
// replaced by fn(e).
Stmt MapOwnExprs(const Stmt& s, const std::function<Expr(const Expr&)>& fn);
// Every expression in the whole tree rewritten by fn.
Stmt MapAllExprs(const Stmt& s, const std::function<Expr(const Expr&)>& fn);
// Variable substitution throughout a statement tree.
Stmt SubstituteStmt(const Stmt& s, const te::VarMap& map);
// Calls fn on every statement, parents before children.
void VisitStmts(const Stmt& s, const std::function<void(const Stmt&)>& fn);
// Calls fn on every expression of the tree (each top-level expression once).
void VisitExprs(const Stmt& s, const std::function<void(const Expr&)>& fn);
// Number of statements (For, Store, ...) in the tree.
int64_t CountStmts(const Stmt& s);
// Whether `e` is a load of exactly the element `store` writes (same buffer,
// structurally equal indices): the `acc[i]` of `acc[i] = acc[i] + t`.
bool LoadsStoredElement(const Expr& e, const Store& store);
// Whether two stores write the same element.
bool SameStoredElement(const Store& a, const Store& b);

}  // namespace tuneforge::lower
