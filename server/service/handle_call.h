// The one shape of every handler, unary or streaming:
//   check the token -> body (validate the request at the edge, call the
//   core, fill the response) -> log the call (--verbose) -> convert the
//   absl::Status to a grpc::Status.
// A body is a callable returning absl::Status; it never runs for a caller
// without the token.
#pragma once

#include <string>
#include "absl/strings/string_view.h"
#include <utility>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "common/rpc/channel.h"
#include "grpcpp/server_context.h"
#include "server/service/call_auth.h"
#include "server/service/call_log.h"

namespace tuneforge::server {

// What every handler needs besides its core: the token and whether to log.
struct CallEnv {
  std::string token;
  bool log_calls = false;
};

template <typename Body>
grpc::Status HandleCall(const CallEnv& env, grpc::ServerContext* context, absl::string_view method,
                        Body&& body) {
  absl::Time start = absl::Now();
  absl::Status status = CheckToken(*context, env.token);
  if (status.ok()) status = std::forward<Body>(body)();
  if (env.log_calls) LogCall(method, status, absl::Now() - start, context->peer());
  return rpc::ToGrpc(status);
}

}  // namespace tuneforge::server
