#include "common/schedule/schedule_proto.h"

#include "absl/strings/str_cat.h"
#include "common/schedule/step_fields.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace tuneforge::schedule {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

v1::IterAnnotation ToProtoAnnotation(IterAnnotation a) {
  switch (a) {
    case IterAnnotation::kNone:
      return v1::ITER_ANNOTATION_NONE;
    case IterAnnotation::kUnroll:
      return v1::ITER_ANNOTATION_UNROLL;
    case IterAnnotation::kVectorize:
      return v1::ITER_ANNOTATION_VECTORIZE;
    case IterAnnotation::kParallel:
      return v1::ITER_ANNOTATION_PARALLEL;
    case IterAnnotation::kVThread:
      return v1::ITER_ANNOTATION_VTHREAD;
    case IterAnnotation::kBlockX:
      return v1::ITER_ANNOTATION_BLOCK_X;
    case IterAnnotation::kBlockY:
      return v1::ITER_ANNOTATION_BLOCK_Y;
    case IterAnnotation::kBlockZ:
      return v1::ITER_ANNOTATION_BLOCK_Z;
    case IterAnnotation::kThreadX:
      return v1::ITER_ANNOTATION_THREAD_X;
    case IterAnnotation::kThreadY:
      return v1::ITER_ANNOTATION_THREAD_Y;
    case IterAnnotation::kThreadZ:
      return v1::ITER_ANNOTATION_THREAD_Z;
  }
  return v1::ITER_ANNOTATION_NONE;
}

std::optional<IterAnnotation> FromProtoAnnotation(int value) {
  for (int a = 0; a <= static_cast<int>(IterAnnotation::kThreadZ); ++a)
    if (ToProtoAnnotation(static_cast<IterAnnotation>(a)) == value)
      return static_cast<IterAnnotation>(a);
  return std::nullopt;
}

// Whether proto field `f` has the C++ type the step field holds (reflection
// aborts on a mismatch, so it is checked first; the tests keep them equal).
bool Matches(const FieldDescriptor* f, FieldDescriptor::CppType type, bool repeated) {
  return f && f->cpp_type() == type && f->is_repeated() == repeated;
}
bool FieldMatches(const FieldDescriptor* f, const int&) {
  return Matches(f, FieldDescriptor::CPPTYPE_INT32, false);
}
bool FieldMatches(const FieldDescriptor* f, const int64_t&) {
  return Matches(f, FieldDescriptor::CPPTYPE_INT64, false);
}
bool FieldMatches(const FieldDescriptor* f, const bool&) {
  return Matches(f, FieldDescriptor::CPPTYPE_BOOL, false);
}
bool FieldMatches(const FieldDescriptor* f, const std::string&) {
  return Matches(f, FieldDescriptor::CPPTYPE_STRING, false);
}
bool FieldMatches(const FieldDescriptor* f, const IterAnnotation&) {
  return Matches(f, FieldDescriptor::CPPTYPE_ENUM, false);
}
bool FieldMatches(const FieldDescriptor* f, const std::vector<int>&) {
  return Matches(f, FieldDescriptor::CPPTYPE_INT32, true);
}
bool FieldMatches(const FieldDescriptor* f, const std::vector<int64_t>&) {
  return Matches(f, FieldDescriptor::CPPTYPE_INT64, true);
}

// Writing: the step's value into the proto field of the same name.
struct FieldWriter {
  Message* msg;
  const Reflection* r;
  const FieldDescriptor* f;
  void operator()(int v) const { r->SetInt32(msg, f, v); }
  void operator()(int64_t v) const { r->SetInt64(msg, f, v); }
  void operator()(bool v) const { r->SetBool(msg, f, v); }
  void operator()(const std::string& v) const { r->SetString(msg, f, v); }
  void operator()(IterAnnotation v) const { r->SetEnumValue(msg, f, ToProtoAnnotation(v)); }
  void operator()(const std::vector<int>& v) const {
    for (int x : v) r->AddInt32(msg, f, x);
  }
  void operator()(const std::vector<int64_t>& v) const {
    for (int64_t x : v) r->AddInt64(msg, f, x);
  }
};

