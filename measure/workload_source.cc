#include "measure/workload_source.h"

namespace tuneforge::measure {

absl::StatusOr<te::Workload> ParseWorkloadSource(const WorkloadSource& source) {
  switch (source.kind) {
    case WorkloadSource::Kind::kSpec:
      return te::ParseWorkload(source.text);
    case WorkloadSource::Kind::kDefinition:
      return te::ParseDefinition(source.text, source.name.empty() ? "def" : source.name);
    case WorkloadSource::Kind::kUnset:
      break;
  }
  return absl::InvalidArgumentError("workload: give a spec or a definition");
}

}  // namespace tuneforge::measure
