// Client side of every RPC (CLI, workers, the embedded mode): one place that
// makes channels (plain or TLS), attaches the token, sets deadlines and
// turns gRPC errors into absl::Status.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"

namespace tuneforge::rpc {

struct ConnectOptions {
  std::string address;      // "HOST:PORT"
  std::string token;
  std::string tls_ca_file;  // empty: plain text (loopback, trusted networks)
  // Caps gRPC's own reconnect backoff while the server is unreachable (0:
  // gRPC's default, which grows to 120 s). Workers set a few seconds so a
  // restarted server is found again quickly.
  int max_reconnect_backoff_ms = 0;
};

// Errors: an empty or malformed address, an unreadable CA file.
absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const ConnectOptions& options);

// A context for one call: the token in the metadata and a deadline
// (absl::InfiniteDuration() for none, e.g. a long stream).
std::unique_ptr<grpc::ClientContext> MakeContext(const std::string& token,
                                                 absl::Duration deadline = absl::Seconds(30));

// How a channel talks to its server, for what an unreachable server's error
// says: a plain-text channel whose connection the server closes at once is
// most likely talking to a TLS server.
enum class Transport { kUnknown, kPlainText, kTls };
inline Transport TransportOf(const ConnectOptions& options) {
  return options.tls_ca_file.empty() ? Transport::kPlainText : Transport::kTls;
}

// INVALID_ARGUMENT stays INVALID_ARGUMENT, etc.; the message says which
// server the call went to when it could not be reached, and why where gRPC's
// words allow it (a refused connection, a failed TLS handshake, a TLS
// server hung up on by a plain-text client).
absl::Status FromGrpc(const grpc::Status& status, const std::string& address = "",
                      Transport transport = Transport::kUnknown);

// The connection failed in a way that TLS settings explain (the server
// wants TLS and the client speaks plain text, or the handshake failed);
// retrying will not help.
bool IsTlsMismatch(const absl::Status& status);
grpc::Status ToGrpc(const absl::Status& status);

}  // namespace tuneforge::rpc
