#include "common/rpc/channel.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/rpc/auth.h"

namespace tuneforge::rpc {

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const ConnectOptions& options) {
  const std::string& a = options.address;
  size_t colon = a.rfind(':');
  if (a.empty() || colon == std::string::npos || colon == 0 || colon + 1 == a.size())
    return absl::InvalidArgumentError(
        absl::StrCat("server address '", a, "' is not HOST:PORT (e.g. 127.0.0.1:7070)"));
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(256 << 20);
  args.SetMaxSendMessageSize(256 << 20);
  if (options.max_reconnect_backoff_ms > 0) {
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, options.max_reconnect_backoff_ms);
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, std::min(100, options.max_reconnect_backoff_ms));
  }
  std::shared_ptr<grpc::ChannelCredentials> creds;
  if (options.tls_ca_file.empty()) {
    creds = grpc::InsecureChannelCredentials();
  } else {
    std::ifstream in(options.tls_ca_file);
    if (!in)
      return absl::InvalidArgumentError(
          absl::StrCat("cannot read TLS CA file '", options.tls_ca_file, "'"));
    std::stringstream ss;
    ss << in.rdbuf();
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = ss.str();
    creds = grpc::SslCredentials(ssl);
  }
  return grpc::CreateCustomChannel(a, creds, args);
}

std::unique_ptr<grpc::ClientContext> MakeContext(const std::string& token, absl::Duration deadline) {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->AddMetadata(kAuthMetadataKey, std::string(kBearerPrefix) + token);
  if (deadline != absl::InfiniteDuration())
    ctx->set_deadline(std::chrono::system_clock::now() +
                      std::chrono::milliseconds(absl::ToInt64Milliseconds(deadline)));
  return ctx;
}

absl::Status FromGrpc(const grpc::Status& status, const std::string& address) {
  if (status.ok()) return absl::OkStatus();
  std::string msg = status.error_message();
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE)
    msg = absl::StrCat("cannot reach the server", address.empty() ? "" : " at " + address, " (", msg,
                       "); check that tuneforge-server runs and the address is right");
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED)
    msg = absl::StrCat("the server did not answer in time", address.empty() ? "" : " (" + address + ")",
                       ": ", msg);
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), msg);
}

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

}  // namespace tuneforge::rpc
