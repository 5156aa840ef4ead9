// --json output is one valid JSON object whatever bytes the input holds: a
// spec, a file name or a schedule field that is not UTF-8 ends in the same
// one-line error as without --json, never in an uncaught exception.
#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/client/cli_child.h"

namespace tuneforge::client_test {
namespace {

using ::testing::HasSubstr;

void ExpectJsonError(const CliResult& r, const std::string& what) {
  EXPECT_EQ(r.exit_code, 1) << "stdout: " << r.out << "\nstderr: " << r.err;
  ASSERT_TRUE(r.json.is_object()) << "stdout is not one JSON object: " << r.out;
  ASSERT_TRUE(r.json.contains("error")) << r.out;
  EXPECT_THAT(r.json["error"].get<std::string>(), HasSubstr(what));
  EXPECT_EQ(Lines(r.out).size(), 1u) << r.out;
}

TEST(JsonOutputTest, ErrorsAboutNonUtf8InputAreValidJson) {
  std::string dir = MakeTempDir();
  ExpectJsonError(RunCliIn(dir, {"show", "matmul:M=64,N=64,K=6\xff", "--json"}), "K");
  ExpectJsonError(RunCliIn(dir, {"show", "m\xc3\x28tmul:M=4", "--json"}), "tmul");
  ExpectJsonError(RunCliIn(dir, {"show", "--def", dir + "/no\xfe.def", "--json"}), "no");
  ExpectJsonError(RunCliIn(dir, {"measure", "matmul:M=4,N=4,K=4\x80", "--naive", "--json"}), "K");
  ExpectJsonError(RunCliIn(dir, {"import", dir + "/\xff.jsonl", "--json"}), "cannot read");

  std::string schedule = dir + "/s.json";
  std::ofstream(schedule) << "{\"workload\": \"matmul:M=8,N=8,K=8\xff\", \"steps\": []}";
  ExpectJsonError(RunCliIn(dir, {"show", "matmul:M=8,N=8,K=8", "--schedule", schedule, "--json"}), "");
  // The same input without --json: the same error on stderr, one line.
  CliResult plain = RunCliIn(dir, {"show", "matmul:M=64,N=64,K=6\xff"});
  ExpectOneLineError(plain, "K");
}

}  // namespace
}  // namespace tuneforge::client_test
