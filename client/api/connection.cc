#include "client/api/connection.h"

namespace tuneforge::client {
namespace {

absl::Duration DeadlineOf(CallKind kind) {
  switch (kind) {
    case CallKind::kUnary:
      return absl::Seconds(30);
    case CallKind::kBulk:
      return absl::Minutes(30);
    case CallKind::kWatch:
      return absl::InfiniteDuration();  // a job may tune for hours
  }
  return absl::Seconds(30);
}

}  // namespace

absl::StatusOr<Connection> Connection::Open(const rpc::ConnectOptions& options) {
  if (options.token.empty())
    return absl::InvalidArgumentError(
        "no token: give --token-file FILE (the server's token file) or set TUNEFORGE_TOKEN");
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = rpc::MakeChannel(options);
  if (!channel.ok()) return channel.status();
  return Connection(*std::move(channel), options.token, options.address, rpc::TransportOf(options));
}

Connection Connection::OverChannel(std::shared_ptr<grpc::Channel> channel, std::string token,
                                   std::string address) {
  return Connection(std::move(channel), std::move(token), std::move(address), rpc::Transport::kUnknown);
}

std::unique_ptr<grpc::ClientContext> Connection::Context(CallKind kind) const {
  return rpc::MakeContext(token_, DeadlineOf(kind));
}

absl::Status Connection::Check(const grpc::Status& status) const {
  return rpc::FromGrpc(status, address_, transport_);
}

}  // namespace tuneforge::client
