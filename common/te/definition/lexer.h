// Tokens of the compute-definition language (definition.h describes it).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tuneforge::te::definition {

// Position in the source, both 1-based.
struct Pos {
  int line = 0;
  int column = 0;
};

enum class TokenKind { kName, kInt, kFloat, kSymbol, kNewline, kEnd };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;  // the name, the number as written, or the symbol ("//", "<=", ...)
  Pos pos;
};

// Splits the text into tokens. Comments (# to the end of the line) vanish;
// line ends become kNewline tokens except inside () and [] and after a line
// that ends in an operator, '=' or ',', so a statement may span lines there.
// Errors name the line and column.
absl::StatusOr<std::vector<Token>> Lex(absl::string_view text);

// How a token reads in an error message: "','", "name 'foo'", "number 3",
// "end of line", "end of file".
std::string Describe(const Token& token);

// "line 3, column 17: " + message, as an InvalidArgument status.
absl::Status ErrorAt(Pos pos, absl::string_view message);

}  // namespace tuneforge::te::definition
