// Schedules as JSON (the schedule file, the record store's schedule text):
//
//   {"version": 1, "workload": "matmul:M=64,N=64,K=64", "workload_key": "...",
//    "steps": [{"kind": "split", "stage": 2, "iter": 0, "lengths": [32, 4],
//               "inner_to_outer": true}, ...]}
//
// One object per step: "kind" is StepKindName, the other fields are those of
// the step struct (steps.h) with the same names, all required; an annotation
// is its name ("parallel", "threadIdx.x"). At the top level "version"
// defaults to 1 and "workload_key" to "" (INTERFACE.md's minimal form is
// {"workload": ..., "steps": [...]}). Readers reject, naming the step and
// field: invalid JSON (with its byte offset), unknown or missing fields,
// wrong types, negative indices, unknown kinds, annotations and versions.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/schedule/schedule.h"
#include "nlohmann/json.hpp"

namespace tuneforge::schedule {

// ordered_json keeps "kind" first and fields in steps.h order, which is what
// a person reading the file expects; it converts to and from nlohmann::json.
using Json = nlohmann::ordered_json;

Json StepToJson(const Step& step);
// `step_index` only names the step in error messages.
absl::StatusOr<Step> StepFromJson(const Json& json, int step_index = 0);

Json ScheduleToJson(const Schedule& schedule);
absl::StatusOr<Schedule> ScheduleFromJson(const Json& json);

// Text forms. `indent` < 0 writes one line (the record store), >= 0 pretty-prints.
std::string ScheduleToJsonText(const Schedule& schedule, int indent = 2);
absl::StatusOr<Schedule> ParseScheduleJson(std::string_view text);

absl::StatusOr<Schedule> LoadScheduleFile(const std::string& path);
absl::Status SaveScheduleFile(const Schedule& schedule, const std::string& path);

}  // namespace tuneforge::schedule
