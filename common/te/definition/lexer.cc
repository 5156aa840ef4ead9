#include "common/te/definition/lexer.h"

#include <cctype>

#include "absl/strings/str_cat.h"

namespace tuneforge::te::definition {
namespace {

// Longest symbols first so "//" wins over "/".
constexpr absl::string_view kSymbols[] = {
    "//", "==", "!=", "<=", ">=", "&&", "||", "(", ")", "[", "]", ",", ":",
    "=",  "+",  "-",  "*",  "/",  "%",  "<",  ">",  "!",
};

// A line that ends in an operator, '=' or ',' continues on the next line.
bool ContinuesLine(const Token& last) {
  return last.kind == TokenKind::kSymbol && last.text != ")" && last.text != "]";
}

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

class Lexer {
 public:
  explicit Lexer(absl::string_view text) : text_(text) {}

  absl::StatusOr<std::vector<Token>> Run() {
    while (i_ < text_.size()) {
      char c = text_[i_];
      if (c == '\n') {
        if (depth_ == 0 && !tokens_.empty() && tokens_.back().kind != TokenKind::kNewline &&
            !ContinuesLine(tokens_.back()))
          tokens_.push_back({TokenKind::kNewline, "\n", Here()});
        Advance();
      } else if (c == ' ' || c == '\t' || c == '\r') {
        Advance();
      } else if (c == '#') {
        while (i_ < text_.size() && text_[i_] != '\n') Advance();
      } else if (IsNameStart(c)) {
        Pos at = Here();
        size_t start = i_;
        while (i_ < text_.size() && IsNameChar(text_[i_])) Advance();
        tokens_.push_back({TokenKind::kName, std::string(text_.substr(start, i_ - start)), at});
      } else if (IsDigit(c)) {
        LexNumber();
      } else if (auto s = LexSymbol(); !s.ok()) {
        return s;
      }
    }
    tokens_.push_back({TokenKind::kEnd, "", Here()});
    return tokens_;
  }

 private:
  Pos Here() const { return {line_, column_}; }
  void Advance() {
    if (text_[i_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++i_;
  }

  // digits [. digits] [e [+-] digits]; a '.' or exponent makes it a float.
  void LexNumber() {
    Pos at = Here();
    size_t start = i_;
    bool is_float = false;
    while (i_ < text_.size() && IsDigit(text_[i_])) Advance();
    if (i_ + 1 < text_.size() && text_[i_] == '.' && IsDigit(text_[i_ + 1])) {
      is_float = true;
      Advance();
      while (i_ < text_.size() && IsDigit(text_[i_])) Advance();
    }
    if (i_ < text_.size() && (text_[i_] == 'e' || text_[i_] == 'E')) {
      size_t j = i_ + 1;
      if (j < text_.size() && (text_[j] == '+' || text_[j] == '-')) ++j;
      if (j < text_.size() && IsDigit(text_[j])) {
        is_float = true;
        while (i_ < j) Advance();
        while (i_ < text_.size() && IsDigit(text_[i_])) Advance();
      }
    }
    tokens_.push_back({is_float ? TokenKind::kFloat : TokenKind::kInt,
                       std::string(text_.substr(start, i_ - start)), at});
  }

  absl::Status LexSymbol() {
    Pos at = Here();
    for (absl::string_view sym : kSymbols) {
      if (text_.substr(i_, sym.size()) != sym) continue;
      if (sym == "(" || sym == "[") ++depth_;
      if ((sym == ")" || sym == "]") && depth_ > 0) --depth_;
      for (size_t k = 0; k < sym.size(); ++k) Advance();
      tokens_.push_back({TokenKind::kSymbol, std::string(sym), at});
      return absl::OkStatus();
    }
    char c = text_[i_];
    std::string hint;
    if (c == '&') hint = "; did you mean '&&'?";
    if (c == '|') hint = "; did you mean '||'?";
    if (c == '.') hint = "; write decimals with a leading digit, like 0.5";
    if (static_cast<unsigned char>(c) < 32 || static_cast<unsigned char>(c) > 126)
      return ErrorAt(at, absl::StrCat("unexpected byte 0x", absl::Hex(static_cast<unsigned char>(c)),
                                      "; definitions are plain ASCII text"));
    return ErrorAt(at, absl::StrCat("unexpected character '", std::string(1, c), "'", hint));
  }

  absl::string_view text_;
  size_t i_ = 0;
  int line_ = 1, column_ = 1;
  int depth_ = 0;  // open ( and [: line ends inside them do not end a statement
  std::vector<Token> tokens_;
};

}  // namespace

absl::StatusOr<std::vector<Token>> Lex(absl::string_view text) { return Lexer(text).Run(); }

std::string Describe(const Token& token) {
  switch (token.kind) {
    case TokenKind::kName: return absl::StrCat("name '", token.text, "'");
    case TokenKind::kInt:
    case TokenKind::kFloat: return absl::StrCat("number ", token.text);
    case TokenKind::kSymbol: return absl::StrCat("'", token.text, "'");
    case TokenKind::kNewline: return "end of line";
    case TokenKind::kEnd: return "end of file";
  }
  return "?";
}

absl::Status ErrorAt(Pos pos, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("line ", pos.line, ", column ", pos.column, ": ", message));
}

}  // namespace tuneforge::te::definition
