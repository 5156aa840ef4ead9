// How `run` and `tune --model` print a model run: JSON fields (latency_ms,
// tasks, untuned_tasks, outputs_checked, max_abs_error, and per kernel) and
// the text form.
#pragma once

#include <string>

#include "client/cli_error.h"
#include "client/model_run.h"

namespace tuneforge::cli {

Json ModelReportJson(const graph::Model& model, const ModelRunReport& r, const std::string& device_key,
                     const std::string& records);
std::string ModelReportText(const graph::Model& model, const ModelRunReport& r,
                            const std::string& device_key, const std::string& records);

}  // namespace tuneforge::cli
