#include "measure/error_kind.h"

namespace tuneforge::measure {

const char* ErrorKindName(MeasureErrorKind kind) {
  switch (kind) {
    case MeasureErrorKind::kNone:
      return "none";
    case MeasureErrorKind::kInvalidSchedule:
      return "invalid_schedule";
    case MeasureErrorKind::kLowerError:
      return "lower_error";
    case MeasureErrorKind::kCompileError:
      return "compile_error";
    case MeasureErrorKind::kRuntimeCrash:
      return "runtime_crash";
    case MeasureErrorKind::kTimeout:
      return "timeout";
    case MeasureErrorKind::kOutOfMemory:
      return "out_of_memory";
    case MeasureErrorKind::kWrongAnswer:
      return "wrong_answer";
    case MeasureErrorKind::kRunnerError:
      return "runner_error";
    case MeasureErrorKind::kWorkerLost:
      return "worker_lost";
  }
  return "runner_error";
}

std::optional<MeasureErrorKind> ParseErrorKind(std::string_view name) {
  for (int i = 0; i < kNumMeasureErrorKinds; ++i) {
    auto kind = static_cast<MeasureErrorKind>(i);
    if (name == ErrorKindName(kind)) return kind;
  }
  return std::nullopt;
}

}  // namespace tuneforge::measure
