#include "client/commands/show.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/cli_error.h"
#include "client/workload_arg.h"
#include "common/codegen/compiler.h"
#include "common/codegen/cuda/cuda_source.h"
#include "common/codegen/cuda/gpu_target.h"
#include "common/codegen/cuda/launch_limits.h"
#include "common/codegen/target.h"
#include "common/lower/lower.h"
#include "common/lower/printer.h"
#include "common/schedule/gpu_binding.h"
#include "common/schedule/state.h"
#include "search/annotation/annotation.h"
#include "search/sketch_generation.h"

namespace tuneforge::cli {
namespace {

struct ShowArgs {
  WorkloadArgs workload;
  std::string target = "host";
  bool asm_text = false;
  bool llvm_ir = false;
  bool ops = false;
  bool sketches = false;
  bool cuda_source = false;
  Output out;
};

// Ansor's sketches of the workload for the target `hw` describes (tile
// sizes still the placeholder 1): the rules that made each one and its loop
// nest.
absl::StatusOr<std::string> AddSketches(const te::Workload& w, const search::HardwareParams& hw, Json* result) {
  absl::StatusOr<std::vector<search::Sketch>> sketches = search::GenerateDefaultSketches(w.dag, hw);
  if (!sketches.ok()) return sketches.status();
  Json list = Json::array();
  std::string text = absl::StrCat("\n", sketches->size(), " sketches (tile sizes are filled in by the search):\n");
  for (size_t i = 0; i < sketches->size(); ++i) {
    const search::Sketch& s = (*sketches)[i];
    std::string rules = s.derivation.empty() ? "no rule changed the program" : absl::StrJoin(s.derivation, ", ");
    list.push_back(Json{{"derivation", s.derivation}, {"steps", s.state.steps().size()},
                        {"loop_nest", s.state.ToString()}});
    absl::StrAppend(&text, "\nsketch ", i, ": ", rules, "\n", s.state.ToString());
  }
  (*result)["sketches"] = std::move(list);
  return text;
}

int RunShow(const ShowArgs& args) {
  if (args.ops) return Succeed(args.out, Json{{"ops", te::WorkloadHelp()}}, te::WorkloadHelp());
  absl::StatusOr<ResolvedWorkload> r = ResolveWorkload(args.workload);
  if (!r.ok()) return Fail(args.out, r.status());
  const te::Workload& w = r->workload;
  // A GPU target (cuda[:sm_XX]) lowers with GPU bindings and prints CUDA C;
  // a CPU one lowers for LLVM.
  bool gpu = codegen::GpuTarget::IsGpuSpec(args.target);
  absl::StatusOr<codegen::GpuTarget> gpu_target = codegen::GpuTarget{};
  absl::StatusOr<codegen::Target> target = codegen::Target{};
  if (gpu) {
    gpu_target = codegen::GpuTarget::Parse(args.target);
    if (!gpu_target.ok()) return Fail(args.out, gpu_target.status());
    if (args.asm_text || args.llvm_ir)
      return Fail(args.out, absl::InvalidArgumentError(
                                "--asm and --llvm-ir print CPU code; for a GPU target use --cuda-source"));
  } else {
    target = codegen::Target::Parse(args.target);
    if (!target.ok()) return Fail(args.out, target.status());
    if (args.cuda_source)
      return Fail(args.out, absl::InvalidArgumentError("--cuda-source needs a GPU target: --target cuda:sm_XX"));
  }
  lower::LowerOptions lower_options = lower::LowerOptions::ForTarget(gpu);
  if (!gpu) lower_options.register_lanes = target->vector_lanes(4);  // as the builder lowers

  schedule::State naive(w.dag);
  if (gpu) {
    absl::StatusOr<schedule::State> bound =
        schedule::BindNaiveForGpu(naive, std::min<int64_t>(256, gpu_target->limits.max_threads_per_block));
    if (!bound.ok()) return Fail(args.out, bound.status());
    naive = *std::move(bound);
  }
  absl::StatusOr<lower::LoweredFunc> naive_func = lower::Lower(naive, lower_options);
  if (!naive_func.ok()) return Fail(args.out, naive_func.status());
  std::string naive_text = lower::ToString(*naive_func);

  Json result{{"workload", w.spec},
              {"workload_key", w.dag->workload_key()},
              {"flops", w.dag->flops()},
              {"dag", w.dag->ToString()},
              {"naive_loop_nest", naive_text}};
  std::string text = absl::StrCat("workload:     ", w.spec, "\nworkload key: ", w.dag->workload_key(),
                                  "\nflops:        ", absl::StrFormat("%.0f (%.3f GFLOP)", w.dag->flops(),
                                                                        w.dag->flops() / 1e9),
                                  "\n\ncompute DAG:\n", w.dag->ToString(), "\nnaive loop nest:\n",
                                  naive_text);
  const lower::LoweredFunc* shown = &*naive_func;
  std::optional<lower::LoweredFunc> scheduled;
  if (r->schedule) {
    absl::StatusOr<schedule::State> state = schedule::State::Replay(w.dag, r->schedule->steps);
    if (!state.ok()) return Fail(args.out, state.status());
    absl::StatusOr<lower::LoweredFunc> f = lower::Lower(*state, lower_options);
    if (!f.ok()) return Fail(args.out, f.status());
    scheduled = *std::move(f);
    shown = &*scheduled;
    std::string sched_text = lower::ToString(*scheduled);
    result["state"] = state->ToString();
    result["steps"] = r->schedule->steps.size();
    result["scheduled_loop_nest"] = sched_text;
    absl::StrAppend(&text, "\nstate after ", r->schedule->steps.size(), " steps:\n", state->ToString(),
                    "\nscheduled loop nest:\n", sched_text);
  }
  result["loop_nest"] = lower::ToString(*shown);
  if (args.sketches) {
    search::HardwareParams hw;
    if (gpu) {
      hw = search::GpuHardwareParams(gpu_target->limits.max_threads_per_block);
    } else {
      hw.num_cores = target->num_cores;
      hw.vector_lanes = target->vector_lanes(4);
    }
    absl::StatusOr<std::string> listing = AddSketches(w, hw, &result);
    if (!listing.ok()) return Fail(args.out, listing.status());
    absl::StrAppend(&text, *listing);
  }
  if (args.cuda_source) {
    absl::StatusOr<codegen::CudaModule> module = codegen::EmitCudaSource(*shown);
    if (!module.ok()) return Fail(args.out, module.status());
    if (absl::Status limits = codegen::CheckLaunchLimits(*module, gpu_target->limits); !limits.ok())
      return Fail(args.out, limits);
    result["cuda_source"] = module->source;
    Json kernels = Json::array();
    absl::StrAppend(&text, "\nCUDA C for ", gpu_target->ToString(), ", ", module->kernels.size(),
                    module->kernels.size() == 1 ? " kernel" : " kernels launched in order", ":\n");
    for (const codegen::CudaKernel& k : module->kernels) {
      kernels.push_back(Json{{"name", k.name}, {"grid", k.grid}, {"block", k.block}, {"shared_bytes", k.shared_bytes}});
      absl::StrAppend(&text, "  ", k.name, ": grid ", k.grid[0], " x ", k.grid[1], " x ", k.grid[2], ", block ",
                      k.block[0], " x ", k.block[1], " x ", k.block[2], ", ", k.shared_bytes,
                      " bytes of shared memory\n");
    }
    for (const codegen::CudaTemporary& t : module->temporaries)
      absl::StrAppend(&text, "  temporary ", t.name, ": ", t.bytes(), " bytes\n");
    result["kernels"] = kernels;
    absl::StrAppend(&text, module->source);
  }
  if (args.llvm_ir || args.asm_text) {
    absl::StatusOr<std::string> code = args.llvm_ir ? codegen::EmitLLVMIR(*shown, *target)
                                                    : codegen::EmitAssembly(*shown, *target);
    if (!code.ok()) return Fail(args.out, code.status());
    const char* key = args.llvm_ir ? "llvm_ir" : "assembly";
    result[key] = *code;
    absl::StrAppend(&text, "\n", key, " for ", target->ToString(), ":\n", *code);
  }
  return Succeed(args.out, result, text);
}

}  // namespace

void AddShowCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ShowArgs>();
  CLI::App* cmd = app.add_subcommand(
      "show", "Print a workload's DAG, workload key, FLOPs and loop nest (naive and scheduled)");
  cmd->add_option("workload", args->workload.spec, "OP:KEY=VALUE,... (see --ops)");
  cmd->add_option("--def", args->workload.def_file, "compute-definition file instead of a spec");
  cmd->add_option("--schedule", args->workload.schedule_file, "schedule JSON file to apply");
  cmd->add_option("--target", args->target,
                  "host, aarch64, TRIPLE[:cpu=..][:features=..], or a GPU: cuda[:sm_XX]");
  cmd->add_flag("--asm", args->asm_text, "also print the assembly for --target");
  cmd->add_flag("--llvm-ir", args->llvm_ir, "also print the optimized LLVM IR for --target");
  cmd->add_flag("--cuda-source", args->cuda_source,
                "also print the CUDA C of the shown program for a GPU --target (cuda:sm_XX)");
  cmd->add_flag("--ops", args->ops, "list the operator library and exit");
  cmd->add_flag("--sketches", args->sketches,
                "also print the search's sketches (Ansor's rules applied for --target)");
  cmd->add_flag("--json", args->out.json, "one JSON object on stdout");
  cmd->callback([args, exit_code] { *exit_code = RunShow(*args); });
}

}  // namespace tuneforge::cli
