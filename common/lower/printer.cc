#include "common/lower/printer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/overloaded.h"
#include "common/te/expr_util.h"

namespace tuneforge::lower {
namespace {

void Print(const Stmt& s, int indent, std::string* out) {
  std::string pad(indent * 2, ' ');
  if (!s) return;
  std::visit(Overloaded{
                 [&](const For& n) {
                   absl::StrAppend(out, pad, ForKindName(n.kind), " (", n.var->name, ", 0, ",
                                   n.extent, ") {\n");
                   Print(n.body, indent + 1, out);
                   absl::StrAppend(out, pad, "}\n");
                 },
                 [&](const Store& n) {
                   std::string idx = absl::StrJoin(n.indices, ", ", [](std::string* o, const Expr& e) {
                     o->append(te::ToString(e));
                   });
                   absl::StrAppend(out, pad, n.buffer->name, "[", idx, "] = ", te::ToString(n.value),
                                   "\n");
                 },
                 [&](const Allocate& n) {
                   absl::StrAppend(out, pad, "allocate ", n.buffer->name, "[",
                                   te::ToString(n.buffer->dtype), " * ",
                                   absl::StrJoin(n.buffer->shape, " * "), "], ", n.buffer->scope,
                                   "\n");
                   Print(n.body, indent, out);
                 },
                 [&](const IfThenElse& n) {
                   absl::StrAppend(out, pad, "if (", te::ToString(n.condition), ") {\n");
                   Print(n.then_case, indent + 1, out);
                   if (n.else_case) {
                     absl::StrAppend(out, pad, "} else {\n");
                     Print(n.else_case, indent + 1, out);
                   }
                   absl::StrAppend(out, pad, "}\n");
                 },
                 [&](const Seq& n) {
                   for (const Stmt& c : n.stmts) Print(c, indent, out);
                 },
                 [&](const LetStmt& n) {
                   absl::StrAppend(out, pad, n.var->name, " = ", te::ToString(n.value), "\n");
                   Print(n.body, indent, out);
                 },
             },
             s.get()->v);
}

}  // namespace

std::string ToString(const Stmt& stmt) {
  std::string out;
  Print(stmt, 0, &out);
  return out;
}

std::string ToString(const LoweredFunc& func) {
  std::string args = absl::StrJoin(func.args, ", ", [](std::string* o, const Buffer& b) {
    absl::StrAppend(o, b->name, ": ", te::ToString(b->dtype), "[", absl::StrJoin(b->shape, ", "), "]");
  });
  std::string out;
  if (func.prepack) {  // runs once, before the kernel, on the same arguments
    absl::StrAppend(&out, "// once, before ", func.name, ": the constants' packed layouts\n",
                    func.prepack_name(), "(", args, ") {\n");
    Print(func.prepack, 1, &out);
    out += "}\n";
  }
  absl::StrAppend(&out, func.name, "(", args, ") {\n");
  Print(func.body, 1, &out);
  return out + "}\n";
}

}  // namespace tuneforge::lower
