// tuneforge-bench: our kernels beside their baselines, measured in one run,
// printed as one table of GFLOPS and ratios (INTERFACE.md).
//
//   tuneforge-bench [--json] [--threads 1,2] [--quick]
//   tuneforge-bench --service [--json] [--quick]   (bench/service/)
//   tuneforge-bench --search-round [--round-workload SPEC] [--json]   (bench/search/)
//   tuneforge-bench --tuning [--trials N] [--policies ansor,random,ansor:neighbour-share=0,ansor:sketch-selection=learned:mutation-choice=learned] [--workloads a,b] [--keep-dbs DIR]
//
// Rows: the shipped expert schedules (tests/data/schedules) and the naive
// program, measured through the same sandboxed runner `tuneforge measure`
// uses; OpenBLAS sgemm and oneDNN in fresh processes (peer_process.h); the
// machine's FMA peak. Then the compile time of a tiled matmul candidate and
// the overhead the measurement adds per candidate.
#include <algorithm>
#include <filesystem>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bench/peer_process.h"
#include "bench/peers/fma_peak.h"
#include "bench/search/compile_split.h"
#include "bench/search/search_round.h"
#include "bench/search/tuning_curves.h"
#include "bench/service/service_report.h"
#include "bench/timing.h"
#include "common/codegen/target.h"
#include "common/schedule/schedule_json.h"
#include "common/te/workload.h"
#include "nlohmann/json.hpp"
#include "measure/builder.h"
#include "measure/measurer.h"

