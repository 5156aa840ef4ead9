#include "client/commands/tune.h"

#include <chrono>
#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/api/jobs_client.h"
#include "client/cli_error.h"
#include "client/json_text.h"
#include "client/device_choice.h"
#include "client/device_key_flag.h"
#include "client/embedded_cluster.h"
#include "client/interrupt.h"
#include "client/job_spec_args.h"
#include "client/job_view.h"
#include "client/job_watch.h"
#include "client/model_report.h"
#include "client/model_run.h"
#include "client/record_source.h"
#include "client/server_args.h"
#include "client/unfinished_job.h"

namespace tuneforge::cli {
namespace {

constexpr int kInterruptedExit = 130;  // what shells report for Ctrl-C

struct TuneArgs {
  std::string spec;
  std::string db;
  DeviceKeyFlag device;
  bool fresh = false;  // cancel an unfinished job of the workload instead of continuing it
  JobSpecArgs job;
  ServerArgs server;
  bool verbose = false;
  Output out;
};

// Where the job runs: the embedded cluster, or the one at --server.
struct TuneSession {
  std::unique_ptr<EmbeddedCluster> embedded;
  std::optional<client::Connection> connection;
  std::string device_key;
  std::string records_at;  // the database file or the server, for messages
};

// The worker's error, set on its thread when it stops early.
class WorkerFailure {
 public:
  void Set(const absl::Status& s) {
    absl::MutexLock lock(&mu_);
    status_ = s;
  }
  absl::Status Get() const {
    absl::MutexLock lock(&mu_);
    return status_;
  }

