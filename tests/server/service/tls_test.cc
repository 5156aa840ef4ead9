// TLS: the server started with a self-signed certificate (made here with the
// openssl command) serves a TLS client that trusts it, and refuses a
// plain-text client and one that trusts another certificate.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "common/rpc/auth.h"
#include "common/rpc/channel.h"
#include "tests/server/service/rpc_calls.h"
#include "tests/server/service/server_process.h"

namespace tuneforge::server::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kOpenssl[] = "/usr/bin/openssl";

// A self-signed certificate for 127.0.0.1 and localhost: `name`.pem and `name`.key in `dir`.
bool MakeCertificate(const TempDir& dir, const std::string& name) {
  std::string command = absl::StrCat(
      kOpenssl, " req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost",
      " -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout ", dir.File(name + ".key"), " -out ",
      dir.File(name + ".pem"), " >/dev/null 2>&1");
  return std::system(command.c_str()) == 0;
}

grpc::Status ListJobsOver(const std::string& address, const std::string& ca_file) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = rpc::MakeChannel({address, kToken, ca_file});
  if (!channel.ok()) return grpc::Status(grpc::StatusCode::INTERNAL, std::string(channel.status().message()));
  Stubs stubs(*channel);
  return CallListJobs(stubs, Authed(absl::Seconds(5)).get(), {});
}

TEST(TlsTest, ServesTlsClientsThatTrustItAndRefusesOthers) {
  ASSERT_EQ(access(kOpenssl, X_OK), 0) << "the openssl command is missing; deploy/setup.sh installs it";
  TempDir dir;
  ASSERT_TRUE(MakeCertificate(dir, "server"));
  ASSERT_TRUE(MakeCertificate(dir, "other"));
  std::string token_file = dir.File("token");
  ASSERT_TRUE(rpc::WriteTokenFile(token_file, kToken).ok());

  absl::StatusOr<std::unique_ptr<ServerProcess>> server = ServerProcess::Spawn(
      {"--listen", "127.0.0.1:0", "--db", dir.File("tf.db"), "--token-file", token_file, "--tls-cert",
       dir.File("server.pem"), "--tls-key", dir.File("server.key")});
  ASSERT_TRUE(server.ok()) << server.status();
  absl::StatusOr<std::string> ready = (*server)->ReadLine(absl::Seconds(30));
  ASSERT_TRUE(ready.ok()) << ready.status();
  EXPECT_THAT(*ready, HasSubstr(", TLS"));
  int port = PortOfReadyLine(*ready);
  ASSERT_NE(port, 0) << *ready;

  for (std::string host : {"127.0.0.1", "localhost"}) {
    std::string address = absl::StrCat(host, ":", port);
    grpc::Status trusted = ListJobsOver(address, dir.File("server.pem"));
    EXPECT_TRUE(trusted.ok()) << host << ": " << trusted.error_message();
    grpc::Status plain = ListJobsOver(address, "");
    EXPECT_EQ(plain.error_code(), grpc::StatusCode::UNAVAILABLE) << host << ": " << plain.error_message();
    grpc::Status untrusted = ListJobsOver(address, dir.File("other.pem"));
    EXPECT_EQ(untrusted.error_code(), grpc::StatusCode::UNAVAILABLE) << host << ": " << untrusted.error_message();
  }
  // The token is still required over TLS.
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      rpc::MakeChannel({absl::StrCat("127.0.0.1:", port), kToken, dir.File("server.pem")});
  ASSERT_TRUE(channel.ok());
  Stubs stubs(*channel);
  EXPECT_EQ(CallListJobs(stubs, NoToken().get(), {}).error_code(), grpc::StatusCode::UNAUTHENTICATED);

  (*server)->Signal(SIGTERM);
  absl::StatusOr<int> code = (*server)->WaitExit(absl::Seconds(10));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0);
}

}  // namespace
}  // namespace tuneforge::server::testing
