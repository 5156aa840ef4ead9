// Bad input to the service commands: each a one-line error naming the
// problem and the fix, with a non-zero exit; the server keeps serving.
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/client/cli_child.h"

namespace tuneforge::client_test {
namespace {

using service_test::Cluster;
using ::testing::HasSubstr;

TEST(CliErrorsTest, NoServerSaysHowToGiveOne) {
  std::string dir = MakeTempDir();
  for (const char* command : {"status", "watch", "cancel"})
    ExpectOneLineError(RunCliIn(dir, {command, "job-1"}), "no server: give --server HOST:PORT");
  ExpectOneLineError(RunCliIn(dir, {"workers"}), "no server");
  ExpectOneLineError(RunCliIn(dir, {"submit", kMatmul32, "--trials", "4"}), "no server");
}

TEST(CliErrorsTest, MalformedOrUnreachableAddress) {
  std::string dir = MakeTempDir();
  std::string token = dir + "/token";
  std::ofstream(token) << "abc\n";
  ExpectOneLineError(RunCliIn(dir, {"status", "j", "--server", "localhost", "--token-file", token}),
                     "'localhost' is not HOST:PORT");
  // Port 1 on loopback: nothing listens there.
  CliResult r = RunCliIn(dir, {"workers", "--server", "127.0.0.1:1", "--token-file", token});
  ExpectOneLineError(r, "cannot reach the server at 127.0.0.1:1");
  EXPECT_THAT(r.err, HasSubstr("check that tuneforge-server runs"));
}

TEST(CliErrorsTest, BadWorkloadIsRefusedBeforeConnecting) {
  std::string dir = MakeTempDir();
  CliResult r = RunCliIn(dir, {"submit", "matmult:M=32", "--trials", "4", "--server", "127.0.0.1:1"});
  ExpectOneLineError(r, "matmult");
  ExpectOneLineError(RunCliIn(dir, {"submit", kMatmul32, "--trials", "0", "--server", "127.0.0.1:1"}),
                     "--trials is 0");
  ExpectOneLineError(
      RunCliIn(dir, {"submit", kMatmul32, "--trials", "4", "--retime", "-2", "--server", "127.0.0.1:1"}),
      "--retime is -2");
  ExpectOneLineError(RunCliIn(dir, {"tune", "matmul:M=-4,N=4,K=4"}), "M");
  ExpectOneLineError(RunCliIn(dir, {"best", "nosuchop:X=1", "--db", dir + "/x.db"}), "nosuchop");
}

TEST(CliErrorsTest, DatabaseFlagsAreChecked) {
  std::string dir = MakeTempDir();
  ExpectOneLineError(RunCliIn(dir, {"best", kMatmul32}), "no record store at tuneforge.db");
  ExpectOneLineError(RunCliIn(dir, {"best", kMatmul32, "--db", dir + "/missing.db"}),
                     "no record store at " + dir + "/missing.db");
  ExpectOneLineError(RunCliIn(dir, {"export", "--db", "x.db", "--server", "127.0.0.1:1"}), "not both");
  ExpectOneLineError(RunCliIn(dir, {"export", "--json"}), "--json prints a summary");
  ExpectOneLineError(RunCliIn(dir, {"import", dir + "/none.jsonl"}), "cannot read");
  ExpectOneLineError(RunCliIn(dir, {"measure", kMatmul32, "--best"}), "record store");
}

TEST(CliErrorsTest, TuneRefusesWhatItCannotDo) {
  std::string dir = MakeTempDir();
  ExpectOneLineError(RunCliIn(dir, {"tune", "--model", "resnet.onnx"}), "cannot open the model 'resnet.onnx'");
  CliResult r = RunCliIn(dir, {"tune", kMatmul32, "--device-key", "aarch64-neon-4c"});
  ExpectOneLineError(r, "--device-key aarch64-neon-4c is not this machine's device key");
  EXPECT_FALSE(std::filesystem::exists(dir + "/tuneforge.db")) << "a refused tune opened a database";
  // The old spelling still works, with a note that says the new one.
  CliResult old = RunCliIn(dir, {"tune", kMatmul32, "--target", "aarch64-neon-4c"});
  EXPECT_NE(old.exit_code, 0);
  EXPECT_THAT(old.err, HasSubstr("note: --target is a codegen target; use --device-key for device keys"));
  EXPECT_THAT(old.err, HasSubstr("--device-key aarch64-neon-4c is not this machine's device key"));
  ExpectOneLineError(RunCliIn(dir, {"tune", kMatmul32, "--device-key", "a-b-1c", "--target", "c-d-2c"}),
                     "disagree");
  ExpectOneLineError(RunCliIn(dir, {"tune", kMatmul32, "matmul:M=8,N=8,K=8"}), "not expected");
  ExpectOneLineError(RunCliIn(dir, {"tune", kMatmul32, "--db", "a.db", "--server", "127.0.0.1:1"}),
                     "--db is the embedded mode's database");
}

class ServerErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Cluster>> cluster = Cluster::Start();
    ASSERT_TRUE(cluster.ok()) << cluster.status();
    cluster_ = *std::move(cluster);
  }
  Cluster& c() { return *cluster_; }
  std::unique_ptr<Cluster> cluster_;
};