 private:
  mutable absl::Mutex mu_;
  absl::Status status_;
};

absl::StatusOr<TuneSession> OpenSession(const TuneArgs& args, const std::string& requested_device,
                                        std::function<void(const absl::Status&)> on_worker_error) {
  TuneSession session;
  if (args.server.given()) {
    absl::StatusOr<client::Connection> connection = Connect(args.server);
    if (!connection.ok()) return connection.status();
    absl::StatusOr<std::string> device = ChooseDeviceKey(*connection, requested_device, "--device-key");
    if (!device.ok()) return device.status();
    session.connection = *std::move(connection);
    session.device_key = *std::move(device);
    session.records_at = "server " + args.server.address;
    return session;
  }
  EmbeddedOptions options;
  options.db_path = args.db.empty() ? kDefaultDb : args.db;
  options.requested_device_key = requested_device;
  options.on_worker_error = std::move(on_worker_error);
  if (args.verbose) options.log = [](const std::string& line) { std::cerr << line << std::endl; };
  absl::StatusOr<std::unique_ptr<EmbeddedCluster>> cluster = EmbeddedCluster::Start(options);
  if (!cluster.ok()) return cluster.status();
  session.embedded = *std::move(cluster);
  session.connection = session.embedded->connection();
  session.device_key = session.embedded->device_key();
  session.records_at = options.db_path;
  return session;
}

// The spec the best schedule is of: the workload, or another form of it
// (--conv-algorithm auto); null without a best.
Json BestWorkload(const v1::Job& job, const ResolvedJobSpec& spec) {
  for (const ApiWorkload& w : spec.workloads)
    if (w.parsed.dag->workload_key() == job.best_workload_key()) return w.parsed.spec;
  return Json();
}

Json TuneJson(const v1::Job& job, const ResolvedJobSpec& spec, const TuneSession& session,
              double wall_s, bool continued) {
  bool has_best = job.best_seconds() > 0;
  return Json{{"best_gflops", job.best_gflops()},
              {"best_workload", BestWorkload(job, spec)},
              {"best_seconds", has_best ? Json(job.best_seconds()) : Json()},
              {"trials", job.trials_done()},
              {"wall_s", wall_s},
              {"best_schedule", ScheduleTextToJson(job.best_schedule_json())},
              {"job", job.id()},
              {"state", client::JobStateName(job.state())},
              {"trials_total", job.trials_total()},
              {"errors", job.errors()},
              {"search", SearchCostToJson(job.search_total())},
              {"measure", MeasureCostToJson(job.measure_total())},
              {"workload", spec.model ? spec.model->name : spec.workloads[0].parsed.spec},
              {"workload_key", spec.model ? Json() : Json(spec.workloads[0].parsed.dag->workload_key())},
              {"target", session.device_key},
              {"records", session.records_at},
              {"continued", continued}};
}

std::string TuneText(const v1::Job& job, const ResolvedJobSpec& spec, const TuneSession& session,
                     double wall_s) {
  const std::string& workload = spec.workloads[0].parsed.spec;
  if (job.best_seconds() <= 0)
    return absl::StrFormat(
        "no correct candidate in %d trials (%d errors) after %.1f s (job %s); try more --trials",
        job.trials_done(), job.errors(), wall_s, job.id());
  return absl::StrFormat(
      "best %.1f GFLOPS (%.4f ms) after %d trials in %.1f s (job %s, %d errors)\n%s\n"
      "records in %s: 'tuneforge best %s' shows it again, 'tuneforge measure %s --best' re-times it",
      job.best_gflops(), job.best_seconds() * 1e3, job.trials_done(), wall_s, job.id(),
      job.errors(), JsonText(ScheduleTextToJson(job.best_schedule_json()), 2), session.records_at,
      workload, workload);
}

absl::Status CheckArgs(TuneArgs& args) {
  if (!args.spec.empty()) args.job.specs = {args.spec};
  if (args.job.specs.size() + args.job.def_files.size() > 1)
    return absl::InvalidArgumentError(
        "tune takes one workload; submit several at once with 'tuneforge submit'");
  if (args.fresh && args.server.given())
    return absl::InvalidArgumentError(
        "--fresh is for the embedded mode's unfinished jobs; on a cluster, 'tuneforge cancel JOB' the one "
        "you want gone");
  if (args.server.given() && !args.db.empty())
    return absl::InvalidArgumentError(
        "--db is the embedded mode's database; with --server the records go to the cluster's (read "
        "them with 'tuneforge best ... --server')");
  return absl::OkStatus();
}

// After a model's job: the model run with the kernels it found, its outputs
// checked, its latency beside the job's figures.
int FinishModelTune(const TuneArgs& args, const ResolvedJobSpec& spec, const TuneSession& session,
                    const v1::Job& job, double wall_s, Json result) {
  RecordSourceArgs source_args;
  source_args.server = args.server;
  if (!args.server.given()) source_args.db = args.db.empty() ? kDefaultDb : args.db;
  absl::StatusOr<std::unique_ptr<RecordSource>> source = RecordSource::Open(source_args, RecordSource::Mode::kRead);
  if (!source.ok()) return Fail(args.out, source.status(), result);
  absl::StatusOr<ModelRunReport> report =
      RunModel(*spec.model, args.job.model, LookupFrom(**source, session.device_key), ModelRunOptions{});
  if (!report.ok()) return Fail(args.out, report.status(), result);
  Json model = ModelReportJson(*spec.model, *report, session.device_key, session.records_at);
  for (auto it = model.begin(); it != model.end(); ++it) result[it.key()] = it.value();
  std::string text = absl::StrFormat("tuned %d tasks of %s in %d trials, %.1f s (job %s, %d errors)\n%s",
                                     report->tasks, spec.model->name, job.trials_done(), wall_s, job.id(),
                                     job.errors(),
                                     ModelReportText(*spec.model, *report, session.device_key, session.records_at));
  if (!report->outputs_checked)
    return Fail(args.out, absl::StrCat("the tuned model's outputs do not match ", report->checked_against, ": ",
                                       report->mismatch),
                result);
  return Succeed(args.out, result, text);
}

int RunTune(TuneArgs args) {
  if (absl::Status s = CheckArgs(args); !s.ok()) return Fail(args.out, s);
  absl::StatusOr<ResolvedJobSpec> spec = BuildJobSpec(args.job, "");
  if (!spec.ok()) return Fail(args.out, spec.status());
  std::ostream& progress = args.out.json ? std::cerr : std::cout;

  absl::StatusOr<std::string> requested_device = DeviceKeyOf(args.device);
  if (!requested_device.ok()) return Fail(args.out, requested_device.status());

  // Declared before the session: the worker thread may use them until the
  // session stops.
  client::CallCanceller canceller;
  WorkerFailure worker_failure;
  absl::StatusOr<TuneSession> session = OpenSession(args, *requested_device, [&](const absl::Status& s) {
    worker_failure.Set(s);
    canceller.Cancel();
  });
  if (!session.ok()) return Fail(args.out, session.status());
  spec->spec.set_device_key(session->device_key);

  client::JobsClient jobs(*session->connection);
  auto start = std::chrono::steady_clock::now();
  // Only the embedded server resumes what an interrupted tune left; on a
  // cluster a running job of the same workload may be someone else's.
  absl::StatusOr<std::optional<v1::Job>> unfinished = std::optional<v1::Job>();
  if (session->embedded) {
    std::vector<std::string> keys;
    for (const auto& w : spec->workloads) keys.push_back(w.parsed.dag->workload_key());
    unfinished = FindUnfinishedJob(jobs, std::move(keys), session->device_key);
  }
  if (!unfinished.ok()) return Fail(args.out, unfinished.status());
  if (unfinished->has_value() && args.fresh) {
    absl::StatusOr<v1::Job> cancelled = jobs.Cancel((*unfinished)->id());
    if (!cancelled.ok()) return Fail(args.out, cancelled.status());
    std::cerr << absl::StrFormat("cancelled the unfinished job %s (%d of %d trials done; --fresh)",
                                 (*unfinished)->id(), cancelled->trials_done(), cancelled->trials_total())
              << std::endl;
    unfinished->reset();
  }
  const bool continued = unfinished->has_value();
  std::string job_id;
  if (continued) {
    const v1::Job& old = **unfinished;
    job_id = old.id();
    std::cerr << absl::StrFormat(
                     "continuing job %s, which an earlier 'tuneforge tune' of this %s left unfinished in %s "
                     "(%d of %d trials done%s); give --fresh to cancel it and start anew",
                     job_id, spec->model ? "model" : "workload", session->records_at, old.trials_done(), old.trials_total(),
                     old.trials_total() == args.job.trials ? "" : "; it keeps its own number of trials")
              << std::endl;
  } else {
    absl::StatusOr<v1::Job> submitted = jobs.Submit(spec->spec);
    if (!submitted.ok()) return Fail(args.out, submitted.status());
    job_id = submitted->id();
  }
  const std::string what = spec->model ? absl::StrFormat("model %s (%d tasks)", spec->model->name,
                                                        spec->model->tasks.size())
                                      : spec->workloads[0].parsed.spec;
  progress << absl::StrFormat("job %s: tuning %s on %s, %d trials, records in %s", job_id, what,
                              session->device_key,
                              continued ? (*unfinished)->trials_total() : args.job.trials, session->records_at)
           << std::endl;

  absl::StatusOr<v1::Job> final_job;
  bool interrupted = false;
  {
    InterruptGuard guard(
        [&] {
          progress << "interrupted: cancelling job " << job_id << " (Ctrl-C again to stop waiting)"
                   << std::endl;
          absl::StatusOr<v1::Job> cancelled = jobs.Cancel(job_id);
          if (!cancelled.ok()) canceller.Cancel();  // nothing to wait for then
        },
        [&] { canceller.Cancel(); });
    WatchOptions watch;
    watch.progress = &progress;
    watch.canceller = &canceller;
    final_job = WatchToEnd(jobs, job_id, watch);
    interrupted = guard.count() > 0;
  }
  double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  absl::Status worker_status = session->embedded ? session->embedded->Stop() : absl::OkStatus();
  if (!worker_status.ok())
    return Fail(args.out, absl::StrCat("the local worker stopped: ", worker_status.message()));
  if (!final_job.ok()) {
    if (interrupted) {
      Fail(args.out, absl::StrCat("stopped waiting for job ", job_id, " (interrupted twice)"));
      return kInterruptedExit;
    }
    return Fail(args.out, final_job.status());
  }
  Json result = TuneJson(*final_job, *spec, *session, wall_s, continued);
  switch (final_job->state()) {
    case v1::JOB_STATE_DONE:
      if (final_job->no_candidate_succeeded())
        return Fail(args.out, NoCandidateSucceeded(*final_job), result);
      if (spec->model) return FinishModelTune(args, *spec, *session, *final_job, wall_s, std::move(result));
      return Succeed(args.out, result, TuneText(*final_job, *spec, *session, wall_s));
    case v1::JOB_STATE_CANCELLED:
      Fail(args.out,
           absl::StrFormat("job %s cancelled after %d of %d trials (best %.1f GFLOPS); its records "
                           "are kept in %s",
                           job_id, final_job->trials_done(), final_job->trials_total(),
                           final_job->best_gflops(), session->records_at),
           result);
      return interrupted ? kInterruptedExit : 1;
    default:
      return Fail(args.out, absl::StrCat("job ", job_id, " failed: ", final_job->error()), result);
  }
}

}  // namespace

void AddTuneCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<TuneArgs>();
  args->job.trials = 200;
  CLI::App* cmd = app.add_subcommand(
      "tune", "Tune a workload (embedded server and local worker, or --server) and print its best");
  cmd->add_option("workload", args->spec, "OP:KEY=VALUE,...");
  cmd->add_option("--trials", args->job.trials, "measurements in all (default 200)");
  cmd->add_option("--db", args->db, absl::StrCat("record database (default ./", kDefaultDb, ")"));
  AddDeviceKeyFlag(cmd, &args->device, "device key to tune for (default: this machine's)");
  cmd->add_flag("--fresh", args->fresh,
                "cancel an unfinished job of this workload left in the database (an interrupted tune) and "
                "start anew; without it such a job is continued");
  AddJobSpecFlags(cmd, &args->job);
  AddServerFlags(cmd, &args->server);
  cmd->add_flag("--verbose", args->verbose, "the local worker's log on stderr");
  cmd->add_flag("--json", args->out.json, "one JSON object on stdout (progress lines on stderr)");
  cmd->callback([args, exit_code] { *exit_code = RunTune(*args); });
}

}  // namespace tuneforge::cli
