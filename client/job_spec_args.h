// The flags that describe a tuning job, shared by `submit` and `tune`:
// workloads, trials, batch, policy and measurement options, turned into a
// v1::JobSpec (checked here, and again by the server).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "client/workload_arg.h"
#include "graph/model/model.h"
#include "measure/measure_types.h"
#include "proto/tuneforge.pb.h"

namespace tuneforge::cli {

struct JobSpecArgs {
  std::vector<std::string> specs;      // positional
  std::vector<std::string> def_files;  // --def, repeatable
  std::string model;                   // --model F.onnx: its tasks are the workloads
  // --conv-algorithm: direct, winograd, auto; "": auto for workloads named on
  // the command line, direct for --model.
  std::string conv_algorithm;
  int trials = 0;
  int batch = 0;  // 0: the server's default (64)
  std::string policy = "ansor";
  measure::MeasureOptions measure_options;  // timing, threads, timeout (a 0: the default)
  uint64_t seed = 0;
  std::string name;
  int retime_top = 0;  // 0: the server's default (3); -1: none
  std::string sketch_selection;  // "": uniform
  int droplet_after = 0;         // --policy droplet: 0: the default (300)
  std::string mutation_choice;   // "": fixed
  std::optional<double> neighbour_share;  // unset: search::kDefaultBestNeighbourShare
  std::string task_scheduler;   // "": the server's (round-robin)
  std::vector<double> weights;  // per workload, in order; empty: 1 each
};

// Adds every flag but the positional workloads and --trials (whose default
// differs between commands).
void AddJobSpecFlags(CLI::App* cmd, JobSpecArgs* args);

struct ResolvedJobSpec {
  ::tuneforge::v1::JobSpec spec;
  std::vector<ApiWorkload> workloads;  // in spec order
  std::shared_ptr<const graph::Model> model;  // with --model
};

// Errors: no workload, a bad workload (named), trials < 1, negative knobs,
// --model with other workloads or --weights, a model that does not import.
// A model's job takes the gradient task scheduler unless one is named.
// `device_key` may be empty here and set later.
absl::StatusOr<ResolvedJobSpec> BuildJobSpec(const JobSpecArgs& args, const std::string& device_key);

}  // namespace tuneforge::cli
