#include "client/commands/show.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "client/cli_error.h"
#include "client/workload_arg.h"
#include "common/codegen/compiler.h"
#include "common/codegen/target.h"
#include "common/lower/lower.h"
#include "common/lower/printer.h"
#include "common/schedule/state.h"
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
  Output out;
};

// Ansor's sketches of the workload for `target` (tile sizes still the
// placeholder 1): the rules that made each one and its loop nest.
absl::StatusOr<std::string> AddSketches(const te::Workload& w, const codegen::Target& target, Json* result) {
  search::HardwareParams hw;
  hw.num_cores = target.num_cores;
  hw.vector_lanes = target.vector_lanes(4);
  absl::StatusOr<std::vector<search::Sketch>> sketches = search::GenerateCpuSketches(w.dag, hw);
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
  absl::StatusOr<codegen::Target> target = codegen::Target::Parse(args.target);
  if (!target.ok()) return Fail(args.out, target.status());

  schedule::State naive(w.dag);
  absl::StatusOr<lower::LoweredFunc> naive_func = lower::Lower(naive);
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
    absl::StatusOr<lower::LoweredFunc> f = lower::Lower(*state);
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
    absl::StatusOr<std::string> listing = AddSketches(w, *target, &result);
    if (!listing.ok()) return Fail(args.out, listing.status());
    absl::StrAppend(&text, *listing);
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
  cmd->add_option("--target", args->target, "host, aarch64, or TRIPLE[:cpu=..][:features=..]");
  cmd->add_flag("--asm", args->asm_text, "also print the assembly for --target");
  cmd->add_flag("--llvm-ir", args->llvm_ir, "also print the optimized LLVM IR for --target");
  cmd->add_flag("--ops", args->ops, "list the operator library and exit");
  cmd->add_flag("--sketches", args->sketches,
                "also print the search's sketches (Ansor's rules applied for --target)");
  cmd->add_flag("--json", args->out.json, "one JSON object on stdout");
  cmd->callback([args, exit_code] { *exit_code = RunShow(*args); });
}

}  // namespace tuneforge::cli
