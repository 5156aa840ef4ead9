// build/bin/tuneforge-server as a user runs it: the ready line, the token
// file, calls with and without the token, graceful stop on SIGTERM and
// SIGINT, and one-line errors for every bad start.
#include <signal.h>
#include <sys/stat.h>

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/rpc/auth.h"
#include "common/rpc/channel.h"
#include "tests/server/service/rpc_calls.h"
#include "tests/server/service/server_process.h"

namespace tuneforge::server::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

struct Running {
  std::unique_ptr<ServerProcess> process;
  std::string ready_line;
  int port = 0;
};

absl::StatusOr<Running> StartServer(const std::vector<std::string>& args) {
  absl::StatusOr<std::unique_ptr<ServerProcess>> p = ServerProcess::Spawn(args);
  if (!p.ok()) return p.status();
  absl::StatusOr<std::string> line = (*p)->ReadLine(absl::Seconds(30));
  if (!line.ok()) return line.status();
  Running r{*std::move(p), *line, PortOfReadyLine(*line)};
  if (r.port == 0) return absl::InternalError("not a ready line: " + *line);
  return r;
}

Stubs Connect(int port, const std::string& token = "") {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      rpc::MakeChannel({absl::StrCat("127.0.0.1:", port), token, ""});
  return Stubs(*channel);
}

grpc::Status ListJobsWithToken(Stubs& stubs, const std::string& token) {
  return CallListJobs(stubs, rpc::MakeContext(token).get(), {});
}

