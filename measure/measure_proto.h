// The one conversion between the measurement types and their protos, used
// by the server, the worker, the CLI, the bench and the runner pipe alike.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "common/codegen/compiler.h"
#include "measure/measure_types.h"
#include "measure/workload_source.h"
#include "proto/tuneforge.pb.h"

namespace tuneforge::measure {

// Every field the proto carries (timing, threads, timeout); the local ones
// (reference timeout, build jobs, memory limit, runner path) stay behind.
v1::MeasureOptions MeasureOptionsToProto(const MeasureOptions& options);
// `local` with the proto's fields laid over it; a zero field keeps the
// value in `local` (by default MeasureOptions' defaults: number 1, repeat 3,
// min_repeat_ms 100, timeout 10 s; threads 0 = all cores).
MeasureOptions MeasureOptionsFromProto(const v1::MeasureOptions& proto, MeasureOptions local = {});

v1::MeasureResult MeasureResultToProto(const MeasureResult& result, const std::string& task_id = "");
// Errors: an error kind that is unset or unknown to this build.
absl::StatusOr<MeasureResult> MeasureResultFromProto(const v1::MeasureResult& proto);

v1::Workload WorkloadSourceToProto(const WorkloadSource& source);
WorkloadSource WorkloadSourceFromProto(const v1::Workload& proto);

// A compiled kernel as shipped to runner-only workers and to the runner.
v1::BuiltKernel KernelObjectToProto(const codegen::CompiledObject& object);
codegen::CompiledObject KernelObjectFromProto(const v1::BuiltKernel& proto);

}  // namespace tuneforge::measure
