#include "client/cli_error.h"

#include <iostream>

#include "client/json_text.h"

namespace tuneforge::cli {

int Succeed(const Output& out, const Json& result, const std::string& text) {
  if (out.json) {
    std::cout << JsonText(result) << "\n";
  } else {
    std::cout << text;
    if (!text.empty() && text.back() != '\n') std::cout << "\n";
  }
  return 0;
}

int Fail(const Output& out, const std::string& message, Json partial) {
  // One line: newlines inside a message (a printed loop nest) would break it.
  std::string line = message;
  for (char& c : line)
    if (c == '\n') c = ' ';
  if (out.json) {
    partial["error"] = line;
    std::cout << JsonText(partial) << "\n";
  }
  std::cerr << "error: " << line << "\n";
  return 1;
}

int Fail(const Output& out, const absl::Status& status, Json partial) {
  return Fail(out, std::string(status.message()), std::move(partial));
}

}  // namespace tuneforge::cli
