#include "tests/service/harness.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/rpc/auth.h"
#include "common/rpc/channel.h"

namespace tuneforge::service_test {
namespace {

// "tuneforge-server listening on 127.0.0.1:PORT ..."
const std::regex& ReadyLinePattern() {
  static const std::regex kPattern(R"(listening on \S*:(\d+))");
  return kPattern;
}

absl::StatusOr<std::string> MakeTempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "tf-e2e-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr)
    return absl::InternalError(absl::StrCat("cannot create a temporary folder from ", pattern));
  return pattern;
}

void SleepMs(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

}  // namespace

std::string BinDir() {
  if (const char* dir = std::getenv("TF_BIN_DIR"); dir != nullptr && *dir != '\0') return dir;
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("build/bin") : self.parent_path().string();
}

absl::StatusOr<std::unique_ptr<Cluster>> Cluster::Start(ClusterOptions options) {
  std::unique_ptr<Cluster> cluster(new Cluster());
  cluster->options_ = std::move(options);
  absl::StatusOr<std::string> dir = MakeTempDir();
  if (!dir.ok()) return dir.status();
  cluster->dir_ = *dir;
  cluster->db_path_ = cluster->dir_ + "/tuneforge.db";
  cluster->token_file_ = cluster->dir_ + "/token";
  absl::StatusOr<std::string> token = rpc::GenerateToken();
  if (!token.ok()) return token.status();
  cluster->token_ = *token;
  if (absl::Status s = rpc::WriteTokenFile(cluster->token_file_, cluster->token_); !s.ok()) return s;
  if (absl::Status s = cluster->StartServer(); !s.ok()) return s;
  return cluster;
}

Cluster::~Cluster() {
  if (::testing::Test::HasFailure()) PrintLogs();
  for (Worker& w : workers_) w.process.reset();
  server_.reset();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

void Cluster::PrintLogs() const {
  std::fprintf(stderr, "---- server log (%s) ----\n%s\n", address().c_str(),
               server_ ? server_->OutputTail(6000).c_str() : "(not running)");
  for (size_t i = 0; i < workers_.size(); ++i)
    std::fprintf(stderr, "---- worker %zu (%s) log ----\n%s\n", i, workers_[i].id.c_str(),
                 workers_[i].process ? workers_[i].process->OutputTail(3000).c_str() : "");
}

std::string Cluster::address() const { return absl::StrCat("127.0.0.1:", port_); }

absl::Status Cluster::StartServer() {
  if (server_ && server_->Running())
    return absl::FailedPreconditionError("StartServer: the server is already running");
  ++server_starts_;
  ChildOptions child;
  child.argv = {BinDir() + "/tuneforge-server", "--listen", absl::StrCat("127.0.0.1:", port_),
                "--db", db_path_, "--token-file", token_file_};
  child.argv.insert(child.argv.end(), options_.server_args.begin(), options_.server_args.end());
  child.stdout_path = absl::StrCat(dir_, "/server-", server_starts_, ".log");
  child.unset_env = {"TUNEFORGE_TOKEN"};
  absl::StatusOr<std::unique_ptr<ChildProcess>> process = ChildProcess::Start(child);
  if (!process.ok()) return process.status();
  server_ = std::move(*process);
  absl::StatusOr<std::string> port = server_->WaitForOutput(ReadyLinePattern(), absl::Seconds(30));
  if (!port.ok())
    return absl::Status(port.status().code(),
                        absl::StrCat("tuneforge-server did not start: ", port.status().message()));
  if (!absl::SimpleAtoi(*port, &port_) || port_ <= 0)
    return absl::InternalError(absl::StrCat("tuneforge-server printed port '", *port, "'"));
  ConnectStubs();
  // Ready when a call gets through.
  absl::Time end = absl::Now() + absl::Seconds(20);
  while (true) {
    v1::ListJobsRequest request;
    v1::ListJobsResponse response;
    grpc::Status status = jobs_->List(Context(absl::Seconds(2)).get(), request, &response);
    if (status.ok()) return absl::OkStatus();
    if (absl::Now() >= end)
      return absl::DeadlineExceededError(
          absl::StrCat("tuneforge-server printed its port but Jobs.List fails: ", status.error_message()));
    SleepMs(50);
  }
}

void Cluster::StopServer(int signal) {
  if (!server_) return;
  server_->Signal(signal);
  if (!server_->Wait(signal == SIGKILL ? absl::Seconds(5) : absl::Seconds(30))) server_->KillAndReap();
}

void Cluster::ConnectStubs() {
  channel_ = NewChannel();
  jobs_ = v1::Jobs::NewStub(channel_);
  workers_rpc_ = v1::Workers::NewStub(channel_);
  records_ = v1::Records::NewStub(channel_);
}

std::shared_ptr<grpc::Channel> Cluster::NewChannel() const {
  // A fresh channel each time: no reconnect backoff left from a killed server.
  grpc::ChannelArguments args;
  args.SetInt("grpc.testing.fixed_reconnect_backoff_ms", 100);
  args.SetMaxReceiveMessageSize(64 << 20);
  return grpc::CreateCustomChannel(address(), grpc::InsecureChannelCredentials(), args);
}

std::unique_ptr<grpc::ClientContext> Cluster::Context(absl::Duration deadline) const {
  return rpc::MakeContext(token_, deadline);
}

absl::StatusOr<int> Cluster::StartWorker(const std::vector<std::string>& extra_args) {
  return StartWorkerWith({BinDir() + "/tuneforge-worker"}, extra_args);
}

absl::StatusOr<int> Cluster::StartWorkerWith(const std::vector<std::string>& command,
                                             const std::vector<std::string>& extra_args,
                                             const std::string& device_key) {
  absl::StatusOr<std::vector<v1::WorkerStatus>> before = ListWorkers();
  if (!before.ok()) return before.status();
  std::set<std::string> known;
  for (const v1::WorkerStatus& w : *before) known.insert(w.id());
  for (const Worker& w : workers_) known.insert(w.id);

  int index = num_workers();
  ChildOptions child;
  child.argv = command;
  for (const std::string& arg : {std::string("--server"), address(), std::string("--token-file"), token_file_})
    child.argv.push_back(arg);
  if (device_key != kProbedDeviceKey) {
    child.argv.push_back("--device-key");
    child.argv.push_back(device_key.empty() ? options_.device_key : device_key);
  }
  child.argv.insert(child.argv.end(), extra_args.begin(), extra_args.end());
  child.stdout_path = absl::StrCat(dir_, "/worker-", index, ".log");
  child.unset_env = {"TUNEFORGE_TOKEN"};
  absl::StatusOr<std::unique_ptr<ChildProcess>> process = ChildProcess::Start(child);
  if (!process.ok()) return process.status();
  workers_.push_back(Worker{std::move(*process), ""});
  Worker& worker = workers_.back();

  absl::Time end = absl::Now() + absl::Seconds(30);
  while (absl::Now() < end) {
    if (!worker.process->Running())
      return absl::FailedPreconditionError(
          absl::StrCat("tuneforge-worker ended (", DescribeWaitStatus(*worker.process->wait_status()),
                       ") before registering; output:\n", worker.process->OutputTail()));
    absl::StatusOr<std::vector<v1::WorkerStatus>> now = ListWorkers();
    if (now.ok()) {
      for (const v1::WorkerStatus& w : *now) {
        if (!known.count(w.id()) && w.state() == "alive") {
          worker.id = w.id();
          return index;
        }
      }
    }
    SleepMs(50);
  }
  return absl::DeadlineExceededError(absl::StrCat(
      "tuneforge-worker did not register in 30 s; output:\n", worker.process->OutputTail()));
}

CliResult Cluster::RunCli(const std::vector<std::string>& args, absl::Duration timeout,
                          const std::vector<std::string>& unset_env) {
  CliResult result;
  ++cli_runs_;
  ChildOptions child;
  child.argv = {BinDir() + "/tuneforge"};
  child.argv.insert(child.argv.end(), args.begin(), args.end());
  child.stdout_path = absl::StrCat(dir_, "/cli-", cli_runs_, ".out");
  child.stderr_path = absl::StrCat(dir_, "/cli-", cli_runs_, ".err");
  child.unset_env = unset_env;
  absl::StatusOr<std::unique_ptr<ChildProcess>> process = ChildProcess::Start(child);
  if (!process.ok()) {
    result.err = std::string(process.status().message());
    return result;
  }
  std::optional<int> status = (*process)->Wait(timeout);
  if (!status) {
    (*process)->KillAndReap();
    result.err = absl::StrCat("timed out after ", absl::FormatDuration(timeout), "; ");
  } else if (WIFEXITED(*status)) {
    result.exit_code = WEXITSTATUS(*status);
  }
  result.out = (*process)->Stdout();
  result.err += (*process)->Stderr();
  result.json = nlohmann::json::parse(result.out, nullptr, /*allow_exceptions=*/false);
  if (result.json.is_discarded()) result.json = nullptr;
  return result;
}

CliResult Cluster::RunCliOnServer(const std::vector<std::string>& args, absl::Duration timeout) {
  std::vector<std::string> full = args;
  full.insert(full.end(), {"--server", address(), "--token-file", token_file_, "--json"});
  return RunCli(full, timeout);
}

absl::StatusOr<v1::Job> Cluster::Submit(const v1::JobSpec& spec) {
  v1::SubmitJobRequest request;
  *request.mutable_spec() = spec;
  v1::SubmitJobResponse response;
  grpc::Status status = jobs_->Submit(Context().get(), request, &response);
  if (!status.ok()) return rpc::FromGrpc(status, address());
  return response.job();
}

absl::StatusOr<v1::Job> Cluster::GetJob(const std::string& id) {
  v1::GetJobRequest request;
  request.set_id(id);
  v1::GetJobResponse response;
  grpc::Status status = jobs_->Get(Context().get(), request, &response);
  if (!status.ok()) return rpc::FromGrpc(status, address());
  return response.job();
}

absl::StatusOr<v1::Job> Cluster::WaitForJobEnd(const std::string& id, absl::Duration timeout) {
  absl::Time end = absl::Now() + timeout;
  while (true) {
    absl::StatusOr<v1::Job> job = GetJob(id);
    if (!job.ok()) return job.status();
    if (IsFinished(job->state())) return job;
    if (absl::Now() >= end)
      return absl::DeadlineExceededError(
          absl::StrCat("job ", id, " still ", StateName(job->state()), " after ", absl::FormatDuration(timeout),
                       " (", job->trials_done(), "/", job->trials_total(), " trials)"));
    SleepMs(100);
  }
}

absl::StatusOr<v1::Job> Cluster::WaitForTrials(const std::string& id, int trials, absl::Duration timeout) {
  absl::Time end = absl::Now() + timeout;
  while (true) {
    absl::StatusOr<v1::Job> job = GetJob(id);
    if (!job.ok()) return job.status();
    if (job->trials_done() >= trials) return job;
    if (IsFinished(job->state()) || absl::Now() >= end)
      return absl::DeadlineExceededError(absl::StrCat("job ", id, " has ", job->trials_done(), " of the ",
                                                      trials, " trials waited for (", StateName(job->state()),
                                                      ")"));
    SleepMs(50);
  }
}

absl::StatusOr<std::vector<v1::Record>> Cluster::JobRecords(const std::string& id) {
  v1::QueryRecordsRequest request;
  request.set_job_id(id);
  request.set_limit(10000);
  v1::QueryRecordsResponse response;
  grpc::Status status = records_->Query(Context().get(), request, &response);
  if (!status.ok()) return rpc::FromGrpc(status, address());
  return std::vector<v1::Record>(response.records().begin(), response.records().end());
}

absl::StatusOr<std::vector<v1::WorkerStatus>> Cluster::ListWorkers() {
  v1::ListWorkersRequest request;
  v1::ListWorkersResponse response;
  grpc::Status status = workers_rpc_->List(Context(absl::Seconds(5)).get(), request, &response);
  if (!status.ok()) return rpc::FromGrpc(status, address());
  return std::vector<v1::WorkerStatus>(response.workers().begin(), response.workers().end());
}

absl::StatusOr<v1::WorkerStatus> Cluster::WorkerStatus(const std::string& worker_id) {
  absl::StatusOr<std::vector<v1::WorkerStatus>> all = ListWorkers();
  if (!all.ok()) return all.status();
  for (const v1::WorkerStatus& w : *all)
    if (w.id() == worker_id) return w;
  return absl::NotFoundError(absl::StrCat("the server does not list worker ", worker_id));
}

v1::JobSpec SmallJob(const std::string& workload_spec, int trials, int batch_size) {
  v1::JobSpec spec;
  spec.add_workloads()->set_spec(workload_spec);
  spec.set_device_key(kTestDeviceKey);
  spec.set_trials(trials);
  spec.set_batch_size(batch_size);
  spec.set_seed(7);
  spec.set_name("e2e");
  v1::MeasureOptions* m = spec.mutable_measure();
  m->set_number(1);
  m->set_repeat(1);
  m->set_min_repeat_ms(1);
  m->set_threads(1);
  m->set_timeout_s(10);
  return spec;
}

std::vector<std::string> DistinctWorkerIds(const std::vector<v1::Record>& records) {
  std::set<std::string> ids;
  for (const v1::Record& r : records) ids.insert(r.worker_id());
  return {ids.begin(), ids.end()};
}

std::vector<std::string> DistinctTaskIds(const std::vector<v1::Record>& records) {
  std::set<std::string> ids;
  for (const v1::Record& r : records) ids.insert(r.task_id());
  return {ids.begin(), ids.end()};
}

std::string StateName(v1::JobState state) { return v1::JobState_Name(state); }

bool IsFinished(v1::JobState state) {
  return state == v1::JOB_STATE_DONE || state == v1::JOB_STATE_FAILED || state == v1::JOB_STATE_CANCELLED;
}

}  // namespace tuneforge::service_test
