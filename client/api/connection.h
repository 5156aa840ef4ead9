// A connection to a tuneforge server, as every client of the API uses it:
// the channel (TCP, TLS or in-process), the token, and the deadlines of each
// kind of call, set here and nowhere else.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/rpc/channel.h"
#include "grpcpp/grpcpp.h"

namespace tuneforge::client {

// How long each kind of call may take before the client gives up.
enum class CallKind {
  kUnary,  // get, submit, cancel, list, best: the server answers at once
  kBulk,   // export / import of many records
  kWatch,  // a progress stream that lasts as long as its job
};

class Connection {
 public:
  // A channel to options.address. Errors: a malformed address, an
  // unreadable CA file, an empty token.
  static absl::StatusOr<Connection> Open(const rpc::ConnectOptions& options);
  // Over an existing channel (the embedded server's in-process channel).
  static Connection OverChannel(std::shared_ptr<grpc::Channel> channel, std::string token,
                                std::string address);

  // A context carrying the token, with the deadline of `kind`.
  std::unique_ptr<grpc::ClientContext> Context(CallKind kind) const;
  // A gRPC status as absl::Status, naming the server when it was not reached.
  absl::Status Check(const grpc::Status& status) const;

  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  const std::string& address() const { return address_; }

 private:
  Connection(std::shared_ptr<grpc::Channel> channel, std::string token, std::string address,
             rpc::Transport transport)
      : channel_(std::move(channel)),
        token_(std::move(token)),
        address_(std::move(address)),
        transport_(transport) {}

  std::shared_ptr<grpc::Channel> channel_;
  std::string token_;
  std::string address_;
  rpc::Transport transport_;
};

}  // namespace tuneforge::client
