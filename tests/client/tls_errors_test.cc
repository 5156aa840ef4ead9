// Misconfigured TLS and token set-ups are named for what they are: a plain
// client or worker against a TLS server, a CA file that is no PEM
// certificate, a CA that did not sign the server's certificate, a server
// whose key does not match its certificate.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tests/client/cli_child.h"

namespace tuneforge::client_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kOpenssl[] = "/usr/bin/openssl";

// A self-signed certificate for 127.0.0.1: `name`.pem and `name`.key in `dir`.
bool MakeCertificate(const std::string& dir, const std::string& name) {
  std::string command =
      absl::StrCat(kOpenssl, " req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost",
                   " -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout ", dir, "/", name, ".key -out ", dir,
                   "/", name, ".pem >/dev/null 2>&1");
  return std::system(command.c_str()) == 0;
}

absl::StatusOr<std::unique_ptr<ChildProcess>> Start(const std::string& dir, const std::string& binary,
                                                    std::vector<std::string> args) {
  static int runs = 0;
  ++runs;
  service_test::ChildOptions options;
  options.argv = {service_test::BinDir() + "/" + binary};
  options.argv.insert(options.argv.end(), args.begin(), args.end());
  options.stdout_path = absl::StrCat(dir, "/", binary, "-", runs, ".out");
  options.stderr_path = absl::StrCat(dir, "/", binary, "-", runs, ".err");
  options.unset_env = {"TUNEFORGE_TOKEN"};
  return ChildProcess::Start(options);
}

class TlsErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(access(kOpenssl, X_OK), 0) << "the openssl command is missing; deploy/setup.sh installs it";
    dir_ = MakeTempDir();
    ASSERT_TRUE(MakeCertificate(dir_, "server"));
    ASSERT_TRUE(MakeCertificate(dir_, "other"));
    token_ = dir_ + "/token";
    std::ofstream(token_) << "tls-errors-test-token-0123456789\n";
  }
  // A TLS server on a free port; returns its address.
  std::string StartTlsServer() {
    absl::StatusOr<std::unique_ptr<ChildProcess>> server =
        Start(dir_, "tuneforge-server",
              {"--listen", "127.0.0.1:0", "--db", dir_ + "/tf.db", "--token-file", token_, "--tls-cert",
               dir_ + "/server.pem", "--tls-key", dir_ + "/server.key"});
    EXPECT_TRUE(server.ok()) << server.status();
    if (!server.ok()) return "";
    server_ = *std::move(server);
    absl::StatusOr<std::string> port =
        server_->WaitForOutput(std::regex("listening on 127\\.0\\.0\\.1:([0-9]+)"), absl::Seconds(30));
    EXPECT_TRUE(port.ok()) << server_->OutputTail();
    return port.ok() ? "127.0.0.1:" + *port : "";
  }
  CliResult Cli(const std::string& address, std::vector<std::string> extra) {
    std::vector<std::string> args = {"workers", "--server", address, "--token-file", token_};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunCliIn(dir_, args, absl::Seconds(60));
  }
  std::string dir_;
  std::string token_;
  std::unique_ptr<ChildProcess> server_;
};

TEST_F(TlsErrorsTest, ClientsAreToldWhatIsWrongWithTheirTls) {
  const std::string address = StartTlsServer();
  ASSERT_FALSE(address.empty());
  CliResult trusted = Cli(address, {"--tls-ca", dir_ + "/server.pem", "--json"});
  ASSERT_EQ(trusted.exit_code, 0) << trusted.err;

  // Plain text against TLS: not "check that tuneforge-server runs".
  CliResult plain = Cli(address, {});
  ExpectOneLineError(plain, "TLS");
  EXPECT_THAT(plain.err, HasSubstr("--tls-ca"));
  EXPECT_THAT(plain.err, Not(HasSubstr("check that tuneforge-server runs")));

  // A CA file that is no certificate: not "empty address list".
  std::ofstream(dir_ + "/not-a-cert.txt") << "hello\n";
  CliResult not_pem = Cli(address, {"--tls-ca", dir_ + "/not-a-cert.txt"});
  ExpectOneLineError(not_pem, "holds no PEM certificate");
  EXPECT_THAT(not_pem.err, Not(HasSubstr("empty address list")));

  // A CA that did not sign the server's certificate.
  CliResult untrusted = Cli(address, {"--tls-ca", dir_ + "/other.pem"});
  ExpectOneLineError(untrusted, "TLS handshake");
  EXPECT_THAT(untrusted.err, HasSubstr("--tls-ca"));
}

TEST_F(TlsErrorsTest, AWorkerWithoutTheCaStopsNamingTls) {
  const std::string address = StartTlsServer();
  ASSERT_FALSE(address.empty());
  absl::StatusOr<std::unique_ptr<ChildProcess>> worker =
      Start(dir_, "tuneforge-worker", {"--server", address, "--token-file", token_});
  ASSERT_TRUE(worker.ok()) << worker.status();
  std::optional<int> status = (*worker)->Wait(absl::Seconds(60));
  ASSERT_TRUE(status.has_value()) << "the worker kept retrying: " << (*worker)->OutputTail();
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_NE(WEXITSTATUS(*status), 0);
  EXPECT_THAT((*worker)->Stderr(), HasSubstr("TLS"));
  EXPECT_THAT((*worker)->Stderr(), HasSubstr("--tls-ca"));
}

TEST_F(TlsErrorsTest, AServerWhoseKeyIsNotItsCertificatesSaysSo) {
  for (const auto& [cert, key, expect] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"server.pem", "other.key", "does not match the certificate"},
           {"token", "server.key", "holds no PEM certificate"},
           {"server.pem", "token", "holds no PEM private key"}}) {
    absl::StatusOr<std::unique_ptr<ChildProcess>> server =
        Start(dir_, "tuneforge-server",
              {"--listen", "127.0.0.1:0", "--db", dir_ + "/mismatch.db", "--token-file", token_, "--tls-cert",
               dir_ + "/" + cert, "--tls-key", dir_ + "/" + key});
    ASSERT_TRUE(server.ok()) << server.status();
    std::optional<int> status = (*server)->Wait(absl::Seconds(30));
    ASSERT_TRUE(status.has_value()) << "the server started with " << cert << " and " << key;
    EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) != 0);
    EXPECT_THAT((*server)->Stderr(), HasSubstr(expect)) << cert << " " << key;
    EXPECT_THAT((*server)->Stderr(), Not(HasSubstr("port is in use")));
  }
}

}  // namespace
}  // namespace tuneforge::client_test
