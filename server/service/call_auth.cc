#include "server/service/call_auth.h"

#include <string_view>

#include "absl/strings/match.h"
#include "common/rpc/auth.h"

namespace tuneforge::server {

absl::Status CheckToken(const grpc::ServerContext& context, const std::string& token) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(rpc::kAuthMetadataKey);
  if (it == metadata.end())
    return absl::UnauthenticatedError(
        "no token: the call carries no 'authorization: Bearer <token>' metadata; give the client "
        "--token-file FILE (the server's token file) or set TUNEFORGE_TOKEN");
  std::string_view value(it->second.data(), it->second.size());
  std::string_view prefix(rpc::kBearerPrefix);
  // The scheme is case-insensitive (RFC 7235); the token is not.
  if (value.size() < prefix.size() ||
      !absl::EqualsIgnoreCase(absl::string_view(value.data(), prefix.size()),
                              absl::string_view(prefix.data(), prefix.size())))
    return absl::UnauthenticatedError(
        "malformed authorization metadata: expected 'Bearer <token>'; give the client --token-file "
        "FILE or set TUNEFORGE_TOKEN");
  // An empty server token would let an empty client token through.
  if (token.empty() || !rpc::ConstantTimeEquals(value.substr(prefix.size()), token))
    return absl::UnauthenticatedError(
        "wrong token: this server was started with another one; use its token file (--token-file, "
        "next to its database as FILE.token unless it was given one) or TUNEFORGE_TOKEN");
  return absl::OkStatus();
}

}  // namespace tuneforge::server
