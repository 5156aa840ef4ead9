#include "measure/error_kind.h"

#include <iterator>
#include <string>

#include "proto/tuneforge.pb.h"

namespace tuneforge::measure {
namespace {

struct ErrorKindRow {
  MeasureErrorKind kind;
  v1::MeasureErrorKind proto;
  const char* name;
};

// Indexed by the C++ enum's value.
constexpr ErrorKindRow kErrorKinds[] = {
    {MeasureErrorKind::kNone, v1::MEASURE_ERROR_KIND_NONE, "none"},
    {MeasureErrorKind::kInvalidSchedule, v1::MEASURE_ERROR_KIND_INVALID_SCHEDULE, "invalid_schedule"},
    {MeasureErrorKind::kLowerError, v1::MEASURE_ERROR_KIND_LOWER_ERROR, "lower_error"},
    {MeasureErrorKind::kCompileError, v1::MEASURE_ERROR_KIND_COMPILE_ERROR, "compile_error"},
    {MeasureErrorKind::kRuntimeCrash, v1::MEASURE_ERROR_KIND_RUNTIME_CRASH, "runtime_crash"},
    {MeasureErrorKind::kTimeout, v1::MEASURE_ERROR_KIND_TIMEOUT, "timeout"},
    {MeasureErrorKind::kOutOfMemory, v1::MEASURE_ERROR_KIND_OUT_OF_MEMORY, "out_of_memory"},
    {MeasureErrorKind::kWrongAnswer, v1::MEASURE_ERROR_KIND_WRONG_ANSWER, "wrong_answer"},
    {MeasureErrorKind::kRunnerError, v1::MEASURE_ERROR_KIND_RUNNER_ERROR, "runner_error"},
    {MeasureErrorKind::kWorkerLost, v1::MEASURE_ERROR_KIND_WORKER_LOST, "worker_lost"},
};
static_assert(std::size(kErrorKinds) == kNumMeasureErrorKinds, "one row per error kind");
static_assert(std::size(kErrorKinds) == v1::MeasureErrorKind_ARRAYSIZE - 1,
              "one row per proto error kind (all but UNSPECIFIED)");

constexpr bool RowsInOrder() {
  for (size_t i = 0; i < std::size(kErrorKinds); ++i)
    if (static_cast<size_t>(kErrorKinds[i].kind) != i) return false;
  return true;
}
static_assert(RowsInOrder(), "kErrorKinds is indexed by the enum's value");

const ErrorKindRow& Row(MeasureErrorKind kind) {
  auto i = static_cast<size_t>(kind);
  // Out of range only through a bad cast: report it as the machinery's fault.
  return kErrorKinds[i < std::size(kErrorKinds) ? i : static_cast<size_t>(MeasureErrorKind::kRunnerError)];
}

}  // namespace

const char* ErrorKindName(MeasureErrorKind kind) { return Row(kind).name; }

std::optional<MeasureErrorKind> ParseErrorKind(std::string_view name) {
  for (const ErrorKindRow& row : kErrorKinds)
    if (name == row.name) return row.kind;
  return std::nullopt;
}

const char* ErrorKindNameList() {
  static const std::string list = [] {
    std::string out;
    for (const ErrorKindRow& row : kErrorKinds) out += (out.empty() ? "" : ", ") + std::string(row.name);
    return out;
  }();
  return list.c_str();
}

v1::MeasureErrorKind ErrorKindToProto(MeasureErrorKind kind) { return Row(kind).proto; }

std::optional<MeasureErrorKind> ErrorKindFromProto(v1::MeasureErrorKind kind) {
  for (const ErrorKindRow& row : kErrorKinds)
    if (row.proto == kind) return row.kind;
  return std::nullopt;
}

}  // namespace tuneforge::measure
