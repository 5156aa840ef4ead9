// tuneforge-server: the scheduler server on a port (INTERFACE.md).
//
//   tuneforge-server --listen HOST:PORT --db FILE [--token-file F]
//                    [--tls-cert F --tls-key F] [--verbose]
//
// Prints one line once it accepts calls; SIGTERM or SIGINT shut it down
// gracefully (exit 0). Any startup problem is one line naming the problem
// and the fix, and a non-zero exit.
#include <signal.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "grpc/support/log.h"
#include "absl/strings/str_cat.h"
#include "common/rpc/auth.h"
#include "server/server.h"

namespace {

using tuneforge::server::Server;
using tuneforge::server::ServerOptions;

struct Flags {
  std::string listen = "127.0.0.1:7070";
  std::string db;
  std::string token_file;
  std::string tls_cert;
  std::string tls_key;
  bool verbose = false;
};

// gRPC's own log lines (e.g. a failed bind) would break the one-line error
// and the quiet default; --verbose keeps them.
void DropGrpcLog(gpr_log_func_args*) {}

int Fail(const std::string& message) {
  std::cerr << "tuneforge-server: error: " << message << "\n";
  return 1;
}

absl::Status CheckListenAddress(const std::string& listen) {
  size_t colon = listen.rfind(':');
  int port = -1;
  if (colon == std::string::npos || colon == 0 ||
      !absl::SimpleAtoi(absl::string_view(listen).substr(colon + 1), &port) || port < 0 || port > 65535)
    return absl::InvalidArgumentError(absl::StrCat("--listen '", listen,
                                                   "' is not HOST:PORT; use e.g. 127.0.0.1:7070 (port 0 "
                                                   "picks a free one)"));
  return absl::OkStatus();
}

// The database's folder must exist: say so before SQLite gives a vaguer error.
absl::Status CheckDatabasePath(const std::string& db) {
  std::filesystem::path parent = std::filesystem::path(db).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
    return absl::InvalidArgumentError(absl::StrCat("cannot open database '", db, "': folder '",
                                                   parent.string(),
                                                   "' does not exist; create it or give another --db"));
  return absl::OkStatus();
}

struct TokenChoice {
  std::string token;
  std::string file;
};

// --token-file: the token in it. Without: the token in DB.token, made on
// the first start (mode 0600) and kept, so that workers and clients stay
// valid across restarts on the same database.
absl::StatusOr<TokenChoice> ResolveToken(const Flags& flags) {
  if (!flags.token_file.empty()) {
    absl::StatusOr<std::string> token = tuneforge::rpc::LoadToken(flags.token_file);
    if (!token.ok()) return token.status();
    return TokenChoice{*token, flags.token_file};
  }
  std::string file = flags.db + ".token";
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) {
    absl::StatusOr<std::string> token = tuneforge::rpc::LoadToken(file);
    if (!token.ok())
      return absl::InvalidArgumentError(absl::StrCat(token.status().message(),
                                                     " (delete it to make a new token, or give --token-file)"));
    return TokenChoice{*token, file};
  }
  absl::StatusOr<std::string> token = tuneforge::rpc::GenerateToken();
  if (!token.ok()) return token.status();
  if (absl::Status s = tuneforge::rpc::WriteTokenFile(file, *token); !s.ok())
    return absl::InvalidArgumentError(absl::StrCat(s.message(), "; check that the database's folder is "
                                                                "writable, or give --token-file"));
  return TokenChoice{*token, file};
}

int Run(const Flags& flags) {
  if (!flags.verbose) gpr_set_log_function(DropGrpcLog);
  if (absl::Status s = CheckListenAddress(flags.listen); !s.ok()) return Fail(std::string(s.message()));
  if (flags.tls_cert.empty() != flags.tls_key.empty())
    return Fail("TLS needs both --tls-cert FILE and --tls-key FILE (or neither, for plain text)");
  if (absl::Status s = CheckDatabasePath(flags.db); !s.ok()) return Fail(std::string(s.message()));
  absl::StatusOr<TokenChoice> token = ResolveToken(flags);
  if (!token.ok()) return Fail(std::string(token.status().message()));

  // Signals are taken by sigwait below; block them before any thread starts
  // so that no gRPC thread receives them instead.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  ServerOptions options;
  options.listen = flags.listen;
  options.db_path = flags.db;
  options.token = token->token;
  options.tls_cert_file = flags.tls_cert;
  options.tls_key_file = flags.tls_key;
  options.log_calls = flags.verbose;
  absl::StatusOr<std::unique_ptr<Server>> server = Server::Start(options);
  if (!server.ok()) return Fail(std::string(server.status().message()));

  std::string host = flags.listen.substr(0, flags.listen.rfind(':'));
  bool loopback = host == "127.0.0.1" || host == "localhost" || host == "[::1]";
  if (!loopback && flags.tls_cert.empty())
    std::cerr << "tuneforge-server: warning: listening on " << host
              << " without TLS: the token crosses the network in clear text; give --tls-cert and "
                 "--tls-key\n";
  std::cout << "tuneforge-server listening on " << host << ":" << (*server)->port() << ", database "
            << flags.db << ", token file " << token->file << (flags.tls_cert.empty() ? "" : ", TLS")
            << std::endl;

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  if (flags.verbose) std::cerr << "tuneforge-server: signal " << signal_number << ", shutting down\n";
  (*server)->Shutdown();
  server->reset();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  CLI::App app{"tuneforge-server: the tuning service's scheduler (jobs, workers, record store)"};
  app.add_option("--listen", flags.listen, "HOST:PORT to listen on (port 0: a free one)")
      ->capture_default_str();
  app.add_option("--db", flags.db, "the record store (SQLite file; created if missing)")->required();
  app.add_option("--token-file", flags.token_file,
                 "file with the cluster token (default: DB.token, made on the first start)");
  app.add_option("--tls-cert", flags.tls_cert, "PEM certificate chain: serve TLS (with --tls-key)");
  app.add_option("--tls-key", flags.tls_key, "PEM private key of --tls-cert");
  app.add_flag("--verbose,-v", flags.verbose, "log every call (method, status, latency) to stderr");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return Fail(absl::StrCat(e.what(), "; run 'tuneforge-server --help'"));
  }
  return Run(flags);
}
