// A workload's best record over its forms (common/te/workload_forms.h): a
// 3x3 conv's own best and its Winograd form's, the faster of them. `best`
// and `measure --best` answer with it, so that what they call a conv's best
// is the program a model would run for it (graph/executor/kernel_choice.h
// chooses the same way).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/record_source.h"
#include "common/te/workload.h"

namespace tuneforge::cli {

struct FormBest {
  te::Workload form;                 // the workload itself, or another form of it
  std::optional<v1::Record> record;  // its best correct record; none yet
};

struct BestOverForms {
  std::vector<FormBest> forms;  // the workload first, then its other forms
  int fastest = -1;             // index into forms of the fastest record; -1: none has one

  const FormBest* best() const { return fastest >= 0 ? &forms[static_cast<size_t>(fastest)] : nullptr; }
};

// Each form's best is the first one found on `devices`, in order ("" = any
// device; each through BestForDevice). Errors: the record source's.
absl::StatusOr<BestOverForms> FindBestOverForms(RecordSource& source, const te::Workload& workload,
                                                const std::vector<std::string>& devices);

// A record's speed in `workload`'s FLOPs, whichever form it is of: the
// forms of one computation then compare (Winograd multiplies less).
double GflopsOf(const te::Workload& workload, const v1::Record& record);

}  // namespace tuneforge::cli
