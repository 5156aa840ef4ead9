// The tuneforge CLI as a child process for the client tests, for the runs
// that need no cluster (the embedded `tune`) or need a working folder
// (./tuneforge.db) or a signal (Ctrl-C). Cluster runs use
// service_test::Cluster::RunCli (tests/service/harness.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tests/service/child_process.h"
#include "tests/service/harness.h"

namespace tuneforge::client_test {

using service_test::ChildProcess;
using service_test::CliResult;
using service_test::kMatmul32;
using service_test::kMatmul32Flops;
using service_test::kMatmul64;
using service_test::kMatmul64Flops;
using service_test::kQuickMeasure;
using service_test::With;

// A fresh folder under the temp directory.
std::string MakeTempDir();

// Starts `tuneforge ARGS` in `work_dir` (TUNEFORGE_TOKEN unset); its
// output goes to files in `work_dir`.
absl::StatusOr<std::unique_ptr<ChildProcess>> StartCli(const std::string& work_dir,
                                                       const std::vector<std::string>& args);
// Waits for it (killed after `timeout`) and collects exit code and output.
CliResult Finish(ChildProcess& process, absl::Duration timeout);
// StartCli + Finish.
CliResult RunCliIn(const std::string& work_dir, const std::vector<std::string>& args,
                   absl::Duration timeout = absl::Seconds(120));

// Non-zero exit, stderr one line containing `what`.
void ExpectOneLineError(const CliResult& result, const std::string& what);

// Lines of a text.
std::vector<std::string> Lines(const std::string& text);

}  // namespace tuneforge::client_test
