// Records as JSON lines (the export format):
//
//   {"schema_version":1,"id":7,"workload_key":"...","workload":"matmul:...",
//    "device_key":"x86_64-avx512-2c","job_id":"j-1","task_id":"t-42",
//    "schedule_json":"{\"workload\":...}","error_kind":"none","error":"",
//    "median_seconds":0.0012,"repeat_seconds":[0.0012,0.0013],"gflops":812.5,
//    "compile_ms":14.2,"worker_id":"w-3","created_unix_ms":1700000000000,
//    "timings":1}
//
// A record of a compute definition ("workload":"def:NAME") also carries
// "definition": the definition's text, so that another store can replay
// its schedule; one its job's final comparison timed carries
// "compared_at_unix_ms". One table lists every field once, for writing and reading.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "server/record_store/record_store.h"
#include "server/record_store/record_validation.h"

namespace tuneforge::server {
namespace {

using Json = nlohmann::ordered_json;

enum class FieldType { kString, kInt32, kInt64, kNumber, kNumbers, kErrorKind };

struct Field {
  const char* name;
  FieldType type;
  bool required;  // else absent means the type's default
  Json (*get)(const Record&);
  void (*set)(Record&, const Json&);  // after the type check
  bool omitted_when_empty = false;    // a field most records do not have
};

const Field kFields[] = {
    {"schema_version", FieldType::kInt32, true,
     [](const Record& r) { return Json(r.schema_version == 0 ? kRecordSchemaVersion : r.schema_version); },
     [](Record& r, const Json& v) { r.schema_version = v.get<int32_t>(); }},
    {"id", FieldType::kInt64, false, [](const Record& r) { return Json(r.id); },
     [](Record& r, const Json& v) { r.id = v.get<int64_t>(); }},
    {"workload_key", FieldType::kString, true, [](const Record& r) { return Json(r.workload_key); },
     [](Record& r, const Json& v) { r.workload_key = v.get<std::string>(); }},
    {"workload", FieldType::kString, false, [](const Record& r) { return Json(r.workload); },
     [](Record& r, const Json& v) { r.workload = v.get<std::string>(); }},
    {"device_key", FieldType::kString, true, [](const Record& r) { return Json(r.device_key); },
     [](Record& r, const Json& v) { r.device_key = v.get<std::string>(); }},
    {"job_id", FieldType::kString, false, [](const Record& r) { return Json(r.job_id); },
     [](Record& r, const Json& v) { r.job_id = v.get<std::string>(); }},
    {"task_id", FieldType::kString, true, [](const Record& r) { return Json(r.task_id); },
     [](Record& r, const Json& v) { r.task_id = v.get<std::string>(); }},
    {"schedule_json", FieldType::kString, true, [](const Record& r) { return Json(r.schedule_json); },
     [](Record& r, const Json& v) { r.schedule_json = v.get<std::string>(); }},
    {"error_kind", FieldType::kErrorKind, true,
     [](const Record& r) { return Json(measure::ErrorKindName(r.error_kind)); },
     [](Record& r, const Json& v) {
       r.error_kind = measure::ParseErrorKind(v.get<std::string>()).value_or(measure::MeasureErrorKind::kRunnerError);
     }},
    {"error", FieldType::kString, false, [](const Record& r) { return Json(r.error); },
     [](Record& r, const Json& v) { r.error = v.get<std::string>(); }},
    {"median_seconds", FieldType::kNumber, true, [](const Record& r) { return Json(r.median_seconds); },
     [](Record& r, const Json& v) { r.median_seconds = v.get<double>(); }},
    {"repeat_seconds", FieldType::kNumbers, false, [](const Record& r) { return Json(r.repeat_seconds); },
     [](Record& r, const Json& v) {
       for (const Json& x : v) r.repeat_seconds.push_back(x.get<double>());
     }},
    {"gflops", FieldType::kNumber, false, [](const Record& r) { return Json(r.gflops); },
     [](Record& r, const Json& v) { r.gflops = v.get<double>(); }},
    {"compile_ms", FieldType::kNumber, false, [](const Record& r) { return Json(r.compile_ms); },
     [](Record& r, const Json& v) { r.compile_ms = v.get<double>(); }},
    {"worker_id", FieldType::kString, false, [](const Record& r) { return Json(r.worker_id); },
     [](Record& r, const Json& v) { r.worker_id = v.get<std::string>(); }},
    {"created_unix_ms", FieldType::kInt64, true, [](const Record& r) { return Json(r.created_unix_ms); },
     [](Record& r, const Json& v) { r.created_unix_ms = v.get<int64_t>(); }},
    {"timings", FieldType::kInt32, false, [](const Record& r) { return Json(std::max(r.timings, 1)); },
     [](Record& r, const Json& v) { r.timings = v.get<int32_t>(); }},
    {"compared_at_unix_ms", FieldType::kInt64, false, [](const Record& r) { return Json(r.compared_at_unix_ms); },
     [](Record& r, const Json& v) { r.compared_at_unix_ms = v.get<int64_t>(); }, /*omitted_when_empty=*/true},
    {"definition", FieldType::kString, false, [](const Record& r) { return Json(r.definition); },
     [](Record& r, const Json& v) { r.definition = v.get<std::string>(); }, /*omitted_when_empty=*/true},
};

std::string Shown(const Json& v) {
  std::string text = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 60) text = absl::StrCat(text.substr(0, 57), "...");
  return absl::StrCat(v.type_name(), " ", text);
}

absl::Status TypeError(const Field& field, const std::string& expected, const Json& got) {
  return absl::InvalidArgumentError(
      absl::StrCat("field '", field.name, "' must be ", expected, "; got ", Shown(got)));
}

absl::Status CheckInteger(const Field& field, const Json& v, int64_t min, int64_t max) {
  if (!v.is_number_integer()) return TypeError(field, "an integer", v);
  const bool too_big = v.is_number_unsigned() ? v.get<uint64_t>() > static_cast<uint64_t>(max)
                                              : v.get<int64_t>() > max;
  if (too_big || (!v.is_number_unsigned() && v.get<int64_t>() < min))
    return absl::InvalidArgumentError(
        absl::StrCat("field '", field.name, "' is out of range [", min, ", ", max, "]: ", v.dump()));
  return absl::OkStatus();
}

// An error kind is one of the names users see ("none", "compile_error").
absl::Status CheckErrorKind(const Field& field, const Json& v) {
  if (!v.is_string()) return TypeError(field, "a string", v);
  const std::string kind = v.get<std::string>();
  if (kind.empty())
    return absl::InvalidArgumentError("field 'error_kind' is empty; use \"none\" for a correct measurement");
  for (char c : kind) {
    if (!((c >= 'a' && c <= 'z') || c == '_'))
      return absl::InvalidArgumentError(absl::StrCat(
          "field 'error_kind' must be a lower-case name like \"none\" or \"compile_error\"; got \"", kind, "\""));
  }
  if (!measure::ParseErrorKind(kind))
    return absl::InvalidArgumentError(absl::StrCat("field 'error_kind' is \"", kind,
                                                   "\", which this tuneforge does not know; use one of ",
                                                   measure::ErrorKindNameList()));
  return absl::OkStatus();
}

absl::Status CheckType(const Field& field, const Json& v) {
  switch (field.type) {
    case FieldType::kString:
      if (!v.is_string()) return TypeError(field, "a string", v);
      return absl::OkStatus();
    case FieldType::kInt32:
      return CheckInteger(field, v, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
    case FieldType::kInt64:
      return CheckInteger(field, v, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
    case FieldType::kNumber:
      if (!v.is_number()) return TypeError(field, "a number", v);
      return absl::OkStatus();
    case FieldType::kErrorKind:
      return CheckErrorKind(field, v);
    case FieldType::kNumbers:
      if (!v.is_array()) return TypeError(field, "an array of numbers", v);
      for (size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_number())
          return absl::InvalidArgumentError(absl::StrCat("field '", field.name, "' must be an array of numbers; "
                                                         "element ", i, " is ", Shown(v[i])));
      }
      return absl::OkStatus();
  }
  return absl::InternalError("unhandled field type");
}

absl::Status UnknownField(const std::string& name) {
  std::vector<std::string> names;
  for (const Field& field : kFields) names.push_back(field.name);
  return absl::InvalidArgumentError(
      absl::StrCat("unknown field '", name, "'; a record has: ", absl::StrJoin(names, ", ")));
}

}  // namespace

std::string RecordToJsonLine(const Record& record) {
  Json json = Json::object();
  for (const Field& field : kFields) {
    Json value = field.get(record);
    const bool empty = (value.is_string() && value.get<std::string>().empty()) ||
                       (value.is_number_integer() && value.get<int64_t>() == 0);
    if (field.omitted_when_empty && empty) continue;
    json[field.name] = std::move(value);
  }
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

absl::StatusOr<Record> RecordFromJsonLine(const std::string& line) {
  Json json;
  // The last key read names the field of a number too large for a double
  // (1e400), which the parser refuses with out_of_range, not parse_error.
  std::string last_key;
  try {
    json = Json::parse(line, [&](int, Json::parse_event_t event, Json& parsed) {
      if (event == Json::parse_event_t::key && parsed.is_string()) last_key = parsed.get<std::string>();
      return true;
    });
  } catch (const Json::parse_error& e) {
    return absl::InvalidArgumentError(absl::StrCat("not valid JSON (byte ", e.byte, "): ", e.what()));
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(last_key.empty() ? "a value" : absl::StrCat("field '", last_key, "'"),
                     " holds a number out of range (", e.what(), "); numbers must fit a double"));
  }
  if (!json.is_object())
    return absl::InvalidArgumentError(absl::StrCat("must be a JSON object (one record); got ", Shown(json)));

  std::set<std::string> known;
  Record record;
  for (const Field& field : kFields) {
    known.insert(field.name);
    auto it = json.find(field.name);
    if (it == json.end()) {
      if (field.required)
        return absl::InvalidArgumentError(absl::StrCat("field '", field.name, "' is missing; it is required"));
      continue;
    }
    if (absl::Status s = CheckType(field, *it); !s.ok()) return s;
    field.set(record, *it);
    // First in the table, so judged before anything else: a newer version
    // may have other fields.
    if (&field == &kFields[0] &&
        (record.schema_version < 1 || record.schema_version > kRecordSchemaVersion))
      return UnknownSchemaVersion(record.schema_version);
  }
  for (const auto& [name, value] : json.items()) {
    if (known.count(name) == 0) return UnknownField(name);
  }
  if (absl::Status s = ValidateRecord(record); !s.ok()) return s;
  return record;
}

}  // namespace tuneforge::server
