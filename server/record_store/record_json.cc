// Records as JSON lines (the export format):
//
//   {"schema_version":1,"id":7,"workload_key":"...","workload":"matmul:...",
//    "device_key":"x86_64-avx512-2c","job_id":"j-1","task_id":"t-42",
//    "schedule_json":"{\"workload\":...}","error_kind":"none","error":"",
//    "median_seconds":0.0012,"repeat_seconds":[0.0012,0.0013],"gflops":812.5,
//    "compile_ms":14.2,"worker_id":"w-3","created_unix_ms":1700000000000,
//    "timings":1}
//
// One table lists every field once, for writing and for reading.
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

enum class FieldType { kString, kInt32, kInt64, kNumber, kNumbers };

struct Field {
  const char* name;
  FieldType type;
  bool required;  // else absent means the proto default
  Json (*get)(const v1::Record&);
  void (*set)(v1::Record&, const Json&);  // after the type check
};

const Field kFields[] = {
    {"schema_version", FieldType::kInt32, true,
     [](const v1::Record& r) {
       return Json(r.schema_version() == 0 ? kRecordSchemaVersion : r.schema_version());
     },
     [](v1::Record& r, const Json& v) { r.set_schema_version(v.get<int32_t>()); }},
    {"id", FieldType::kInt64, false, [](const v1::Record& r) { return Json(r.id()); },
     [](v1::Record& r, const Json& v) { r.set_id(v.get<int64_t>()); }},
    {"workload_key", FieldType::kString, true, [](const v1::Record& r) { return Json(r.workload_key()); },
     [](v1::Record& r, const Json& v) { r.set_workload_key(v.get<std::string>()); }},
    {"workload", FieldType::kString, false, [](const v1::Record& r) { return Json(r.workload()); },
     [](v1::Record& r, const Json& v) { r.set_workload(v.get<std::string>()); }},
    {"device_key", FieldType::kString, true, [](const v1::Record& r) { return Json(r.device_key()); },
     [](v1::Record& r, const Json& v) { r.set_device_key(v.get<std::string>()); }},
    {"job_id", FieldType::kString, false, [](const v1::Record& r) { return Json(r.job_id()); },
     [](v1::Record& r, const Json& v) { r.set_job_id(v.get<std::string>()); }},
    {"task_id", FieldType::kString, true, [](const v1::Record& r) { return Json(r.task_id()); },
     [](v1::Record& r, const Json& v) { r.set_task_id(v.get<std::string>()); }},
    {"schedule_json", FieldType::kString, true, [](const v1::Record& r) { return Json(r.schedule_json()); },
     [](v1::Record& r, const Json& v) { r.set_schedule_json(v.get<std::string>()); }},
    {"error_kind", FieldType::kString, true, [](const v1::Record& r) { return Json(r.error_kind()); },
     [](v1::Record& r, const Json& v) { r.set_error_kind(v.get<std::string>()); }},
    {"error", FieldType::kString, false, [](const v1::Record& r) { return Json(r.error()); },
     [](v1::Record& r, const Json& v) { r.set_error(v.get<std::string>()); }},
    {"median_seconds", FieldType::kNumber, true, [](const v1::Record& r) { return Json(r.median_seconds()); },
     [](v1::Record& r, const Json& v) { r.set_median_seconds(v.get<double>()); }},
    {"repeat_seconds", FieldType::kNumbers, false,
     [](const v1::Record& r) { return Json(std::vector<double>(r.repeat_seconds().begin(), r.repeat_seconds().end())); },
     [](v1::Record& r, const Json& v) {
       for (const Json& x : v) r.add_repeat_seconds(x.get<double>());
     }},
    {"gflops", FieldType::kNumber, false, [](const v1::Record& r) { return Json(r.gflops()); },
     [](v1::Record& r, const Json& v) { r.set_gflops(v.get<double>()); }},
    {"compile_ms", FieldType::kNumber, false, [](const v1::Record& r) { return Json(r.compile_ms()); },
     [](v1::Record& r, const Json& v) { r.set_compile_ms(v.get<double>()); }},
    {"worker_id", FieldType::kString, false, [](const v1::Record& r) { return Json(r.worker_id()); },
     [](v1::Record& r, const Json& v) { r.set_worker_id(v.get<std::string>()); }},
    {"created_unix_ms", FieldType::kInt64, true, [](const v1::Record& r) { return Json(r.created_unix_ms()); },
     [](v1::Record& r, const Json& v) { r.set_created_unix_ms(v.get<int64_t>()); }},
    {"timings", FieldType::kInt32, false, [](const v1::Record& r) { return Json(std::max(r.timings(), 1)); },
     [](v1::Record& r, const Json& v) { r.set_timings(v.get<int32_t>()); }},
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

std::string RecordToJsonLine(const v1::Record& record) {
  Json json = Json::object();
  for (const Field& field : kFields) json[field.name] = field.get(record);
  return json.dump(-1, ' ', false, Json::error_handler_t::replace);
}

absl::StatusOr<v1::Record> RecordFromJsonLine(const std::string& line) {
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
  v1::Record record;
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
        (record.schema_version() < 1 || record.schema_version() > kRecordSchemaVersion))
      return UnknownSchemaVersion(record.schema_version());
  }
  for (const auto& [name, value] : json.items()) {
    if (known.count(name) == 0) return UnknownField(name);
  }
  if (absl::Status s = ValidateRecord(record); !s.ok()) return s;
  return record;
}

}  // namespace tuneforge::server