namespace tuneforge::bench {
namespace {

using Json = nlohmann::ordered_json;

struct Workload {
  std::string name;           // row label
  std::string schedule_file;  // under tests/data/schedules
  std::vector<std::string> peers;  // peer names, run with the shape arguments below
  std::vector<std::string> shape_args;
};

const std::vector<Workload>& Workloads() {
  static const std::vector<Workload> kWorkloads = {
      {"matmul_1024", "matmul_1024.json", {"openblas_sgemm", "onednn_matmul"}, {"1024", "1024", "1024"}},
      {"conv2d_resnet_3x3_256", "conv2d_resnet_3x3_256.json", {"onednn_conv2d"},
       {"1", "256", "14", "14", "256", "3", "3", "1", "1"}},
      // A schedule the Ansor search found (128 trials) with its channel loop
      // parallel: a ~10 us kernel, where thread wake-up costs show.
      {"depthwise_3x3_256_14", "depthwise_3x3_256_14.json", {"onednn_depthwise"},
       {"1", "256", "14", "14", "256", "3", "3", "1", "1"}},
  };
  return kWorkloads;
}

struct Row {
  std::string benchmark;
  int threads = 1;
  std::optional<double> expert, naive;
  std::map<std::string, double> peers;  // peer -> GFLOPS
  double peak = 0;
  std::string error;
};

std::optional<double> Gflops(const measure::MeasureResult& r, double flops, std::string* error) {
  if (!r.ok()) {
    *error = absl::StrFormat("%s: %s", measure::ErrorKindName(r.error_kind), r.error);
    return std::nullopt;
  }
  return flops / r.median_seconds / 1e9;
}

std::string Fmt(std::optional<double> v, const char* f = "%.1f") {
  return v ? absl::StrFormat(f, *v) : std::string("-");
}

struct Options {
  bool json = false;
  bool quick = false;
  bool service = false;
  std::string threads = "1,2";
  std::string data_dir = TF_SCHEDULE_DIR;
};

// "1,2" -> {1, 2}. Error: a part that is not a whole number from 1 to 1024.
std::optional<std::vector<int>> ParseThreadCounts(const std::string& text, std::string* error) {
  std::vector<int> counts;
  for (absl::string_view t : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    int n = 0;
    if (!absl::SimpleAtoi(t, &n) || n < 1 || n > 1024) {
      *error = absl::StrCat("--threads '", text, "': '", t,
                            "' is not a thread count; give whole numbers from 1 to 1024, comma-separated "
                            "(e.g. --threads 1,2)");
      return std::nullopt;
    }
    counts.push_back(n);
  }
  if (counts.empty()) {
    *error = absl::StrCat("--threads '", text, "' names no thread count; give e.g. --threads 1,2");
    return std::nullopt;
  }
  return counts;
}

int Run(const Options& opt, const std::vector<int>& thread_counts, const std::string& self) {
  codegen::Target target = codegen::Target::Host();
  std::vector<Row> rows;
  std::string openblas_core = "-";
  std::map<int, double> peak;
  const char* isa = "none";
  for (int t : thread_counts) peak[t] = MeasureFmaPeakGflops(t, &isa);

  for (const Workload& w : Workloads()) {
    absl::StatusOr<schedule::Schedule> sched =
        schedule::LoadScheduleFile(opt.data_dir + "/" + w.schedule_file);
    if (!sched.ok()) {
      std::cerr << "bench: " << sched.status().message() << "\n";
      return 1;
    }
    absl::StatusOr<te::Workload> wl = te::ParseWorkload(sched->workload);
    if (!wl.ok()) {
      std::cerr << "bench: " << wl.status().message() << "\n";
      return 1;
    }
    double flops = wl->dag->flops();
    for (int t : thread_counts) {
      Row row;
      row.benchmark = w.name;
      row.threads = t;
      row.peak = peak[t];
      measure::MeasureOptions mo;
      mo.threads = t;
      mo.repeat = opt.quick ? 3 : 5;
      mo.min_repeat_ms = opt.quick ? 100 : 300;
      mo.timeout_s = 120;
      absl::StatusOr<std::unique_ptr<measure::Measurer>> m = measure::Measurer::Create(target, mo);
      if (!m.ok()) {
        std::cerr << "bench: " << m.status().message() << "\n";
        return 1;
      }
      row.expert = Gflops((*m)->MeasureOne(wl->dag, sched->steps), flops, &row.error);
      if (!opt.quick) row.naive = Gflops((*m)->MeasureOne(wl->dag, {}), flops, &row.error);
      for (const std::string& peer : w.peers) {
        std::vector<std::string> args = {peer};
        args.insert(args.end(), w.shape_args.begin(), w.shape_args.end());
        args.push_back(std::to_string(t));
        if (std::optional<PeerResult> p = RunPeer(self, args)) {
          row.peers[peer] = flops / p->seconds / 1e9;
          if (peer == "openblas_sgemm") openblas_core = p->note;
        }
      }
      rows.push_back(row);
    }
  }

  // Compile time of a tiled matmul candidate, and measurement overhead.
  absl::StatusOr<schedule::Schedule> mm =
      schedule::LoadScheduleFile(opt.data_dir + "/matmul_1024.json");
  absl::StatusOr<te::Workload> mmw = te::ParseWorkload(mm.ok() ? mm->workload : "");
  std::vector<double> compile_ms, build_ms, overhead_ms;
  if (mm.ok() && mmw.ok()) {
    for (int i = 0; i < 20; ++i) {
      measure::BuiltKernel k = measure::BuildSchedule(mmw->dag, mm->steps, target);
      compile_ms.push_back(k.object.compile_ms);
      build_ms.push_back(k.build_ms);
    }
    absl::StatusOr<te::Workload> small = te::ParseWorkload("matmul:M=128,N=128,K=128");
    measure::MeasureOptions mo;
    mo.repeat = 1;
    mo.min_repeat_ms = 0;
    absl::StatusOr<std::unique_ptr<measure::Measurer>> m = measure::Measurer::Create(target, mo);
    if (small.ok() && m.ok()) {
      (*m)->MeasureOne(small->dag, {});  // the reference is computed once per workload
      for (int i = 0; i < 10; ++i) {
        measure::MeasureResult r = (*m)->MeasureOne(small->dag, {});
        overhead_ms.push_back(r.run_wall_ms - r.timed_ms);
      }
    }
  }

  if (opt.json) {
    Json out{{"cpu", target.cpu}, {"isa", isa}, {"openblas_core", openblas_core}};
    Json jrows = Json::array();
    for (const Row& r : rows) {
      Json j{{"benchmark", r.benchmark}, {"threads", r.threads}, {"gflops", r.expert ? Json(*r.expert) : Json()},
             {"naive_gflops", r.naive ? Json(*r.naive) : Json()}, {"fma_peak_gflops", r.peak}};
      for (auto& [peer, g] : r.peers) {
        j[peer + "_gflops"] = g;
        if (r.expert) j["ratio_vs_" + peer] = *r.expert / g;
      }
      if (r.expert) j["ratio_vs_peak"] = *r.expert / r.peak;
      if (r.expert && r.naive) j["ratio_vs_naive"] = *r.expert / *r.naive;
      if (!r.error.empty()) j["error"] = r.error;
      jrows.push_back(j);
    }
    out["rows"] = jrows;
    out["compile_ms_median"] = Median(compile_ms);
    out["build_ms_median"] = Median(build_ms);
    out["measure_overhead_ms_median"] = Median(overhead_ms);
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::printf("tuneforge-bench   cpu %s (%s), OpenBLAS core %s\n\n", target.cpu.c_str(), isa,
              openblas_core.c_str());
  std::printf("%-24s %3s %8s %8s %9s %9s %7s | %8s %8s %8s %8s\n", "benchmark (GFLOPS)", "thr",
              "expert", "naive", "OpenBLAS", "oneDNN", "peak", "x naive", "x OpenBL", "x oneDNN",
              "x peak");
  for (const Row& r : rows) {
    auto peer = [&](const char* prefix) -> std::optional<double> {
      for (auto& [name, g] : r.peers)
        if (name.rfind(prefix, 0) == 0) return g;
      return std::nullopt;
    };
    auto ratio = [&](std::optional<double> base) -> std::optional<double> {
      if (!r.expert || !base || *base <= 0) return std::nullopt;
      return *r.expert / *base;
    };
    std::optional<double> ob = peer("openblas"), dn = peer("onednn");
    std::printf("%-24s %3d %8s %8s %9s %9s %7.1f | %8s %8s %8s %8s\n", r.benchmark.c_str(), r.threads,
                Fmt(r.expert).c_str(), Fmt(r.naive, "%.2f").c_str(), Fmt(ob).c_str(), Fmt(dn).c_str(),
                r.peak, Fmt(ratio(r.naive), "%.1fx").c_str(), Fmt(ratio(ob), "%.2fx").c_str(),
                Fmt(ratio(dn), "%.2fx").c_str(), Fmt(ratio(r.peak), "%.2fx").c_str());
    if (!r.error.empty()) std::printf("    error: %s\n", r.error.c_str());
  }
  std::printf("\ncompile time of the tiled matmul_1024 candidate, median of %zu: %.1f ms codegen, "
              "%.1f ms replay+lower+codegen\n",
              compile_ms.size(), Median(compile_ms), Median(build_ms));
  std::printf("measurement overhead per candidate beyond its timed runs, median of %zu: %.1f ms\n",
              overhead_ms.size(), Median(overhead_ms));
  return 0;
}

}  // namespace
}  // namespace tuneforge::bench

int main(int argc, char** argv) {
  using namespace tuneforge::bench;
  if (argc > 1 && std::string(argv[1]) == "--peer")
    return PeerMain(std::vector<std::string>(argv + 2, argv + argc));
  Options opt;
  CLI::App app{"tuneforge-bench: our kernels against OpenBLAS, oneDNN and the FMA peak"};
  app.add_flag("--json", opt.json, "one JSON object on stdout");
  app.add_flag("--quick", opt.quick, "skip the naive programs, fewer repeats");
  app.add_option("--threads", opt.threads, "comma-separated thread counts");
  app.add_option("--schedules", opt.data_dir, "folder of the expert schedules");
  app.add_flag("--service", opt.service,
               "the service benchmarks instead: ingest with 100 simulated workers, dispatch "
               "overhead, best query over 1M records");
  bool search_round = false, tuning = false;
  TuningOptions tuning_opt;
  std::string policies = "ansor,random", workloads;
  std::string round_workload = "matmul:M=1024,N=1024,K=1024";
  app.add_flag("--search-round", search_round,
               "the search side of one Ansor round (2048 x 4 generations) instead");
  app.add_option("--round-workload", round_workload,
                 "the workload spec of --search-round (default matmul:M=1024,N=1024,K=1024)");
  app.add_flag("--tuning", tuning,
               "tuning curves (best GFLOPS vs trials and time) of the search policies against "
               "OpenBLAS and oneDNN instead: " + absl::StrJoin(TuningWorkloadNames(), ", "));
  app.add_option("--trials", tuning_opt.trials, "trials per tuning (with --tuning; default 1000)");
  app.add_option("--policies", policies,
                 "policies to tune with (with --tuning); tune flags may follow a name: "
                 "ansor:sketch-selection=learned:mutation-choice=learned, ansor:neighbour-share=0 (Ansor's "
                 "search alone)");
  app.add_option("--workloads", workloads, "workloads to tune (with --tuning; default all)");
  CompileSplitOptions compile_split;
  app.add_option("--compile-split", compile_split.db_path,
                 "rebuild records of a record store DB and print where their compile time went (replay + lower, "
                 "LLVM module, optimize, machine code) instead");
  app.add_option("--compile-records", compile_split.records,
                 "records to rebuild with --compile-split, spread over the store (0: all; default 40)");
  app.add_option("--compile-levels", compile_split.levels,
                 "LLVM optimization levels to rebuild at, the first the baseline (with --compile-split; default 3)")
      ->delimiter(',');
  app.add_option("--compile-timed", compile_split.timed,
                 "fastest records timed at each level when two or more are given (with --compile-split; "
                 "default 4)");
  app.add_flag("--compile-cache", compile_split.cache,
               "with --compile-split: rebuild the records in the order they were measured with one function cache, "
               "as a builder keeps, so the table shows what a tuning's candidates compiled (give --compile-records "
               "0 for all)");
  app.add_option("--keep-dbs", tuning_opt.keep_dbs,
                 "keep each tuning's record store as DIR/WORKLOAD-POLICY.db (with --tuning)");
  CLI11_PARSE(app, argc, argv);
  if (opt.service) return RunServiceBenchmarks({opt.json, opt.quick});
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return 1;
  self[n] = 0;
  std::string threads_error;
  std::optional<std::vector<int>> parsed_threads = ParseThreadCounts(opt.threads, &threads_error);
  if (!parsed_threads) {
    std::cerr << "error: " << threads_error << "\n";
    return 1;
  }
  const std::vector<int>& thread_counts = *parsed_threads;
  if (!compile_split.db_path.empty()) {
    compile_split.threads = thread_counts.back();
    compile_split.json = opt.json;
    return RunCompileSplitBench(compile_split);
  }
  if (search_round)
    return RunSearchRoundBench(round_workload, opt.json, thread_counts.empty() ? 2 : thread_counts.back());
  if (tuning) {
    tuning_opt.self = self;
    tuning_opt.tuneforge_binary = (std::filesystem::path(self).parent_path() / "tuneforge").string();
    tuning_opt.policies = absl::StrSplit(policies, ',', absl::SkipEmpty());
    tuning_opt.workloads = absl::StrSplit(workloads, ',', absl::SkipEmpty());
    const std::vector<std::string> known = TuningWorkloadNames();
    for (const std::string& name : tuning_opt.workloads)
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        std::cerr << "error: --workloads '" << name << "' is not a tuning workload; give some of: "
                  << absl::StrJoin(known, ", ") << "\n";
        return 1;
      }
    tuning_opt.threads = thread_counts.empty() ? 2 : thread_counts.back();
    tuning_opt.json = opt.json;
    return RunTuningCurves(tuning_opt);
  }
  return Run(opt, thread_counts, self);
}
