#include "common/rpc/auth.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace tuneforge::rpc {

absl::StatusOr<std::string> LoadToken(const std::string& token_file) {
  if (!token_file.empty()) {
    std::ifstream in(token_file);
    if (!in)
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read token file '", token_file, "'; check the path and its permissions"));
    std::stringstream ss;
    ss << in.rdbuf();
    std::string token(absl::StripAsciiWhitespace(ss.str()));
    if (token.empty())
      return absl::InvalidArgumentError(
          absl::StrCat("token file '", token_file, "' is empty; put the cluster token in it"));
    return token;
  }
  if (const char* env = std::getenv("TUNEFORGE_TOKEN"); env && *env)
    return std::string(absl::StripAsciiWhitespace(env));
  return absl::InvalidArgumentError(
      "no token: give --token-file FILE (the server's token file) or set TUNEFORGE_TOKEN");
}

absl::StatusOr<std::string> GenerateToken() {
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::InternalError("cannot open /dev/urandom to make a token");
  unsigned char bytes[32];
  ssize_t n = read(fd, bytes, sizeof(bytes));
  close(fd);
  if (n != static_cast<ssize_t>(sizeof(bytes))) return absl::InternalError("short read from /dev/urandom");
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

absl::Status WriteTokenFile(const std::string& path, const std::string& token) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return absl::InvalidArgumentError(absl::StrCat("cannot write token file '", path, "'"));
  fchmod(fd, 0600);
  std::string text = token + "\n";
  bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  if (!ok) return absl::InternalError(absl::StrCat("short write to token file '", path, "'"));
  return absl::OkStatus();
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  // Always walk the longer length so the time does not reveal a prefix.
  size_t n = std::max(a.size(), b.size());
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= x ^ y;
  }
  return diff == 0;
}

}  // namespace tuneforge::rpc
