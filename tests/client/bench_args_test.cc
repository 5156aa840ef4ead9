// tuneforge-bench refuses a bad --threads with a one-line error and a
// non-zero exit, never an uncaught exception.
#include <sys/wait.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/client/cli_child.h"

namespace tuneforge::client_test {
namespace {

using ::testing::HasSubstr;

TEST(BenchArgsTest, BadThreadCountsAreAnErrorNotACrash) {
  std::string dir = MakeTempDir();
  int run = 0;
  for (const char* threads : {"abc", "1,x", ",", "0", "1,-2", "99999999999999999999", "2,\xff"}) {
    service_test::ChildOptions options;
    options.argv = {service_test::BinDir() + "/tuneforge-bench", "--threads", threads};
    options.stdout_path = dir + "/bench-" + std::to_string(++run) + ".out";
    options.stderr_path = dir + "/bench-" + std::to_string(run) + ".err";
    absl::StatusOr<std::unique_ptr<ChildProcess>> bench = ChildProcess::Start(options);
    ASSERT_TRUE(bench.ok()) << bench.status();
    std::optional<int> status = (*bench)->Wait(absl::Seconds(60));
    ASSERT_TRUE(status.has_value()) << "tuneforge-bench --threads '" << threads << "' ran on";
    ASSERT_TRUE(WIFEXITED(*status)) << "ended by signal " << WTERMSIG(*status) << " for '" << threads << "'";
    EXPECT_NE(WEXITSTATUS(*status), 0) << threads;
    EXPECT_THAT((*bench)->Stderr(), HasSubstr("--threads")) << threads;
    EXPECT_EQ(Lines((*bench)->Stderr()).size(), 1u) << (*bench)->Stderr();
  }
}

}  // namespace
}  // namespace tuneforge::client_test
