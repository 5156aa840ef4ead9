#include "server/service/field_checks.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/service/limits.h"

namespace tuneforge::server {
namespace {

// A value quoted for an error message: escaped, and cut when long, so a
// hostile request cannot make the message huge or unprintable.
std::string Quoted(absl::string_view value) {
  constexpr size_t kShown = 64;
  std::string shown = absl::CHexEscape(absl::string_view(value.data(), std::min(value.size(), kShown)));
  return absl::StrCat("'", shown, value.size() > kShown ? "...'" : "'");
}

bool IsControl(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

}  // namespace

absl::Status FieldError(absl::string_view path, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat(path, " ", problem));
}

std::string Indexed(absl::string_view path, int index) { return absl::StrCat(path, "[", index, "]"); }

std::string Child(absl::string_view path, absl::string_view field) {
  return path.empty() ? std::string(field) : absl::StrCat(path, ".", field);
}

absl::Status CheckId(absl::string_view path, absl::string_view value) {
  if (value.empty()) return FieldError(path, "is required (an id the server gave out)");
  if (value.size() > static_cast<size_t>(limits::kMaxIdLength))
    return FieldError(path, absl::StrCat("is ", value.size(), " bytes long; ids are at most ",
                                         limits::kMaxIdLength, " (an id the server gave out)"));
  for (char c : value) {
    if (IsControl(c) || c == ' ' || static_cast<unsigned char>(c) >= 0x80)
      return FieldError(path, absl::StrCat(Quoted(value),
                                           " is not an id: ids are printable ASCII without spaces"));
  }
  return absl::OkStatus();
}

absl::Status CheckText(absl::string_view path, absl::string_view value, int64_t max_length) {
  if (static_cast<int64_t>(value.size()) > max_length)
    return FieldError(path, absl::StrCat("is ", value.size(), " bytes long; at most ", max_length,
                                         " are allowed"));
  for (char c : value) {
    if (IsControl(c) && c != '\t')
      return FieldError(path, "contains a control character; use printable text");
  }
  return absl::OkStatus();
}

absl::Status CheckDeviceKey(absl::string_view path, absl::string_view value, bool required) {
  if (value.empty()) {
    if (!required) return absl::OkStatus();
    return FieldError(path, "is required: the device key of the workers to measure on "
                            "(e.g. 'x86_64-avx512-2c'; `tuneforge workers` lists them)");
  }
  if (value.size() > static_cast<size_t>(limits::kMaxDeviceKeyLength))
    return FieldError(path, absl::StrCat("is ", value.size(), " bytes long; device keys are at most ",
                                         limits::kMaxDeviceKeyLength));
  for (char c : value) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-' &&
        c != '+' && c != ':')
      return FieldError(path, absl::StrCat(Quoted(value),
                                           " is not a device key: use letters, digits and . _ - + : "
                                           "(e.g. 'x86_64-avx512-2c')"));
  }
  return absl::OkStatus();
}

absl::Status CheckWorkloadKey(absl::string_view path, absl::string_view value, bool required) {
  if (value.empty()) {
    if (!required) return absl::OkStatus();
    return FieldError(path, "is required (16 hex digits, as `tuneforge show` prints it)");
  }
  bool ok = value.size() == 16;
  for (char c : value) ok = ok && (absl::ascii_isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f'));
  if (!ok)
    return FieldError(path, absl::StrCat(Quoted(value),
                                         " is not a workload key: 16 lowercase hex digits, as "
                                         "`tuneforge show WORKLOAD` prints it"));
  return absl::OkStatus();
}

absl::Status CheckRange(absl::string_view path, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi) return FieldError(path, absl::StrCat("must be ", lo, "..", hi, ", got ", value));
  return absl::OkStatus();
}

absl::Status CheckAtLeast(absl::string_view path, int64_t value, int64_t lo) {
  if (value < lo) return FieldError(path, absl::StrCat("must be >= ", lo, ", got ", value));
  return absl::OkStatus();
}

absl::Status CheckAtMost(absl::string_view path, int64_t value, int64_t hi) {
  if (value > hi) return FieldError(path, absl::StrCat("must be <= ", hi, ", got ", value));
  return absl::OkStatus();
}

absl::Status CheckFiniteRange(absl::string_view path, double value, double lo, double hi) {
  if (!std::isfinite(value) || value < lo || value > hi)
    return FieldError(path, absl::StrFormat("must be a number in %.15g..%.15g, got %.15g", lo, hi, value));
  return absl::OkStatus();
}

absl::Status CheckWorkload(absl::string_view path, const v1::Workload& workload) {
  switch (workload.source_case()) {
    case v1::Workload::kSpec: {
      std::string spec_path = Child(path, "spec");
      const std::string& spec = workload.spec();
      if (spec.empty())
        return FieldError(spec_path, "is empty; give a workload such as 'matmul:M=1024,N=1024,K=1024'");
      if (absl::StartsWith(spec, "def:"))
        return FieldError(spec_path, absl::StrCat(Quoted(spec),
                                                  " names a file, which the server does not read; send "
                                                  "the file's text in ",
                                                  Child(path, "definition"), " instead"));
      return CheckText(spec_path, spec, limits::kMaxSpecLength);
    }
    case v1::Workload::kDefinition: {
      std::string def_path = Child(path, "definition");
      if (workload.definition().empty())
        return FieldError(def_path, "is empty; send the text of the compute definition");
      if (workload.definition().size() > static_cast<size_t>(limits::kMaxDefinitionBytes))
        return FieldError(def_path, absl::StrCat("is ", workload.definition().size(),
                                                 " bytes; definitions are at most ",
                                                 limits::kMaxDefinitionBytes));
      return CheckText(Child(path, "name"), workload.name(), limits::kMaxNameLength);
    }
    case v1::Workload::SOURCE_NOT_SET:
      break;
  }
  return FieldError(path, "is empty: give its spec (e.g. 'matmul:M=1024,N=1024,K=1024') or the "
                          "text of a compute definition");
}

absl::Status NameNotFoundField(absl::string_view path, absl::Status status) {
  if (status.code() != absl::StatusCode::kNotFound) return status;
  absl::string_view message(status.message().data(), status.message().size());
  if (absl::StartsWith(message, path)) return status;
  return absl::NotFoundError(absl::StrCat(path, ": ", message));
}

}  // namespace tuneforge::server
