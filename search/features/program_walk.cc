#include "search/features/program_walk.h"

#include "common/overloaded.h"

namespace tuneforge::search::features {
namespace {

using lower::Stmt;

class Walker {
 public:
  explicit Walker(ProgramWalk* out) : out_(*out) {}

  void Visit(const Stmt& s) {
    if (!s) return;
    std::visit(Overloaded{
                   [&](const lower::For& n) {
                     int id = static_cast<int>(out_.loops.size());
                     out_.loops.push_back(Loop{n.var.get(), n.extent, n.kind,
                                               static_cast<int>(loop_stack_.size()),
                                               static_cast<int>(out_.stores.size()), 0});
                     loop_stack_.push_back(id);
                     outer_prod_stack_.push_back(OuterProd() * n.extent);
                     Visit(n.body);
                     outer_prod_stack_.pop_back();
                     loop_stack_.pop_back();
                     out_.loops[id].end_store = static_cast<int>(out_.stores.size());
                   },
                   [&](const lower::Store& n) {
                     out_.stores.push_back(StoreSite{&n, loop_stack_, guard_stack_, OuterProd()});
                   },
                   [&](const lower::Allocate& n) {
                     out_.allocations[n.buffer.get()] = Allocation{n.buffer.get(), OuterProd(),
                                                                    static_cast<int>(loop_stack_.size())};
                     Visit(n.body);
                   },
                   [&](const lower::IfThenElse& n) {
                     // Both branches evaluate the condition first.
                     guard_stack_.push_back(&n.condition);
                     Visit(n.then_case);
                     Visit(n.else_case);
                     guard_stack_.pop_back();
                   },
                   [&](const lower::Seq& n) {
                     for (const Stmt& c : n.stmts) Visit(c);
                   },
                   [&](const lower::LetStmt& n) {
                     out_.lets[n.var.get()] = n.value;
                     Visit(n.body);
                   },
               },
               s.get()->v);
  }

 private:
  int64_t OuterProd() const { return outer_prod_stack_.empty() ? 1 : outer_prod_stack_.back(); }

  ProgramWalk& out_;
  std::vector<int> loop_stack_;
  std::vector<int64_t> outer_prod_stack_;
  std::vector<const te::Expr*> guard_stack_;
};

}  // namespace

ProgramWalk WalkProgram(const lower::Stmt& body) {
  ProgramWalk out;
  Walker(&out).Visit(body);
  return out;
}

}  // namespace tuneforge::search::features
