#include "server/service/import_checks.h"

#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/schedule/schedule_json.h"
#include "common/schedule/state.h"
#include "server/record_store/record_validation.h"

namespace tuneforge::server {
namespace {

// Named apart from field_checks.h's FieldError: a unity batch may hold both.
absl::Status RecordFieldError(const char* field, const std::string& problem) {
  return absl::InvalidArgumentError(absl::StrCat("field '", field, "' ", problem));
}

// "def:NAME" is how a record names a compute-definition workload; its text
// is not in the record (and "def:PATH" would read a file here).
bool IsDefinitionLabel(const std::string& workload) { return absl::StartsWith(workload, "def:"); }

// A correct record's time and GFLOPS against its workload's FLOP count.
absl::Status CheckFigures(double flops, double median_seconds, double gflops) {
  if (!std::isfinite(median_seconds) || median_seconds < kMinPlausibleSeconds)
    return RecordFieldError("median_seconds", absl::StrCat("is ", median_seconds, " s; a measured kernel takes at least ",
                                                     kMinPlausibleSeconds, " s"));
  if (!std::isfinite(gflops) || gflops < 0)
    return RecordFieldError("gflops", absl::StrCat("must be a finite number >= 0; got ", gflops));
  const double expected = flops / median_seconds / 1e9;
  if (std::abs(gflops - expected) > kGflopsTolerance * expected)
    return RecordFieldError("gflops", absl::StrCat("is ", gflops, ", but the workload's ", flops, " FLOPs in ",
                                             median_seconds, " s are ", expected,
                                             " GFLOPS; the record's figures disagree"));
  if (expected > kMaxPlausibleGflops)
    return RecordFieldError("median_seconds",
                      absl::StrCat("is ", median_seconds, " s, which makes ", expected,
                                   " GFLOPS for the workload's ", flops, " FLOPs, more than any device (at most ",
                                   kMaxPlausibleGflops, " GFLOPS are believed)"));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<const te::Workload*> ImportChecker::Workload(const std::string& spec, const char* field) {
  auto it = workloads_.find(spec);
  if (it != workloads_.end()) return &it->second;
  absl::StatusOr<te::Workload> parsed = te::ParseWorkload(spec);
  if (!parsed.ok())
    return RecordFieldError(field, absl::StrCat("is not a workload this tuneforge knows: ", parsed.status().message()));
  return &workloads_.emplace(spec, *std::move(parsed)).first->second;
}

absl::StatusOr<const te::Workload*> ImportChecker::Definition(const Record& record) {
  const std::string cache_key = absl::StrCat(record.workload, "\n", record.definition);
  auto it = workloads_.find(cache_key);
  if (it != workloads_.end()) return &it->second;
  absl::StatusOr<te::Workload> parsed = DefinitionOf(record);
  if (!parsed.ok()) return parsed.status();
  return &workloads_.emplace(cache_key, *std::move(parsed)).first->second;
}

absl::Status ImportChecker::Check(const Record& record) {
  const std::string& key = record.workload_key;
  const std::string& workload = record.workload;

  // The workload the record names, and that its key is that workload's.
  const te::Workload* w = nullptr;
  if (!record.definition.empty()) {
    absl::StatusOr<const te::Workload*> defined = Definition(record);
    if (!defined.ok()) return defined.status();
    w = *defined;
  } else if (!workload.empty() && !IsDefinitionLabel(workload)) {
    absl::StatusOr<const te::Workload*> parsed = Workload(workload, "workload");
    if (!parsed.ok()) return parsed.status();
    w = *parsed;
    if (w->dag->workload_key() != key)
      return RecordFieldError("workload_key", absl::StrCat("is ", key, ", but the record's workload '", workload,
                                                     "' has the key ", w->dag->workload_key()));
  }
  if (!record.ok()) return absl::OkStatus();

  // A correct record can win `best`: its schedule must be one this build
  // replays on the workload it claims.
  absl::StatusOr<schedule::Schedule> s = schedule::ParseScheduleJson(record.schedule_json);
  if (!s.ok()) return RecordFieldError("schedule_json", absl::StrCat("is not a schedule: ", s.status().message()));
  if (!s->workload_key.empty() && s->workload_key != key)
    return RecordFieldError("schedule_json", absl::StrCat("is a schedule of the workload key ", s->workload_key,
                                                    ", not of the record's ", key));
  if (!s->workload.empty() && !IsDefinitionLabel(s->workload) && record.definition.empty()) {
    absl::StatusOr<const te::Workload*> named = Workload(s->workload, "schedule_json");
    if (!named.ok()) return named.status();
    if ((*named)->dag->workload_key() != key)
      return RecordFieldError("schedule_json", absl::StrCat("is a schedule of '", s->workload, "', not of the record's "
                                                      "workload (key ", key, ")"));
    if (w == nullptr) w = *named;
  }
  if (s->workload.empty() && s->workload_key.empty())
    return RecordFieldError("schedule_json", "names no workload; a schedule is {\"workload\": ..., \"steps\": [...]}");
  if (w == nullptr && workload.empty())
    return RecordFieldError("workload", "is missing, and the schedule names no workload spec either; a correct record "
                                  "names its workload (\"matmul:M=...\")");
  if (w == nullptr)
    return RecordFieldError("workload", absl::StrCat("is '", workload, "', a compute definition, but the record has no "
                                               "'definition' (its text), so its schedule cannot be checked; "
                                               "export it again with this tuneforge, which adds the text, or "
                                               "tune it here with --def FILE"));
  absl::StatusOr<schedule::State> replayed = schedule::State::Replay(w->dag, s->steps);
  if (!replayed.ok())
    return RecordFieldError("schedule_json", absl::StrCat("does not replay on ", w->spec, ": ",
                                                    replayed.status().message()));
  return CheckFigures(w->dag->flops(), record.median_seconds, record.gflops);
}

}  // namespace tuneforge::server
