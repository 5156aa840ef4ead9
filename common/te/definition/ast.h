// The syntax tree of a compute definition, as the parser reads it. Names are
// still text here; builder.cc resolves them and checks types.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "common/te/definition/lexer.h"

namespace tuneforge::te::definition {

struct Node;
using NodePtr = std::unique_ptr<Node>;

struct NumberNode {
  bool is_float = false;
  int64_t int_value = 0;
  double float_value = 0;
};
// A let constant, an axis, or (wrongly, reported later) a tensor or function.
struct NameNode {
  std::string name;
};
// tensor[index, ...]
struct ReadNode {
  std::string tensor;
  std::vector<NodePtr> indices;
};
// An axis declaration "k: extent" (compute axes and reduction axes).
struct AxisDecl {
  std::string name;
  Pos pos;
  NodePtr extent;
};
// fn(args..., axis: extent, ... where condition)
struct CallNode {
  std::string fn;
  std::vector<NodePtr> args;
  std::vector<AxisDecl> axes;  // non-empty only for reductions
  NodePtr where;               // optional, only after axes
};
struct UnaryNode {
  std::string op;  // "-" or "!"
  NodePtr operand;
};
struct BinaryNode {
  std::string op;  // "+", "//", "<=", "&&", ...
  Pos op_pos;      // the operator's position; Node::pos is where the lhs starts
  NodePtr lhs, rhs;
};

struct Node {
  Pos pos;
  std::variant<NumberNode, NameNode, ReadNode, CallNode, UnaryNode, BinaryNode> v;
  int height = 1;  // levels of the subtree; the parser caps it so no pass recurses too deep
};

// let NAME = expression
struct LetStmt {
  std::string name;
  NodePtr value;
};
// input NAME: dtype[extent, ...]
struct InputStmt {
  std::string name;
  std::string dtype;
  Pos dtype_pos;
  std::vector<NodePtr> shape;
  bool constant = false;  // `input W: float32[...] constant`
};
// NAME[axis: extent, ...] = expression
struct ComputeStmt {
  std::string name;
  std::vector<AxisDecl> axes;
  NodePtr body;
};
// output NAME, ...
struct OutputStmt {
  std::vector<std::pair<std::string, Pos>> names;
};

struct Statement {
  Pos pos;  // of the statement's first token (its name for a compute)
  std::variant<LetStmt, InputStmt, ComputeStmt, OutputStmt> v;
};

struct Program {
  std::vector<Statement> statements;
};

}  // namespace tuneforge::te::definition
