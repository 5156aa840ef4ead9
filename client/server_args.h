// The flags every command that talks to a server shares (INTERFACE.md):
// --server HOST:PORT, --token-file F (else $TUNEFORGE_TOKEN), --tls-ca F.
#pragma once

#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "client/api/connection.h"

namespace tuneforge::cli {

struct ServerArgs {
  std::string address;     // --server
  std::string token_file;  // --token-file
  std::string tls_ca_file;  // --tls-ca

  bool given() const { return !address.empty(); }
};

void AddServerFlags(CLI::App* cmd, ServerArgs* args);

// Errors: no --server, a malformed address, no token, an unreadable token
// or CA file; each says how to fix it. (Whether the server answers shows
// on the first call.)
absl::StatusOr<client::Connection> Connect(const ServerArgs& args);

}  // namespace tuneforge::cli
