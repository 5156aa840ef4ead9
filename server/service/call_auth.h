// The token check every handler starts with: the call's metadata must hold
// "authorization: Bearer <token>" with the server's token.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "grpcpp/server_context.h"

namespace tuneforge::server {

// OK, or UNAUTHENTICATED: "no token: ..." (with how to give one),
// "malformed authorization ..." or "wrong token ...". The comparison takes
// the same time wherever the tokens differ.
absl::Status CheckToken(const grpc::ServerContext& context, const std::string& token);

}  // namespace tuneforge::server
