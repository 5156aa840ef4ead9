// One Measurer (and so one runner process) per distinct set of measure
// options, reused across leases: the runner keeps each workload's inputs
// and reference outputs, so reuse saves recomputing them.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/codegen/target.h"
#include "proto/tuneforge.pb.h"
#include "measure/measurer.h"

namespace tuneforge::worker {

namespace v1 = ::tuneforge::v1;

class MeasurerPool {
 public:
  MeasurerPool(codegen::Target host, std::string runner_path)
      : host_(std::move(host)), runner_path_(std::move(runner_path)) {}

  // Valid until the next Get. Errors: options Measurer::Create refuses
  // (e.g. a negative repeat), no runner binary.
  absl::StatusOr<measure::Measurer*> Get(const v1::MeasureOptions& options);

 private:
  // Live runner processes are the cost; jobs rarely use more option sets.
  static constexpr size_t kMaxMeasurers = 4;
  codegen::Target host_;
  std::string runner_path_;
  // Most recently used last.
  std::vector<std::pair<std::string, std::unique_ptr<measure::Measurer>>> measurers_;
};

}  // namespace tuneforge::worker
