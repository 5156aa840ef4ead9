#include "client/server_args.h"

#include "common/rpc/auth.h"

namespace tuneforge::cli {

void AddServerFlags(CLI::App* cmd, ServerArgs* args) {
  cmd->add_option("--server", args->address, "HOST:PORT of tuneforge-server");
  cmd->add_option("--token-file", args->token_file,
                  "file holding the cluster token (default: $TUNEFORGE_TOKEN)");
  cmd->add_option("--tls-ca", args->tls_ca_file, "CA certificate of a TLS server (PEM)");
}

absl::StatusOr<client::Connection> Connect(const ServerArgs& args) {
  if (args.address.empty())
    return absl::InvalidArgumentError(
        "no server: give --server HOST:PORT, the address tuneforge-server listens on "
        "(e.g. --server 127.0.0.1:7070)");
  absl::StatusOr<std::string> token = rpc::LoadToken(args.token_file);
  if (!token.ok()) return token.status();
  rpc::ConnectOptions options;
  options.address = args.address;
  options.token = *std::move(token);
  options.tls_ca_file = args.tls_ca_file;
  return client::Connection::Open(options);
}

}  // namespace tuneforge::cli
