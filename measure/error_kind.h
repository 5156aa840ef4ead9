// The closed set of ways a measurement can fail. The names are stable: they
// are stored with every record and shown in --json output, so never rename
// or renumber one. error_kind.cc holds the one table that maps this enum,
// the proto's v1::MeasureErrorKind and the names onto each other.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tuneforge::v1 {
enum MeasureErrorKind : int;  // proto/tuneforge.proto
}

namespace tuneforge::measure {

enum class MeasureErrorKind : uint8_t {
  kNone = 0,
  kInvalidSchedule = 1,  // the steps do not replay on the workload
  kLowerError = 2,       // the state cannot be lowered to a loop nest
  kCompileError = 3,     // code generation or loading the object failed
  kRuntimeCrash = 4,     // the kernel killed the runner (a signal)
  kTimeout = 5,          // the candidate ran past its deadline
  kOutOfMemory = 6,      // an allocation failed under the runner's memory limit
  kWrongAnswer = 7,      // outputs differ from the reference program's
  kRunnerError = 8,      // the measuring machinery itself failed
  kWorkerLost = 9,       // every worker it was leased to died or missed its deadline
};
inline constexpr int kNumMeasureErrorKinds = 10;

// "none", "invalid_schedule", "lower_error", "compile_error", "runtime_crash",
// "timeout", "out_of_memory", "wrong_answer", "runner_error", "worker_lost".
const char* ErrorKindName(MeasureErrorKind kind);
std::optional<MeasureErrorKind> ParseErrorKind(std::string_view name);
// "none, invalid_schedule, ..., worker_lost": for error messages.
const char* ErrorKindNameList();

v1::MeasureErrorKind ErrorKindToProto(MeasureErrorKind kind);
// nullopt for MEASURE_ERROR_KIND_UNSPECIFIED and values this build does not
// know.
std::optional<MeasureErrorKind> ErrorKindFromProto(v1::MeasureErrorKind kind);

}  // namespace tuneforge::measure
