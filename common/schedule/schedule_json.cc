#include "common/schedule/schedule_json.h"

#include <fstream>
#include <limits>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/schedule/step_fields.h"

namespace tuneforge::schedule {
namespace {

// Where an error is: "step 3 (split): field 'lengths'" or "field 'version'".
struct Where {
  std::string text;
  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat("schedule JSON: ", text, what));
  }
};

std::string Shown(const Json& v) {
  return absl::StrCat(v.type_name(), " ", v.dump(-1, ' ', false, Json::error_handler_t::replace));
}

absl::Status ReadInt64(const Json& v, int64_t* out, const Where& w) {
  if (!v.is_number_integer()) return w.Error(absl::StrCat("must be an integer; got ", Shown(v)));
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{std::numeric_limits<int64_t>::max()})
    return w.Error(absl::StrCat("is too large for a 64-bit integer: ", v.dump()));
  *out = v.get<int64_t>();
  return absl::OkStatus();
}

// Indices (stage, iterator, step numbers) are never negative.
absl::Status ReadValue(const Json& v, int* out, const Where& w) {
  int64_t x = 0;
  if (absl::Status s = ReadInt64(v, &x, w); !s.ok()) return s;
  if (x < 0) return w.Error(absl::StrCat("is an index and must be >= 0; got ", x));
  if (x > std::numeric_limits<int>::max()) return w.Error(absl::StrCat("is too large: ", x));
  *out = static_cast<int>(x);
  return absl::OkStatus();
}
absl::Status ReadValue(const Json& v, int64_t* out, const Where& w) { return ReadInt64(v, out, w); }
absl::Status ReadValue(const Json& v, bool* out, const Where& w) {
  if (!v.is_boolean()) return w.Error(absl::StrCat("must be true or false; got ", Shown(v)));
  *out = v.get<bool>();
  return absl::OkStatus();
}
absl::Status ReadValue(const Json& v, std::string* out, const Where& w) {
  if (!v.is_string()) return w.Error(absl::StrCat("must be a string; got ", Shown(v)));
  *out = v.get<std::string>();
  return absl::OkStatus();
}
absl::Status ReadValue(const Json& v, IterAnnotation* out, const Where& w) {
  if (!v.is_string()) return w.Error(absl::StrCat("must be an annotation name; got ", Shown(v)));
  std::optional<IterAnnotation> a = ParseAnnotation(v.get<std::string>());
  if (!a) {
    std::vector<std::string> names;
    for (int i = 0; i <= static_cast<int>(IterAnnotation::kThreadZ); ++i)
      names.push_back(AnnotationName(static_cast<IterAnnotation>(i)));
    return w.Error(absl::StrCat("has unknown annotation '", v.get<std::string>(), "'; use one of ",
                                absl::StrJoin(names, ", ")));
  }
  *out = *a;
  return absl::OkStatus();
}
template <class T>
absl::Status ReadValue(const Json& v, std::vector<T>* out, const Where& w) {
  if (!v.is_array()) return w.Error(absl::StrCat("must be an array of integers; got ", Shown(v)));
  out->clear();
  for (size_t i = 0; i < v.size(); ++i) {
    T x{};
    if (absl::Status s = ReadValue(v[i], &x, Where{absl::StrCat(w.text, "[", i, "] ")}); !s.ok())
      return s;
    out->push_back(x);
  }
  return absl::OkStatus();
}

template <class T>
Json WriteValue(const T& v) {
  return Json(v);
}
Json WriteValue(IterAnnotation a) { return Json(AnnotationName(a)); }

std::string Quoted(const std::vector<std::string>& names) { return absl::StrJoin(names, ", "); }

}  // namespace

Json StepToJson(const Step& step) {
  Json j = Json::object();
  j["kind"] = StepKindName(step);
  std::visit(
      [&](const auto& s) {
        ForEachField(s, [&](const char* name, const auto& v) { j[name] = WriteValue(v); });
      },
      step);
  return j;
}

absl::StatusOr<Step> StepFromJson(const Json& json, int step_index) {
  const std::string where = absl::StrCat("step ", step_index);
  if (!json.is_object())
    return Where{where}.Error(
        absl::StrCat(" must be an object with a \"kind\"; got ", Shown(json)));
  auto kind_it = json.find("kind");
  if (kind_it == json.end())
    return Where{where}.Error(
        absl::StrCat(": missing field 'kind'; use one of ", Quoted(StepKindNames())));
  if (!kind_it->is_string())
    return Where{where}.Error(
        absl::StrCat(": field 'kind' must be a string; got ", Shown(*kind_it)));
  const std::string kind = kind_it->get<std::string>();
  Step step;
  if (!WithStepKindNamed(kind, [&](Step s) { step = std::move(s); }))
    return Where{where}.Error(
        absl::StrCat(": unknown kind '", kind, "'; use one of ", Quoted(StepKindNames())));

  const std::string prefix = absl::StrCat(where, " (", kind, "): ");
  const std::vector<std::string> fields = StepFieldNames(step);
  for (const auto& [key, value] : json.items())
    if (key != "kind" && std::find(fields.begin(), fields.end(), key) == fields.end())
      return Where{prefix}.Error(
          absl::StrCat("unknown field '", key, "'; a ", kind, " step has fields ", Quoted(fields)));
  absl::Status status;
  std::visit(
      [&](auto& s) {
        ForEachField(s, [&](const char* name, auto& value) {
          if (!status.ok()) return;
          auto it = json.find(name);
          if (it == json.end()) {
            status = Where{prefix}.Error(absl::StrCat("missing field '", name, "'; a ", kind,
                                                      " step needs ", Quoted(fields)));
            return;
          }
          status = ReadValue(*it, &value, Where{absl::StrCat(prefix, "field '", name, "' ")});
        });
      },
      step);
  if (!status.ok()) return status;
  return step;
}

