// The cluster token: how clients and workers prove they belong, and how the
// server checks it. Every call carries "authorization: Bearer <token>".
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace tuneforge::rpc {

inline constexpr char kAuthMetadataKey[] = "authorization";
inline constexpr char kBearerPrefix[] = "Bearer ";

// The token from `token_file` (surrounding whitespace trimmed), else from
// $TUNEFORGE_TOKEN. Errors: an unreadable or empty file, no token at all
// (the message says how to give one).
absl::StatusOr<std::string> LoadToken(const std::string& token_file);

// A fresh random token (32 bytes from /dev/urandom, hex).
absl::StatusOr<std::string> GenerateToken();
// Writes a token file readable only by its owner (mode 0600).
absl::Status WriteTokenFile(const std::string& path, const std::string& token);

// Compares in time that depends only on the lengths, not on where the
// strings first differ.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace tuneforge::rpc
