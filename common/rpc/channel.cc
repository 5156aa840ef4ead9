#include "common/rpc/channel.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
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
    // gRPC takes a file that is no PEM certificate without a word and then
    // fails every call with "empty address list".
    if (ss.str().find("-----BEGIN CERTIFICATE-----") == std::string::npos)
      return absl::InvalidArgumentError(absl::StrCat(
          "TLS CA file '", options.tls_ca_file, "' holds no PEM certificate (-----BEGIN CERTIFICATE-----); "
          "give --tls-ca the CA certificate that signed the server's --tls-cert"));
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

namespace {

// Marks the messages IsTlsMismatch recognises.
constexpr char kTlsMarker[] = "TLS settings";

bool Contains(const std::string& text, const char* part) {
  return absl::StrContains(absl::AsciiStrToLower(text), part);
}

// Why a server could not be reached, from gRPC's message.
std::string Unreachable(const std::string& msg, const std::string& address, Transport transport) {
  const std::string at = address.empty() ? "" : " at " + address;
  if (Contains(msg, "handshake") || Contains(msg, "ssl_error") || Contains(msg, "certificate"))
    return absl::StrCat("the TLS handshake with the server", at, " failed (", msg, "): check the ", kTlsMarker,
                        ": give --tls-ca the CA certificate that signed the server's --tls-cert, or drop "
                        "--tls-ca if the server runs without TLS");
  const bool hung_up = Contains(msg, "socket closed") || Contains(msg, "connection reset") ||
                       Contains(msg, "end of file") || Contains(msg, "connection closed");
  if (transport == Transport::kPlainText && hung_up && !Contains(msg, "refused"))
    return absl::StrCat("the server", at, " closed the connection without answering (", msg, "): it most likely "
                        "runs with TLS (--tls-cert), which needs matching ", kTlsMarker,
                        " here: give --tls-ca CA.pem, the CA certificate that signed its --tls-cert");
  return absl::StrCat("cannot reach the server", at, " (", msg,
                      "); check that tuneforge-server runs and the address is right");
}

}  // namespace

bool IsTlsMismatch(const absl::Status& status) {
  return absl::IsUnavailable(status) && absl::StrContains(status.message(), kTlsMarker);
}

absl::Status FromGrpc(const grpc::Status& status, const std::string& address, Transport transport) {
  if (status.ok()) return absl::OkStatus();
  std::string msg = status.error_message();
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE) msg = Unreachable(msg, address, transport);
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
