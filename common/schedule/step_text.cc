// StepToString and ParseAnnotation (declared in steps.h).
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/schedule/step_fields.h"
#include "common/schedule/steps.h"

namespace tuneforge::schedule {
namespace {

std::string FieldText(int v) { return absl::StrCat(v); }
std::string FieldText(int64_t v) { return absl::StrCat(v); }
std::string FieldText(bool v) { return v ? "true" : "false"; }
std::string FieldText(const std::string& v) { return absl::StrCat("\"", v, "\""); }
std::string FieldText(IterAnnotation v) { return AnnotationName(v); }
template <class T>
std::string FieldText(const std::vector<T>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
}

}  // namespace

std::string StepToString(const Step& step) {
  std::vector<std::string> fields;
  std::visit(
      [&](const auto& s) {
        ForEachField(s, [&](const char* name, const auto& value) {
          fields.push_back(absl::StrCat(name, "=", FieldText(value)));
        });
      },
      step);
  return absl::StrCat(StepKindName(step), "(", absl::StrJoin(fields, ", "), ")");
}

std::optional<IterAnnotation> ParseAnnotation(std::string_view name) {
  for (int a = 0; a <= static_cast<int>(IterAnnotation::kThreadZ); ++a)
    if (name == AnnotationName(static_cast<IterAnnotation>(a)))
      return static_cast<IterAnnotation>(a);
  return std::nullopt;
}

}  // namespace tuneforge::schedule
