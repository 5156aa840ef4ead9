// Turns expression syntax (ast.h) into typed te::Expr, resolving names and
// checking types. The type rules, in short:
//   - integer literals and let constants are int64 and adapt to the other
//     operand (x * 2 with float x is float); float literals are float32 and
//     adapt to other floats, but never become integers (i * 0.5 is float32);
//     constant arithmetic is folded (N + 2 is one number);
//   - two non-constant operands must agree: float32 with float64, or a float
//     with an integer, is a type mismatch (cast one); integers of different
//     widths widen;
//   - indices and extents are integers; conditions (select, where, && || !)
//     are comparisons; // and % take integers; math functions take floats;
//   - a reduction (sum, or max/min with axes) is only allowed as the whole
//     right-hand side of a compute statement.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/te/definition/ast.h"
#include "common/te/tensor.h"

namespace tuneforge::te::definition {

// What names mean while one statement is built.
struct Scope {
  const absl::flat_hash_map<std::string, Expr>* constants = nullptr;  // lets
  const absl::flat_hash_map<std::string, Tensor>* tensors = nullptr;  // defined so far
  // Every tensor of the file with where it is defined, for "read before defined".
  const absl::flat_hash_map<std::string, Pos>* declared = nullptr;
  std::string defining;  // the tensor this statement defines, "" for let and input
  std::vector<std::pair<std::string, Var>> axes;  // in scope, innermost last
};

class ExprBuilder {
 public:
  explicit ExprBuilder(Scope scope) : scope_(std::move(scope)) {}

  // The right-hand side of a compute statement: may be a reduction.
  absl::StatusOr<Expr> BuildBody(const Node& node);
  // Any expression that is not a reduction.
  absl::StatusOr<Expr> Build(const Node& node);
  // A positive integer constant; `what` names it ("extent of axis 'i'").
  absl::StatusOr<int64_t> BuildExtent(const Node& node, absl::string_view what);
  // A number known before anything runs (let): an IntImm or FloatImm.
  absl::StatusOr<Expr> BuildConstant(const Node& node, absl::string_view what);

  // An error if `name` is already a let, a tensor or an axis in scope.
  absl::Status CheckFreshName(absl::string_view name, Pos pos, absl::string_view kind) const;

 private:
  absl::StatusOr<Expr> BuildName(const Node& node, const NameNode& n);
  absl::StatusOr<Expr> BuildRead(const Node& node, const ReadNode& n);
  absl::StatusOr<Expr> BuildUnary(const Node& node, const UnaryNode& n);
  absl::StatusOr<Expr> BuildBinary(const Node& node, const BinaryNode& n);
  absl::StatusOr<Expr> BuildCall(const Node& node, const CallNode& n);
  absl::StatusOr<Expr> BuildReduction(const Node& node, const CallNode& n, Combiner combiner);
  absl::StatusOr<std::vector<Expr>> BuildArgs(const Node& node, const CallNode& n, size_t arity);

  Scope scope_;
};

}  // namespace tuneforge::te::definition
