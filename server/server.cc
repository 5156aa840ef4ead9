#include "server/server.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "server/service/services.h"

namespace tuneforge::server {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path, const char* what) {
  std::ifstream in(path);
  if (!in) return absl::InvalidArgumentError(absl::StrCat("cannot read ", what, " '", path, "'"));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Credentials(const ServerOptions& o) {
  if (o.tls_cert_file.empty() != o.tls_key_file.empty())
    return absl::InvalidArgumentError("TLS needs both --tls-cert and --tls-key (or neither for plain text)");
  if (o.tls_cert_file.empty()) return grpc::InsecureServerCredentials();
  absl::StatusOr<std::string> cert = ReadFile(o.tls_cert_file, "TLS certificate");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadFile(o.tls_key_file, "TLS key");
  if (!key.ok()) return key.status();
  // gRPC says only that it cannot listen; name the file that is wrong.
  if (cert->find("-----BEGIN CERTIFICATE-----") == std::string::npos)
    return absl::InvalidArgumentError(absl::StrCat("--tls-cert '", o.tls_cert_file, "' holds no PEM certificate "
                                                   "(-----BEGIN CERTIFICATE-----); give the server's certificate"));
  if (key->find("-----BEGIN") == std::string::npos || key->find("PRIVATE KEY-----") == std::string::npos)
    return absl::InvalidArgumentError(absl::StrCat("--tls-key '", o.tls_key_file, "' holds no PEM private key "
                                                   "(-----BEGIN PRIVATE KEY-----); give the key of --tls-cert"));
  grpc::SslServerCredentialsOptions ssl;
  ssl.pem_key_cert_pairs.push_back({*key, *cert});
  return grpc::SslServerCredentials(ssl);
}

// Whether `listen` can be bound without TLS: when a TLS server cannot
// start there but this can, the certificate and key are what is wrong.
bool CanListenInPlainText(const std::string& listen) {
  grpc::ServerBuilder builder;
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  int port = 0;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &port);
  // gRPC starts no server without a service (every method answers
  // UNIMPLEMENTED here; nothing calls it).
  v1::Jobs::Service unused;
  builder.RegisterService(&unused);
  std::unique_ptr<grpc::Server> probe = builder.BuildAndStart();
  if (!probe) return false;
  probe->Shutdown();
  return port != 0;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Server>> Server::Start(const ServerOptions& options) {
  if (options.token.empty())
    return absl::InvalidArgumentError("the server needs a token; calls without it are refused");
  if (options.db_path.empty()) return absl::InvalidArgumentError("--db: give the record store's file");
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> creds = Credentials(options);
  if (!creds.ok()) return creds.status();

  std::unique_ptr<Server> s(new Server());
  absl::StatusOr<std::unique_ptr<RecordStore>> store = RecordStore::Open(options.db_path);
  if (!store.ok()) return store.status();
  s->store_ = *std::move(store);
  s->dispatcher_ = Dispatcher::Create(s->store_.get(), options.dispatcher);
  absl::StatusOr<std::unique_ptr<JobManager>> jobs =
      JobManager::Create(s->store_.get(), s->dispatcher_.get(), options.jobs);
  if (!jobs.ok()) return jobs.status();
  s->jobs_ = *std::move(jobs);
  s->dispatcher_->SetResultSink(s->jobs_.get());

  ServiceDeps deps{s->jobs_.get(), s->dispatcher_.get(), s->store_.get(), options.token,
                   options.log_calls};
  s->services_.push_back(MakeJobsService(deps));
  s->services_.push_back(MakeWorkersService(deps));
  s->services_.push_back(MakeRecordsService(deps));
  grpc::ServerBuilder builder;
  builder.SetMaxReceiveMessageSize(256 << 20);
  builder.SetMaxSendMessageSize(256 << 20);
  // gRPC sets SO_REUSEPORT by default: a second server on a taken port would
  // then "succeed" and share it. A taken port must be an error.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  if (!options.listen.empty()) builder.AddListeningPort(options.listen, *creds, &s->port_);
  for (auto& service : s->services_) builder.RegisterService(service.get());
  s->grpc_ = builder.BuildAndStart();
  if (!s->grpc_ || (!options.listen.empty() && s->port_ == 0)) {
    s->Shutdown();
    if (!options.tls_cert_file.empty() && CanListenInPlainText(options.listen))
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot listen with TLS on '", options.listen, "': the port is free, so the key --tls-key ",
          options.tls_key_file, " does not match the certificate --tls-cert ", options.tls_cert_file,
          " (or one of them is damaged); give the key the certificate was made for"));
    return absl::UnavailableError(absl::StrCat("cannot listen on '", options.listen,
                                               "': the address is invalid or the port is in use; "
                                               "pick another with --listen HOST:PORT"));
  }
  return s;
}

Server::~Server() { Shutdown(); }

std::shared_ptr<grpc::Channel> Server::InProcessChannel() {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(256 << 20);
  args.SetMaxSendMessageSize(256 << 20);
  return grpc_->InProcessChannel(args);
}

void Server::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  // Core first: it wakes long-polling leases and watch streams, so the gRPC
  // shutdown does not wait for them.
  if (jobs_) jobs_->Shutdown();
  if (dispatcher_) dispatcher_->Shutdown();
  if (grpc_) grpc_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

void Server::Wait() {
  if (grpc_) grpc_->Wait();
}

}  // namespace tuneforge::server