// Reading, with validation; `where` is "schedule proto: step 3 (split): field 'iter'".
struct FieldReader {
  const Message& msg;
  const Reflection* r;
  const FieldDescriptor* f;
  std::string where;

  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat(where, " ", what));
  }
  absl::Status Index(int32_t v, int* out) const {
    if (v < 0) return Error(absl::StrCat("is an index and must be >= 0; got ", v));
    *out = v;
    return absl::OkStatus();
  }
  absl::Status operator()(int* out) const { return Index(r->GetInt32(msg, f), out); }
  absl::Status operator()(int64_t* out) const {
    *out = r->GetInt64(msg, f);
    return absl::OkStatus();
  }
  absl::Status operator()(bool* out) const {
    *out = r->GetBool(msg, f);
    return absl::OkStatus();
  }
  absl::Status operator()(std::string* out) const {
    *out = r->GetString(msg, f);
    return absl::OkStatus();
  }
  absl::Status operator()(IterAnnotation* out) const {
    int value = r->GetEnumValue(msg, f);
    std::optional<IterAnnotation> a = FromProtoAnnotation(value);
    if (!a) return Error(absl::StrCat("has unknown annotation value ", value));
    *out = *a;
    return absl::OkStatus();
  }
  absl::Status operator()(std::vector<int>* out) const {
    out->clear();
    for (int i = 0; i < r->FieldSize(msg, f); ++i) {
      int x = 0;
      if (absl::Status s = Index(r->GetRepeatedInt32(msg, f, i), &x); !s.ok()) return s;
      out->push_back(x);
    }
    return absl::OkStatus();
  }
  absl::Status operator()(std::vector<int64_t>* out) const {
    out->clear();
    for (int i = 0; i < r->FieldSize(msg, f); ++i) out->push_back(r->GetRepeatedInt64(msg, f, i));
    return absl::OkStatus();
  }
};

}  // namespace

v1::Step StepToProto(const Step& step) {
  v1::Step proto;
  const FieldDescriptor* kind = proto.GetDescriptor()->FindFieldByName(StepKindName(step));
  Message* msg = proto.GetReflection()->MutableMessage(&proto, kind);
  std::visit(
      [&](const auto& s) {
        ForEachField(s, [&](const char* name, const auto& value) {
          const FieldDescriptor* f = msg->GetDescriptor()->FindFieldByName(name);
          if (FieldMatches(f, value)) FieldWriter{msg, msg->GetReflection(), f}(value);
        });
      },
      step);
  return proto;
}

absl::StatusOr<Step> StepFromProto(const v1::Step& proto, int step_index) {
  const std::string where = absl::StrCat("schedule proto: step ", step_index);
  const Reflection* reflection = proto.GetReflection();
  const FieldDescriptor* kind =
      reflection->GetOneofFieldDescriptor(proto, proto.GetDescriptor()->FindOneofByName("kind"));
  if (!kind)
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": no step kind is set; set one field of the 'kind' oneof"));
  Step step;
  if (!WithStepKindNamed(kind->name(), [&](Step s) { step = std::move(s); }))
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": kind '", kind->name(), "' is not known to this build"));
  const Message& msg = reflection->GetMessage(proto, kind);
  absl::Status status;
  std::visit(
      [&](auto& s) {
        ForEachField(s, [&](const char* name, auto& value) {
          if (!status.ok()) return;
          const FieldDescriptor* f = msg.GetDescriptor()->FindFieldByName(name);
          std::string field = absl::StrCat(where, " (", kind->name(), "): field '", name, "'");
          if (!FieldMatches(f, value)) {
            status = absl::InternalError(
                absl::StrCat(field, " is missing from schedule.proto or has another type"));
            return;
          }
          status = FieldReader{msg, msg.GetReflection(), f, field}(&value);
        });
      },
      step);
  if (!status.ok()) return status;
  return step;
}

v1::Schedule ScheduleToProto(const Schedule& schedule) {
  v1::Schedule proto;
  proto.set_version(schedule.version);
  proto.set_workload(schedule.workload);
  proto.set_workload_key(schedule.workload_key);
  for (const Step& step : schedule.steps) *proto.add_steps() = StepToProto(step);
  return proto;
}

absl::StatusOr<Schedule> ScheduleFromProto(const v1::Schedule& proto) {
  if (proto.version() != kScheduleVersion)
    return absl::InvalidArgumentError(absl::StrCat("schedule proto: unsupported version ",
                                                   proto.version(), "; this build reads version ",
                                                   kScheduleVersion, " (set Schedule.version)"));
  Schedule schedule;
  schedule.version = proto.version();
  schedule.workload = proto.workload();
  schedule.workload_key = proto.workload_key();
  for (int i = 0; i < proto.steps_size(); ++i) {
    absl::StatusOr<Step> step = StepFromProto(proto.steps(i), i);
    if (!step.ok()) return step.status();
    schedule.steps.push_back(*std::move(step));
  }
  return schedule;
}

}  // namespace tuneforge::schedule
