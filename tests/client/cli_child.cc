#include "tests/client/cli_child.h"

#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tests/support/removed_at_exit.h"

namespace tuneforge::client_test {

std::string MakeTempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "tf-cli-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "cannot create a folder from " << pattern;
  else test_support::RemoveAtExit(pattern);
  return pattern;
}

absl::StatusOr<std::unique_ptr<ChildProcess>> StartCli(const std::string& work_dir,
                                                       const std::vector<std::string>& args) {
  static int runs = 0;
  ++runs;
  service_test::ChildOptions child;
  // env -C: the working folder, and exec, so the pid is tuneforge's.
  child.argv = {"/usr/bin/env", "-C", work_dir, service_test::BinDir() + "/tuneforge"};
  child.argv.insert(child.argv.end(), args.begin(), args.end());
  child.stdout_path = absl::StrCat(work_dir, "/cli-", runs, ".out");
  child.stderr_path = absl::StrCat(work_dir, "/cli-", runs, ".err");
  child.unset_env = {"TUNEFORGE_TOKEN"};
  return ChildProcess::Start(child);
}

CliResult Finish(ChildProcess& process, absl::Duration timeout) {
  CliResult result;
  std::optional<int> status = process.Wait(timeout);
  if (!status) {
    process.KillAndReap();
    result.err = absl::StrCat("timed out after ", absl::FormatDuration(timeout), "; ");
  } else if (WIFEXITED(*status)) {
    result.exit_code = WEXITSTATUS(*status);
  }
  result.out = process.Stdout();
  result.err += process.Stderr();
  result.json = nlohmann::json::parse(result.out, nullptr, /*allow_exceptions=*/false);
  if (result.json.is_discarded()) result.json = nullptr;
  return result;
}

CliResult RunCliIn(const std::string& work_dir, const std::vector<std::string>& args,
                   absl::Duration timeout) {
  absl::StatusOr<std::unique_ptr<ChildProcess>> process = StartCli(work_dir, args);
  if (!process.ok()) {
    CliResult failed;
    failed.err = std::string(process.status().message());
    return failed;
  }
  return Finish(**process, timeout);
}

void ExpectOneLineError(const CliResult& result, const std::string& what) {
  EXPECT_NE(result.exit_code, 0) << result.out;
  EXPECT_THAT(result.err, ::testing::HasSubstr(what));
  EXPECT_EQ(Lines(result.err).size(), 1u) << "the error is not one line: " << result.err;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace tuneforge::client_test
