// A schedule: the steps for one workload, as stored and sent. Its JSON form
// is the schedule file of INTERFACE.md (schedule_json.h); its protobuf form
// is tuneforge.v1.Schedule (schedule_proto.h).
#pragma once

#include <string>
#include <vector>

#include "common/schedule/steps.h"

namespace tuneforge::schedule {

// The schema version written by this build; readers reject other versions.
inline constexpr int kScheduleVersion = 1;

struct Schedule {
  int version = kScheduleVersion;
  std::string workload;      // as the user wrote it: "matmul:M=1024,N=1024,K=1024"
  std::string workload_key;  // ComputeDag::workload_key() of the workload; may be empty
  std::vector<Step> steps;
};

}  // namespace tuneforge::schedule