std::string ReadFileText(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(ServerBinaryTest, ServesWithTheGeneratedTokenRefusesWithoutAndStopsOnSigterm) {
  TempDir dir;
  std::string db = dir.File("tf.db");
  absl::StatusOr<Running> server = StartServer({"--listen", "127.0.0.1:0", "--db", db});
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_THAT(server->ready_line, StartsWith("tuneforge-server listening on 127.0.0.1:"));
  EXPECT_THAT(server->ready_line, HasSubstr("database " + db));
  EXPECT_THAT(server->ready_line, HasSubstr("token file " + db + ".token"));

  // The token file: next to the database, readable only by its owner.
  struct stat st {};
  ASSERT_EQ(stat((db + ".token").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  absl::StatusOr<std::string> token = rpc::LoadToken(db + ".token");
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(token->size(), 64u);

  Stubs stubs = Connect(server->port);
  grpc::Status with = ListJobsWithToken(stubs, *token);
  EXPECT_TRUE(with.ok()) << with.error_message();
  grpc::Status without = CallListJobs(stubs, NoToken().get(), {});
  EXPECT_EQ(without.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(without.error_message(), HasSubstr("no token"));
  grpc::Status wrong = ListJobsWithToken(stubs, "not-" + *token);
  EXPECT_EQ(wrong.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(wrong.error_message(), HasSubstr("wrong token"));

  server->process->Signal(SIGTERM);
  absl::StatusOr<int> code = server->process->WaitExit(absl::Seconds(10));
  ASSERT_TRUE(code.ok()) << code.status();
  EXPECT_EQ(*code, 0) << server->process->Stderr();
  EXPECT_EQ(server->process->Stderr(), "");  // quiet without --verbose
}

TEST(ServerBinaryTest, ARestartKeepsTheTokenAndTheJobs) {
  TempDir dir;
  std::string db = dir.File("tf.db");
  std::string job_id;
  std::string first_token;
  {
    absl::StatusOr<Running> server = StartServer({"--listen", "127.0.0.1:0", "--db", db});
    ASSERT_TRUE(server.ok()) << server.status();
    first_token = ReadFileText(db + ".token");
    Stubs stubs = Connect(server->port);
    v1::SubmitJobRequest submit;
    *submit.mutable_spec() = SmallJobSpec(100);
    v1::SubmitJobResponse submitted;
    ASSERT_TRUE(stubs.jobs->Submit(rpc::MakeContext(rpc::LoadToken(db + ".token").value()).get(), submit,
                                   &submitted)
                    .ok());
    job_id = submitted.job().id();
    server->process->Signal(SIGINT);
    absl::StatusOr<int> code = server->process->WaitExit(absl::Seconds(10));
    ASSERT_TRUE(code.ok()) << code.status();
    EXPECT_EQ(*code, 0);
  }
  absl::StatusOr<Running> again = StartServer({"--listen", "127.0.0.1:0", "--db", db});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(ReadFileText(db + ".token"), first_token);
  Stubs stubs = Connect(again->port);
  v1::GetJobRequest get;
  get.set_id(job_id);
  v1::GetJobResponse got;
  grpc::Status status = stubs.jobs->Get(rpc::MakeContext(rpc::LoadToken(db + ".token").value()).get(), get, &got);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(got.job().trials_total(), 100);
}

TEST(ServerBinaryTest, UsesTheGivenTokenFile) {
  TempDir dir;
  std::string token_file = dir.File("cluster.token");
  ASSERT_TRUE(rpc::WriteTokenFile(token_file, "my-cluster-token").ok());
  absl::StatusOr<Running> server =
      StartServer({"--listen", "127.0.0.1:0", "--db", dir.File("tf.db"), "--token-file", token_file});
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_THAT(server->ready_line, HasSubstr("token file " + token_file));
  Stubs stubs = Connect(server->port);
  EXPECT_TRUE(ListJobsWithToken(stubs, "my-cluster-token").ok());
  EXPECT_EQ(ListJobsWithToken(stubs, "my-cluster-toke").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  struct stat st {};
  EXPECT_NE(stat(dir.File("tf.db.token").c_str(), &st), 0) << "no token is generated when one is given";
}

TEST(ServerBinaryTest, VerboseLogsOneLinePerCall) {
  TempDir dir;
  std::string db = dir.File("tf.db");
  absl::StatusOr<Running> server = StartServer({"--listen", "127.0.0.1:0", "--db", db, "--verbose"});
  ASSERT_TRUE(server.ok()) << server.status();
  Stubs stubs = Connect(server->port);
  ListJobsWithToken(stubs, rpc::LoadToken(db + ".token").value());
  v1::GetJobRequest get;
  get.set_id("job-nope");
  CallGet(stubs, rpc::MakeContext(rpc::LoadToken(db + ".token").value()).get(), get);
  server->process->Signal(SIGTERM);
  ASSERT_TRUE(server->process->WaitExit(absl::Seconds(10)).ok());
  std::string log = server->process->Stderr();
  EXPECT_THAT(log, HasSubstr("tuneforge-server: Jobs.List OK "));
  EXPECT_THAT(log, HasSubstr(" ms "));
  EXPECT_THAT(log, HasSubstr("tuneforge-server: Jobs.Get NOT_FOUND "));
  EXPECT_THAT(log, HasSubstr("id: no job 'job-nope'"));
}

// Every bad start: a non-zero exit and one stderr line naming the problem and the fix.
TEST(ServerBinaryTest, BadStartsFailWithOneLine) {
  TempDir dir;
  std::string db = dir.File("tf.db");
  std::string not_a_db = dir.File("junk.db");
  std::ofstream(not_a_db) << "this is not an SQLite database, just text that is long enough to be read\n";
  std::string cert = dir.File("cert.pem");
  std::ofstream(cert) << "x";
  struct Case {
    std::string name;
    std::vector<std::string> args;
    std::string message_part;
  };
  std::vector<Case> cases = {
      {"no --db", {"--listen", "127.0.0.1:0"}, "--db"},
      {"unknown flag", {"--db", db, "--colour"}, "--help"},
      {"listen not HOST:PORT", {"--db", db, "--listen", "localhost"}, "is not HOST:PORT"},
      {"listen port out of range", {"--db", db, "--listen", "127.0.0.1:70000"}, "is not HOST:PORT"},
      {"cert without key", {"--db", db, "--listen", "127.0.0.1:0", "--tls-cert", cert}, "--tls-key"},
      {"key without cert", {"--db", db, "--listen", "127.0.0.1:0", "--tls-key", cert}, "--tls-cert"},
      {"unreadable cert", {"--db", db, "--listen", "127.0.0.1:0", "--tls-cert", dir.File("nope.pem"), "--tls-key", cert},
       "nope.pem"},
      {"database folder missing", {"--db", dir.File("missing/tf.db"), "--listen", "127.0.0.1:0"}, "does not exist"},
      {"not a database", {"--db", not_a_db, "--listen", "127.0.0.1:0"}, "junk.db"},
      {"token file missing", {"--db", db, "--listen", "127.0.0.1:0", "--token-file", dir.File("none.token")},
       "cannot read token file"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Finished> run = RunToExit(c.args, absl::Seconds(30));
    ASSERT_TRUE(run.ok()) << c.name << ": " << run.status();
    EXPECT_NE(run->exit_code, 0) << c.name;
    EXPECT_THAT(run->stderr_text, StartsWith("tuneforge-server: error: ")) << c.name;
    EXPECT_THAT(run->stderr_text, HasSubstr(c.message_part)) << c.name;
    std::vector<std::string> lines = absl::StrSplit(run->stderr_text, '\n', absl::SkipEmpty());
    EXPECT_EQ(lines.size(), 1u) << c.name << ": " << run->stderr_text;
  }
}

TEST(ServerBinaryTest, APortInUseIsAnError) {
  TempDir dir;
  absl::StatusOr<Running> first = StartServer({"--listen", "127.0.0.1:0", "--db", dir.File("a.db")});
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<Finished> second = RunToExit(
      {"--listen", absl::StrCat("127.0.0.1:", first->port), "--db", dir.File("b.db")}, absl::Seconds(30));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_NE(second->exit_code, 0);
  EXPECT_THAT(second->stderr_text, HasSubstr("--listen"));
  std::vector<std::string> lines = absl::StrSplit(second->stderr_text, '\n', absl::SkipEmpty());
  EXPECT_EQ(lines.size(), 1u) << second->stderr_text;
}

}  // namespace
}  // namespace tuneforge::server::testing
