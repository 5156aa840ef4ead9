#include "common/te/definition/parser.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/overloaded.h"

namespace tuneforge::te::definition {
namespace {

constexpr absl::string_view kComparisons[] = {"==", "!=", "<", "<=", ">", ">="};

// Expressions deeper than this are refused, so that neither the parser nor
// the passes after it (all recursive) can run out of stack on hostile input.
constexpr int kMaxHeight = 256;

int Height(const NodePtr& n) { return n ? n->height : 0; }

int ChildHeight(const decltype(Node::v)& v) {
  return std::visit(
      Overloaded{
          [](const NumberNode&) { return 0; }, [](const NameNode&) { return 0; },
          [](const ReadNode& n) {
            int h = 0;
            for (const NodePtr& i : n.indices) h = std::max(h, Height(i));
            return h;
          },
          [](const CallNode& n) {
            int h = Height(n.where);
            for (const NodePtr& a : n.args) h = std::max(h, Height(a));
            for (const AxisDecl& a : n.axes) h = std::max(h, Height(a.extent));
            return h;
          },
          [](const UnaryNode& n) { return Height(n.operand); },
          [](const BinaryNode& n) { return std::max(Height(n.lhs), Height(n.rhs)); },
      },
      v);
}

absl::Status TooDeep(Pos pos) {
  return ErrorAt(pos, absl::StrCat("expression nested too deeply (more than ", kMaxHeight,
                                   " levels); split it into several statements"));
}

absl::StatusOr<NodePtr> MakeNode(Pos pos, decltype(Node::v) v) {
  int height = 1 + ChildHeight(v);
  if (height > kMaxHeight) return TooDeep(pos);
  return std::make_unique<Node>(Node{pos, std::move(v), height});
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  absl::StatusOr<Program> Run() {
    Program program;
    while (Peek().kind != TokenKind::kEnd) {
      if (Peek().kind == TokenKind::kNewline) {
        Next();
        continue;
      }
      auto statement = ParseStatement();
      if (!statement.ok()) return statement.status();
      program.statements.push_back(*std::move(statement));
      if (Peek().kind == TokenKind::kNewline) Next();
      else if (Peek().kind != TokenKind::kEnd) return Expected("end of line after the statement");
    }
    return program;
  }

 private:
  const Token& Peek(size_t ahead = 0) const { return t_[std::min(i_ + ahead, t_.size() - 1)]; }
  const Token& Next() { return t_[i_ + 1 < t_.size() ? i_++ : i_]; }
  bool AtSymbol(absl::string_view s, size_t ahead = 0) const {
    return Peek(ahead).kind == TokenKind::kSymbol && Peek(ahead).text == s;
  }
  bool AtName(absl::string_view s) const {
    return Peek().kind == TokenKind::kName && Peek().text == s;
  }
  absl::Status Expected(absl::string_view what) const {
    return ErrorAt(Peek().pos, absl::StrCat("expected ", what, ", found ", Describe(Peek())));
  }
  // Consumes `symbol` or reports "expected 'symbol' <context>, found ...".
  absl::Status Expect(absl::string_view symbol, absl::string_view context) {
    if (!AtSymbol(symbol)) return Expected(absl::StrCat("'", symbol, "' ", context));
    Next();
    return absl::OkStatus();
  }
  absl::StatusOr<Token> ExpectName(absl::string_view what) {
    if (Peek().kind != TokenKind::kName) return Expected(what);
    return Next();
  }

  absl::StatusOr<Statement> ParseStatement() {
    Pos pos = Peek().pos;
    if (AtName("let")) return Wrap(pos, ParseLet());
    if (AtName("input")) return Wrap(pos, ParseInput());
    if (AtName("output")) return Wrap(pos, ParseOutput());
    if (Peek().kind == TokenKind::kName) return Wrap(pos, ParseCompute());
    return Expected("a statement (let, input, output or NAME[axes] = expression)");
  }

  template <class T>
  static absl::StatusOr<Statement> Wrap(Pos pos, absl::StatusOr<T> stmt) {
    if (!stmt.ok()) return stmt.status();
    return Statement{pos, *std::move(stmt)};
  }

  absl::StatusOr<LetStmt> ParseLet() {
    Next();
    auto name = ExpectName("a name after 'let' (like let N = 64)");
    if (!name.ok()) return name.status();
    if (auto s = Expect("=", absl::StrCat("after 'let ", name->text, "'")); !s.ok()) return s;
    auto value = ParseExpr();
    if (!value.ok()) return value.status();
    return LetStmt{name->text, *std::move(value)};
  }

  absl::StatusOr<InputStmt> ParseInput() {
    Next();
    auto name = ExpectName("a tensor name after 'input' (like input A: float32[64, 64])");
    if (!name.ok()) return name.status();
    std::string context = absl::StrCat("and a type after 'input ", name->text,
                                       "' (like input ", name->text, ": float32[64, 64])");
    if (auto s = Expect(":", context); !s.ok()) return s;
    auto dtype = ExpectName(absl::StrCat("a type (float32, int32, ...) for '", name->text, "'"));
    if (!dtype.ok()) return dtype.status();
    InputStmt input{name->text, dtype->text, dtype->pos, {}};
    if (auto s = Expect("[", absl::StrCat("and the shape after the type of '", name->text, "'"));
        !s.ok())
      return s;
    while (true) {
      auto extent = ParseExpr();
      if (!extent.ok()) return extent.status();
      input.shape.push_back(*std::move(extent));
      if (!AtSymbol(",")) break;
      Next();
    }
    if (auto s = Expect("]", absl::StrCat("after the shape of '", name->text, "'")); !s.ok())
      return s;
    if (AtName("constant")) {  // a weight: fixed before the kernel runs
      Next();
      input.constant = true;
    }
    return input;
  }

  absl::StatusOr<OutputStmt> ParseOutput() {
    Next();
    OutputStmt out;
    while (true) {
      auto name = ExpectName("a tensor name after 'output'");
      if (!name.ok()) return name.status();
      out.names.push_back({name->text, name->pos});
      if (!AtSymbol(",")) break;
      Next();
    }
    return out;
  }

  absl::StatusOr<AxisDecl> ParseAxis(absl::string_view owner) {
    auto name = ExpectName(absl::StrCat("an axis name in the axes of '", owner, "' (like i: 64)"));
    if (!name.ok()) return name.status();
    if (auto s = Expect(":", absl::StrCat("and an extent after axis '", name->text, "' of '", owner,
                                          "' (like ", name->text, ": 64)"));
        !s.ok())
      return s;
    auto extent = ParseExpr();
    if (!extent.ok()) return extent.status();
    return AxisDecl{name->text, name->pos, *std::move(extent)};
  }

  absl::StatusOr<ComputeStmt> ParseCompute() {
    Token name = Next();
    if (auto s = Expect("[", absl::StrCat("and the axes after '", name.text, "' (like ", name.text,
                                          "[i: 64, j: 64] = ...)"));
        !s.ok())
      return s;
    ComputeStmt stmt{name.text, {}, nullptr};
    while (true) {
      auto axis = ParseAxis(name.text);
      if (!axis.ok()) return axis.status();
      stmt.axes.push_back(*std::move(axis));
      if (!AtSymbol(",")) break;
      Next();
    }
    if (auto s = Expect("]", absl::StrCat("after the axes of '", name.text, "'")); !s.ok()) return s;
    if (auto s = Expect("=", absl::StrCat("after the axes of '", name.text, "'")); !s.ok()) return s;
    auto body = ParseExpr();
    if (!body.ok()) return body.status();
    stmt.body = *std::move(body);
    return stmt;
  }

  // ---- Expressions, lowest precedence first: || && comparison + * unary.
  absl::StatusOr<NodePtr> ParseExpr() { return ParseLeftAssoc(0); }

  // Levels of left-associative binary operators.
  static const std::vector<std::vector<absl::string_view>>& Levels() {
    static const auto* levels = new std::vector<std::vector<absl::string_view>>{
        {"||"}, {"&&"}, {}, {"+", "-"}, {"*", "/", "//", "%"}};
    return *levels;
  }

  absl::StatusOr<NodePtr> ParseLeftAssoc(size_t level) {
    if (level == Levels().size()) return ParseUnary();
    if (level == 2) return ParseComparison();
    auto lhs = ParseLeftAssoc(level + 1);
    if (!lhs.ok()) return lhs;
    while (true) {
      const std::vector<absl::string_view>& ops = Levels()[level];
      auto op = std::find_if(ops.begin(), ops.end(), [&](absl::string_view s) { return AtSymbol(s); });
      if (op == ops.end()) return lhs;
      Pos op_pos = Next().pos;
      auto rhs = ParseLeftAssoc(level + 1);
      if (!rhs.ok()) return rhs;
      Pos start = (*lhs)->pos;
      lhs = MakeNode(start, BinaryNode{std::string(*op), op_pos, *std::move(lhs), *std::move(rhs)});
      if (!lhs.ok()) return lhs;
    }
  }

  bool AtComparison() const {
    return std::any_of(std::begin(kComparisons), std::end(kComparisons),
                       [&](absl::string_view s) { return AtSymbol(s); });
  }

  absl::StatusOr<NodePtr> ParseComparison() {
    auto lhs = ParseLeftAssoc(3);
    if (!lhs.ok() || !AtComparison()) return lhs;
    Token op = Next();
    auto rhs = ParseLeftAssoc(3);
    if (!rhs.ok()) return rhs;
    if (AtComparison())
      return ErrorAt(Peek().pos, absl::StrCat("comparisons do not chain; write a ", op.text,
                                              " b && b ", Peek().text, " c instead"));
    Pos start = (*lhs)->pos;
    return MakeNode(start, BinaryNode{op.text, op.pos, *std::move(lhs), *std::move(rhs)});
  }

  // Every level of ( ), [ ], f( ) and unary operators passes through here,
  // so counting the calls bounds the parser's own recursion.
  absl::StatusOr<NodePtr> ParseUnary() {
    if (nesting_ >= kMaxHeight) return TooDeep(Peek().pos);
    ++nesting_;
    absl::StatusOr<NodePtr> result = ParseUnaryOrPrimary();
    --nesting_;
    return result;
  }

  absl::StatusOr<NodePtr> ParseUnaryOrPrimary() {
    if (AtSymbol("-") || AtSymbol("!")) {
      Token op = Next();
      auto operand = ParseUnary();
      if (!operand.ok()) return operand;
      return MakeNode(op.pos, UnaryNode{op.text, *std::move(operand)});
    }
    return ParsePrimary();
  }

  absl::StatusOr<NodePtr> ParsePrimary() {
    const Token& tok = Peek();
    if (tok.kind == TokenKind::kInt || tok.kind == TokenKind::kFloat) return ParseNumber();
    if (AtSymbol("(")) {
      Pos open = Next().pos;
      auto inner = ParseExpr();
      if (!inner.ok()) return inner;
      if (auto s = Expect(")", absl::StrCat("to close the '(' at line ", open.line, ", column ",
                                            open.column));
          !s.ok())
        return s;
      return inner;
    }
    if (tok.kind != TokenKind::kName)
      return Expected("an expression (a number, a name, A[...] or f(...))");
    Token name = Next();
    if (AtSymbol("[")) return ParseRead(name);
    if (AtSymbol("(")) return ParseCall(name);
    return MakeNode(name.pos, NameNode{name.text});
  }

  absl::StatusOr<NodePtr> ParseNumber() {
    Token tok = Next();
    NumberNode n;
    n.is_float = tok.kind == TokenKind::kFloat;
    bool ok = n.is_float ? absl::SimpleAtod(tok.text, &n.float_value)
                         : absl::SimpleAtoi(tok.text, &n.int_value);
    if (!ok)
      return ErrorAt(tok.pos, absl::StrCat("number ", tok.text, " is too large"));
    return MakeNode(tok.pos, n);
  }

  absl::StatusOr<NodePtr> ParseRead(const Token& name) {
    Next();  // [
    if (AtSymbol("]"))
      return ErrorAt(Peek().pos, absl::StrCat("'", name.text, "[]' has no indices; give one index "
                                              "per dimension of '", name.text, "'"));
    ReadNode read{name.text, {}};
    while (true) {
      auto index = ParseExpr();
      if (!index.ok()) return index;
      read.indices.push_back(*std::move(index));
      if (!AtSymbol(",")) break;
      Next();
    }
    if (auto s = Expect("]", absl::StrCat("after the indices of '", name.text, "'")); !s.ok())
      return s;
    return MakeNode(name.pos, std::move(read));
  }

  // fn(arg, ...) or a reduction fn(value, k: extent, ... [where condition]).
  absl::StatusOr<NodePtr> ParseCall(const Token& name) {
    Next();  // (
    CallNode call{name.text, {}, {}, nullptr};
    while (!AtSymbol(")")) {
      if (Peek().kind == TokenKind::kName && AtSymbol(":", 1)) {
        auto axis = ParseAxis(name.text);
        if (!axis.ok()) return axis.status();
        call.axes.push_back(*std::move(axis));
        if (AtName("where")) {
          Next();
          auto cond = ParseExpr();
          if (!cond.ok()) return cond;
          call.where = *std::move(cond);
          break;
        }
      } else if (!call.axes.empty()) {
        if (AtName("where"))
          return ErrorAt(Peek().pos, "write 'where' right after the last axis, without a comma "
                                     "(like k: 64 where k % 2 == 0)");
        return Expected(absl::StrCat("another reduction axis (name: extent) or ')' after the axes "
                                     "of '", name.text, "'"));
      } else {
        auto arg = ParseExpr();
        if (!arg.ok()) return arg;
        call.args.push_back(*std::move(arg));
      }
      if (!AtSymbol(",")) break;
      Next();
    }
    std::string context = call.where ? absl::StrCat("after the where condition of '", name.text, "'")
                                     : absl::StrCat("after the arguments of '", name.text, "'");
    if (auto s = Expect(")", context); !s.ok()) return s;
    return MakeNode(name.pos, std::move(call));
  }

  std::vector<Token> t_;
  size_t i_ = 0;
  int nesting_ = 0;  // ParseUnary calls in progress
};

}  // namespace

absl::StatusOr<Program> Parse(absl::string_view text) {
  auto tokens = Lex(text);
  if (!tokens.ok()) return tokens.status();
  return Parser(*std::move(tokens)).Run();
}

}  // namespace tuneforge::te::definition
