// How jobs look to users: the JSON object of submit/status/cancel/watch
// (INTERFACE.md fields first), a short text form, and the progress line
// printed per round by watch and tune.
#pragma once

#include <string>

#include "client/cli_error.h"
#include "proto/tuneforge.pb.h"

namespace tuneforge::cli {

namespace v1 = ::tuneforge::v1;

// `job`, `state`, `trials_done`, `trials_total`, `best_gflops`, then
// `best_seconds`, `best_schedule` (object or null), `best_workload_key`,
// `device_key`, `workloads`, `name`, `errors`, `retimed`, `search` and
// `search_last_round` (SearchCostToJson), `measure` (MeasureCostToJson),
// `error`, `task_scheduler`,
// `estimated_latency_ms` (sum of weight x best over the workloads that have
// one), and `tasks`: per workload `workload`, `workload_key`, `trials`,
// `best_ms`, `weight`, `share` (of the estimated latency).
Json JobToJson(const v1::Job& job);
// {"propose_s", "learn_s", "programs_scored"}: the server's search work.
Json SearchCostToJson(const v1::SearchCost& cost);
// {"compile_s", "run_s", "retime_s"}: the workers' time on the job's
// candidates, summed over them (builds run several at once).
Json MeasureCostToJson(const v1::MeasureCost& cost);
// One line; with several workloads, one more line per workload (trials,
// best, weight, share of the estimated end-to-end latency).
std::string JobToText(const v1::Job& job);
// Why a job that ended done has no best: every candidate failed.
std::string NoCandidateSucceeded(const v1::Job& job);

// The schedule text of a record or job as a JSON object; null when empty or
// not JSON (the text is kept then under "schedule_text" by the caller).
Json ScheduleTextToJson(const std::string& text);

// "round 3: 192/200 trials, best 812.3 GFLOPS (1.23 ms), ETA 12 s | search
// 0.91 s (9216 programs scored), learning 0.40 s" (the search part: what the
// server spent on the round now measured).
// Rounds count batches of the job's batch size; `eta_s` < 0 is unknown.
std::string ProgressLine(const v1::Job& job, double eta_s);

}  // namespace tuneforge::cli