TEST_F(ServerErrorsTest, MissingAndWrongTokenAreRefused) {
  ExpectOneLineError(c().RunCli({"workers", "--server", c().address()}),
                     "no token: give --token-file FILE");
  std::string wrong = c().dir() + "/wrong-token";
  std::ofstream(wrong) << "not-the-token\n";
  CliResult r = c().RunCli({"workers", "--server", c().address(), "--token-file", wrong});
  ExpectOneLineError(r, "token");
  ExpectOneLineError(c().RunCli({"workers", "--server", c().address(), "--token-file",
                                 c().dir() + "/no-such-file"}),
                     "cannot read token file");
  // The token from the environment works.
  setenv("TUNEFORGE_TOKEN", c().token().c_str(), 1);
  CliResult env = c().RunCli({"workers", "--server", c().address(), "--json"}, absl::Seconds(30),
                             /*unset_env=*/{});
  unsetenv("TUNEFORGE_TOKEN");
  EXPECT_EQ(env.exit_code, 0) << env.err;
  EXPECT_TRUE(env.json["workers"].is_array()) << env.out;
}

TEST_F(ServerErrorsTest, UnknownJobIdIsNamed) {
  for (const char* command : {"status", "cancel", "watch"}) {
    CliResult r = c().RunCliOnServer({command, "no-such-job"});
    ExpectOneLineError(r, "no-such-job");
    ASSERT_TRUE(r.json.is_object()) << r.out;
    EXPECT_THAT(r.json["error"].get<std::string>(), HasSubstr("no-such-job"));
  }
  // The server is still there.
  CliResult jobs = c().RunCliOnServer({"jobs"});
  ASSERT_EQ(jobs.exit_code, 0) << jobs.err;
  EXPECT_TRUE(jobs.json["jobs"].empty());
}

TEST_F(ServerErrorsTest, SubmitWithoutWorkersNeedsADeviceKey) {
  ExpectOneLineError(c().RunCliOnServer({"submit", kMatmul32, "--trials", "4"}),
                     "no worker is registered");
  CliResult r = c().RunCliOnServer({"submit", kMatmul32, "--trials", "4", "--device-key", "later-board"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.json["state"], "queued");
  EXPECT_EQ(r.json["device_key"], "later-board");
  EXPECT_EQ(r.json["waiting_for_worker"], true);
  // status says what the job waits for, and how to give it one.
  CliResult status = c().RunCli({"status", r.json["job"].get<std::string>(), "--server", c().address(),
                                 "--token-file", c().token_file()});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_THAT(status.out, HasSubstr("waits for a worker with device key later-board"));
  EXPECT_THAT(status.out, HasSubstr("--device-key later-board"));
}

}  // namespace
}  // namespace tuneforge::client_test