Json ScheduleToJson(const Schedule& schedule) {
  Json j = Json::object();
  j["version"] = schedule.version;
  j["workload"] = schedule.workload;
  j["workload_key"] = schedule.workload_key;
  Json steps = Json::array();
  for (const Step& step : schedule.steps) steps.push_back(StepToJson(step));
  j["steps"] = std::move(steps);
  return j;
}

absl::StatusOr<Schedule> ScheduleFromJson(const Json& json) {
  if (!json.is_object())
    return Where{}.Error(
        absl::StrCat("the top level must be an object {\"workload\": ..., "
                     "\"steps\": [...]}; got ",
                     json.type_name()));
  static const std::vector<std::string> kFields = {"version", "workload", "workload_key", "steps"};
  for (const auto& [key, value] : json.items())
    if (std::find(kFields.begin(), kFields.end(), key) == kFields.end())
      return Where{}.Error(
          absl::StrCat("unknown field '", key, "'; a schedule has fields ", Quoted(kFields)));
  Schedule schedule;
  if (auto it = json.find("version"); it != json.end()) {
    if (absl::Status s = ReadValue(*it, &schedule.version, Where{"field 'version' "}); !s.ok())
      return s;
    if (schedule.version != kScheduleVersion)
      return Where{}.Error(absl::StrCat("unsupported version ", schedule.version,
                                        "; this build reads version ", kScheduleVersion));
  }
  auto workload = json.find("workload");
  if (workload == json.end())
    return Where{}.Error("missing field 'workload' (the workload the steps are for)");
  if (absl::Status s = ReadValue(*workload, &schedule.workload, Where{"field 'workload' "});
      !s.ok())
    return s;
  if (auto it = json.find("workload_key"); it != json.end())
    if (absl::Status s = ReadValue(*it, &schedule.workload_key, Where{"field 'workload_key' "});
        !s.ok())
      return s;
  auto steps = json.find("steps");
  if (steps == json.end()) return Where{}.Error("missing field 'steps' (an array of steps)");
  if (!steps->is_array())
    return Where{}.Error(absl::StrCat("field 'steps' must be an array; got ", steps->type_name()));
  for (size_t i = 0; i < steps->size(); ++i) {
    absl::StatusOr<Step> step = StepFromJson((*steps)[i], static_cast<int>(i));
    if (!step.ok()) return step.status();
    schedule.steps.push_back(*std::move(step));
  }
  return schedule;
}

std::string ScheduleToJsonText(const Schedule& schedule, int indent) {
  return ScheduleToJson(schedule).dump(indent, ' ', false, Json::error_handler_t::replace);
}

absl::StatusOr<Schedule> ParseScheduleJson(std::string_view text) {
  Json json;
  try {
    json = Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    // nlohmann reports "[json.exception.parse_error.101] parse error at line 1, ...".
    std::string detail = e.what();
    if (size_t p = detail.find("] "); p != std::string::npos) detail = detail.substr(p + 2);
    return absl::InvalidArgumentError(absl::StrCat("schedule JSON is not valid JSON (at byte ",
                                                   e.byte, "): ", detail, "; fix the syntax"));
  } catch (const Json::exception& e) {  // out_of_range: a number beyond a double (1e400)
    return absl::InvalidArgumentError(
        absl::StrCat("schedule JSON holds a number out of range (", e.what(), "); numbers must fit a double"));
  }
  return ScheduleFromJson(json);
}

absl::StatusOr<Schedule> LoadScheduleFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError(
        absl::StrCat("cannot open schedule file '", path, "'; check the path"));
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<Schedule> schedule = ParseScheduleJson(text.str());
  if (!schedule.ok())
    return absl::Status(schedule.status().code(),
                        absl::StrCat(path, ": ", schedule.status().message()));
  return schedule;
}

absl::Status SaveScheduleFile(const Schedule& schedule, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return absl::PermissionDeniedError(absl::StrCat("cannot write schedule file '", path, "'"));
  out << ScheduleToJsonText(schedule) << "\n";
  out.close();
  if (!out) return absl::DataLossError(absl::StrCat("writing schedule file '", path, "' failed"));
  return absl::OkStatus();
}

}  // namespace tuneforge::schedule
