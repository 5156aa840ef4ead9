#include "common/codegen/llvm/uses.h"

#include <variant>

#include "common/overloaded.h"
#include "common/te/expr_util.h"

namespace tuneforge::codegen {
namespace {

class UseCollector {
 public:
  Uses Take() { return std::move(uses_); }

  void AddStmt(const lower::Stmt& s) {
    if (!s) return;
    std::visit(Overloaded{
                   [&](const lower::For& n) { AddStmt(n.body); },
                   [&](const lower::Store& n) {
                     AddBuffer(n.buffer);
                     for (const te::Expr& i : n.indices) AddExpr(i);
                     AddExpr(n.value);
                   },
                   [&](const lower::Allocate& n) { AddStmt(n.body); },
                   [&](const lower::IfThenElse& n) {
                     AddExpr(n.condition);
                     AddStmt(n.then_case);
                     AddStmt(n.else_case);
                   },
                   [&](const lower::Seq& n) {
                     for (const lower::Stmt& c : n.stmts) AddStmt(c);
                   },
                   [&](const lower::LetStmt& n) {
                     AddExpr(n.value);
                     AddStmt(n.body);
                   },
               },
               s.get()->v);
  }

 private:
  void AddExpr(const te::Expr& e) {
    te::PostOrderVisit(e, [&](const te::Expr& x) {
      if (const auto* ref = x.as<te::VarRef>()) {
        if (seen_.insert(ref->var.get()).second) uses_.vars.push_back(ref->var.get());
      }
      if (const auto* load = x.as<te::BufferLoad>()) AddBuffer(load->buffer);
    });
  }
  void AddBuffer(const te::Buffer& b) {
    if (seen_.insert(b.get()).second) uses_.buffers.push_back(b);
  }

  Uses uses_;
  absl::flat_hash_set<const void*> seen_;
};

}  // namespace

Uses CollectUses(const lower::Stmt& s) {
  UseCollector collector;
  collector.AddStmt(s);
  return collector.Take();
}

}  // namespace tuneforge::codegen
