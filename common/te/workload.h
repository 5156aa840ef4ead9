// Workloads: what a user asks to tune, from a spec "OP:KEY=VALUE,..." (the op
// table is in ops/op_table.h, epilogues in ops/epilogue.h) or from a file in
// the compute-definition language (definition/definition.h).
//
//   matmul:M=1024,N=1024,K=1024
//   conv2d+bias+relu:N=1,C=64,H=56,W=56,K=64,R=3,S=3,pad=1
//   relu:N=1,C=64,H=56,W=56,dtype=float64
//   def:path/to/file.def          (the same as LoadDefinitionFile)
//
// Keys may come in any order; ParseWorkload checks every key and value and
// says which is wrong and how to fix it. The canonical spec sorts the keys
// and leaves out optional keys at their default, so equal workloads written
// differently have one spec. The workload key (the one the record store
// uses) is dag->workload_key(): a hash of the DAG's canonical text, equal for
// the same computation however it was written (spec or definition file).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/te/compute_dag.h"
#include "common/te/ops/epilogue.h"
#include "common/te/ops/op_table.h"

namespace tuneforge::te {

struct Workload {
  std::string spec;  // canonical: "matmul:K=1024,M=1024,N=1024", "def:<file>", "def:<name>"
  std::string op;    // "matmul", "conv2d+bias+relu", or the definition's name
  ComputeDagPtr dag;
};

absl::StatusOr<Workload> ParseWorkload(std::string_view spec);
// Reads and builds a compute definition; the op name is the file's stem
// ("conv_custom" for dir/conv_custom.def). Errors start with the path.
absl::StatusOr<Workload> LoadDefinitionFile(const std::string& path);
absl::StatusOr<Workload> ParseDefinition(std::string_view text, std::string name = "def");

using ops::OpInfo;
using ops::ParamInfo;
// Every op of the library, for --help and error messages.
std::vector<OpInfo> ListOps();
// A readable listing of the ops, their keys and defaults, and the epilogues.
std::string WorkloadHelp();

}  // namespace tuneforge::te
