#include "bench/search/compile_split.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "bench/timing.h"
#include "common/codegen/function_object_cache.h"
#include "common/codegen/target.h"
#include "common/schedule/schedule_json.h"
#include "common/te/workload.h"
#include "measure/builder.h"
#include "measure/measurer.h"
#include "nlohmann/json.hpp"
#include "server/record_store/record_store.h"

namespace tuneforge::bench {
namespace {

// One kernel function's builds, by its role in the kernel.
struct RoleBuilds {
  int built = 0, reused = 0;
  std::vector<double> ms;  // optimize + machine code, of those built
  std::vector<double> instructions_before, instructions_after;
};

struct Phases {
  std::vector<double> total, lower, module, optimize, machine_code;
  std::vector<std::pair<double, int64_t>> by_record;  // (total ms, record id): which records are the tail
  std::map<std::string, RoleBuilds> roles;  // "entry", "task0", "prepack", "prepack.task0"
};

// A function's name less the kernel's symbol: its role, the same in every
// program of a workload ("k.task1" -> "task1", "k_prepack" -> "prepack").
std::string RoleOf(const std::string& function, const std::string& symbol) {
  if (function.rfind(symbol, 0) != 0 || function.size() == symbol.size()) return "entry";
  std::string role = function.substr(symbol.size());
  if (role[0] == '.' || role[0] == '_') role.erase(0, 1);
  return role;
}

// The builds at one optimization level.
struct LevelRun {
  int level = 3;
  std::string name;  // "O3"
  Phases phases;
  // A builder's cache across the records, in the order they were measured
  // (with --compile-cache); null: every function of every record compiled.
  std::unique_ptr<codegen::FunctionObjectCache> cache;
};

// Records named as the tail of the first level's builds.
constexpr size_t kSlowestShown = 5;

double Sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

struct Row {
  const char* name;
  const std::vector<double>* v;
};

std::vector<Row> PhaseRows(const Phases& p) {
  return {{"replay + lower", &p.lower},
          {"LLVM module", &p.module},
          {"LLVM optimize", &p.optimize},
          {"machine code", &p.machine_code},
          {"total", &p.total}};
}

void AddBuild(int64_t record_id, const measure::BuiltKernel& k, Phases* p) {
  const codegen::CompiledObject& o = k.object;
  p->total.push_back(k.build_ms);
  p->by_record.emplace_back(k.build_ms, record_id);
  p->lower.push_back(k.build_ms - o.compile_ms);
  p->module.push_back(o.compile_ms - o.optimize_ms - o.machine_code_ms);
  p->optimize.push_back(o.optimize_ms);
  p->machine_code.push_back(o.machine_code_ms);
  for (const codegen::FunctionBuild& f : o.function_builds) {
    RoleBuilds& r = p->roles[RoleOf(f.name, o.symbol)];
    if (f.reused) {
      ++r.reused;
      continue;
    }
    ++r.built;
    r.ms.push_back(f.optimize_ms + f.machine_code_ms);
    r.instructions_before.push_back(f.instructions_before);
    r.instructions_after.push_back(f.instructions_after);
  }
}

// One of the store's fastest records, built at each level: the best GFLOPS
// of its timings (0 where it failed).
struct TimedRecord {
  int64_t id = 0;
  double store_gflops = 0;
  std::vector<double> gflops;  // per level, in LevelRun order
};

// A record's program built at each level, in LevelRun order (each level in
// turn, so a noisy minute costs them all); none where the record does not
// parse (a compute definition's record, or a newer schedule format).
struct BuiltRecord {
  te::Workload workload;
  std::vector<measure::BuiltKernel> built;
};

std::optional<BuiltRecord> BuildAtEachLevel(const server::Record& record, const std::vector<LevelRun>& runs,
                                            const codegen::Target& target) {
  absl::StatusOr<te::Workload> workload = te::ParseWorkload(record.workload);
  absl::StatusOr<schedule::Schedule> sched = schedule::ParseScheduleJson(record.schedule_json);
  if (!workload.ok() || !sched.ok()) return std::nullopt;
  BuiltRecord out{*std::move(workload), {}};
  for (const LevelRun& run : runs)
    out.built.push_back(measure::BuildSchedule(out.workload.dag, sched->steps, target,
                                               {.opt_level = run.level, .function_cache = run.cache.get()}));
  return out;
}

// Times `record` built at each level, `rounds` times, the levels' order
// alternating between rounds. `references` holds each workload's reference
// program, built once.
TimedRecord TimeAtEachLevel(const server::Record& record, const std::vector<LevelRun>& runs,
                            const codegen::Target& target, measure::Measurer& measurer, int rounds,
                            absl::flat_hash_map<std::string, measure::BuiltKernel>* references) {
  TimedRecord t{record.id, record.gflops, std::vector<double>(runs.size(), 0.0)};
  std::optional<BuiltRecord> b = BuildAtEachLevel(record, runs, target);
  if (!b) return t;
  auto [at, fresh] = references->try_emplace(record.workload);
  if (fresh) at->second = measure::BuildReference(b->workload.dag, target);
  const measure::BuiltKernel& reference = at->second;
  if (!reference.ok()) return t;
  const te::ComputeDag& dag = *b->workload.dag;
  for (int round = 0; round < rounds; ++round) {
    for (size_t j = 0; j < runs.size(); ++j) {
      const size_t i = round % 2 == 0 ? j : runs.size() - 1 - j;
      if (!b->built[i].ok()) continue;
      std::vector<measure::MeasureResult> r = measurer.MeasureBuilt(dag, reference, {b->built[i]});
      if (r.size() == 1 && r[0].error_kind == measure::MeasureErrorKind::kNone && r[0].median_seconds > 0)
        t.gflops[i] = std::max(t.gflops[i], dag.flops() / r[0].median_seconds / 1e9);
    }
  }
  return t;
}

// The `n` fastest successful records with distinct schedules.
std::vector<const server::Record*> Fastest(const std::vector<server::Record>& ok, int n) {
  std::vector<const server::Record*> by_time;
  for (const server::Record& r : ok) by_time.push_back(&r);
  std::sort(by_time.begin(), by_time.end(), [](const server::Record* a, const server::Record* b) {
    return a->median_seconds < b->median_seconds;
  });
  std::vector<const server::Record*> out;
  absl::flat_hash_set<std::string> seen;
  for (const server::Record* r : by_time) {
    if (static_cast<int>(out.size()) >= n) break;
    if (seen.insert(r->schedule_json).second) out.push_back(r);
  }
  return out;
}

double GeoMeanRatio(const std::vector<TimedRecord>& timed, size_t a, size_t b) {
  double log_sum = 0;
  int n = 0;
  for (const TimedRecord& t : timed) {
    if (t.gflops[a] <= 0 || t.gflops[b] <= 0) continue;
    log_sum += std::log(t.gflops[a] / t.gflops[b]);
    ++n;
  }
  return n == 0 ? 0 : std::exp(log_sum / n);
}

}  // namespace

int RunCompileSplitBench(const CompileSplitOptions& options) {
  const std::string& db_path = options.db_path;
  std::vector<LevelRun> runs;
  for (int level : options.levels) {
    if (level < 0 || level > 3) {
      std::cerr << "error: optimization level " << level << " is not one of LLVM's; give 0, 1, 2 or 3 (e.g. "
                << "--compile-levels 3,2)\n";
      return 1;
    }
    runs.push_back({level, "O" + std::to_string(level), {}, nullptr});
  }
  if (runs.empty()) runs.push_back({3, "O3", {}, nullptr});
  if (options.cache)
    for (LevelRun& run : runs) run.cache = std::make_unique<codegen::FunctionObjectCache>();
  if (!std::filesystem::exists(db_path)) {
    std::cerr << "error: no record store at " << db_path << "; give the .db file a tuning wrote (--db)\n";
    return 1;
  }
  absl::StatusOr<std::unique_ptr<server::RecordStore>> store = server::RecordStore::Open(db_path);
  if (!store.ok()) {
    std::cerr << "error: cannot open the record store " << db_path << ": " << store.status().message() << "\n";
    return 1;
  }
  server::RecordFilter all;
  all.limit = 0;
  absl::StatusOr<std::vector<server::Record>> found = (*store)->Query(all);
  if (!found.ok()) {
    std::cerr << "error: cannot read the records of " << db_path << ": " << found.status().message() << "\n";
    return 1;
  }
  std::vector<server::Record> ok;
  for (server::Record& r : *found)
    if (r.error_kind == measure::MeasureErrorKind::kNone) ok.push_back(std::move(r));
  std::sort(ok.begin(), ok.end(), [](const server::Record& a, const server::Record& b) { return a.id < b.id; });
  std::vector<const server::Record*> chosen;
  const size_t n = options.records <= 0 ? ok.size() : std::min(ok.size(), static_cast<size_t>(options.records));
  for (size_t i = 0; i < n; ++i) chosen.push_back(&ok[i * ok.size() / n]);
  if (chosen.empty()) {
    std::cerr << "error: " << db_path << " has no successful records to rebuild; tune first\n";
    return 1;
  }

  const codegen::Target target = codegen::Target::Host();
  int failed = 0;
  for (const server::Record* r : chosen) {
    std::optional<BuiltRecord> b = BuildAtEachLevel(*r, runs, target);
    if (!b || !std::all_of(b->built.begin(), b->built.end(), [](const measure::BuiltKernel& k) { return k.ok(); })) {
      ++failed;
      continue;
    }
    for (size_t i = 0; i < runs.size(); ++i) AddBuild(r->id, b->built[i], &runs[i].phases);
  }

  // The slowest builds of the first level, slowest first: the records to
  // look at (`tuneforge show --schedule`) when the tail is long.
  std::vector<std::pair<double, int64_t>> slowest = runs[0].phases.by_record;
  std::sort(slowest.rbegin(), slowest.rend());
  slowest.resize(std::min<size_t>(slowest.size(), kSlowestShown));

  std::vector<TimedRecord> timed;
  if (options.timed > 0 && runs.size() > 1) {
    measure::MeasureOptions mo;
    static_cast<measure::TimingOptions&>(mo) = kPeerTiming;
    mo.threads = options.threads;
    mo.timeout_s = 60;
    absl::StatusOr<std::unique_ptr<measure::Measurer>> measurer = measure::Measurer::Create(target, mo);
    if (!measurer.ok()) {
      std::cerr << "error: cannot time kernels: " << measurer.status().message() << "\n";
      return 1;
    }
    absl::flat_hash_map<std::string, measure::BuiltKernel> references;  // by workload
    for (const server::Record* r : Fastest(ok, options.timed))
      timed.push_back(TimeAtEachLevel(*r, runs, target, **measurer, std::max(1, options.rounds), &references));
  }

  if (options.json) {
    nlohmann::ordered_json out{{"db", db_path}, {"rebuilt", runs[0].phases.total.size()}, {"failed", failed}};
    for (const LevelRun& run : runs) {
      const double total = std::max(1e-9, Sum(run.phases.total));
      for (const Row& row : PhaseRows(run.phases))
        out["levels"][run.name]["phases"][row.name] = {
            {"p50_ms", Quantile(*row.v, 0.5)}, {"p90_ms", Quantile(*row.v, 0.9)},
            {"p99_ms", Quantile(*row.v, 0.99)}, {"max_ms", Quantile(*row.v, 1.0)},
            {"share", Sum(*row.v) / total}};
      for (const auto& [role, r] : run.phases.roles)
        out["levels"][run.name]["functions"][role] = {
            {"built", r.built}, {"reused", r.reused}, {"ms_p50", Quantile(r.ms, 0.5)},
            {"ms_p99", Quantile(r.ms, 0.99)}, {"ms_sum", Sum(r.ms)},
            {"instructions_before_p50", Quantile(r.instructions_before, 0.5)},
            {"instructions_after_p50", Quantile(r.instructions_after, 0.5)}};
    }
    for (const auto& [ms, id] : slowest) out["slowest"].push_back({{"record", id}, {"total_ms", ms}});
    nlohmann::ordered_json jt = nlohmann::ordered_json::array();
    for (const TimedRecord& t : timed) {
      nlohmann::ordered_json j{{"record", t.id}, {"store_gflops", t.store_gflops}};
      for (size_t i = 0; i < runs.size(); ++i) j[runs[i].name + "_gflops"] = t.gflops[i];
      jt.push_back(j);
    }
    out["timed"] = jt;
    // Each level's kernels against the first level's (geometric mean).
    for (size_t i = 1; i < runs.size() && !timed.empty(); ++i)
      out["gflops_ratio_to_" + runs[0].name][runs[i].name] = GeoMeanRatio(timed, i, 0);
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::printf("%zu records of %s rebuilt at each level (%d could not be)\n", runs[0].phases.total.size(),
              db_path.c_str(), failed);
  std::printf("%-6s %-16s %9s %9s %9s %9s %7s\n", "level", "phase", "p50 ms", "p90 ms", "p99 ms", "max ms",
              "share");
  for (const LevelRun& run : runs) {
    const double total = std::max(1e-9, Sum(run.phases.total));
    for (const Row& row : PhaseRows(run.phases))
      std::printf("%-6s %-16s %9.1f %9.1f %9.1f %9.1f %6.0f%%\n", run.name.c_str(), row.name, Quantile(*row.v, 0.5),
                  Quantile(*row.v, 0.9), Quantile(*row.v, 0.99), Quantile(*row.v, 1.0),
                  100 * Sum(*row.v) / total);
  }
  std::printf("slowest at %s (record: total ms):", runs[0].name.c_str());
  for (const auto& [ms, id] : slowest) std::printf(" %lld: %.0f", static_cast<long long>(id), ms);
  std::printf("\n");
  std::printf("\nby function (optimize + machine code of those built; IR instructions before -> after, p50)%s:\n",
              options.cache ? ", one function cache across the records in their order" : "");
  std::printf("%-6s %-16s %7s %7s %9s %9s %9s %7s %7s\n", "level", "function", "built", "reused", "p50 ms",
              "p99 ms", "sum ms", "IR in", "IR out");
  for (const LevelRun& run : runs)
    for (const auto& [role, r] : run.phases.roles)
      std::printf("%-6s %-16s %7d %7d %9.1f %9.1f %9.0f %7.0f %7.0f\n", run.name.c_str(), role.c_str(), r.built,
                  r.reused, Quantile(r.ms, 0.5), Quantile(r.ms, 0.99), Sum(r.ms),
                  Quantile(r.instructions_before, 0.5), Quantile(r.instructions_after, 0.5));
  if (timed.empty()) return 0;
  std::printf("\nthe %zu fastest records built at each level, best of %d alternating timings, %d threads (GFLOPS):\n",
              timed.size(), std::max(1, options.rounds), options.threads);
  std::printf("%-8s %12s", "record", "in store");
  for (const LevelRun& run : runs) std::printf(" %9s", run.name.c_str());
  std::printf("\n");
  for (const TimedRecord& t : timed) {
    std::printf("%-8lld %12.1f", static_cast<long long>(t.id), t.store_gflops);
    for (double g : t.gflops) std::printf(" %9.1f", g);
    std::printf("\n");
  }
  for (size_t i = 1; i < runs.size(); ++i)
    std::printf("%s / %s, geometric mean: %.3f\n", runs[i].name.c_str(), runs[0].name.c_str(),
                GeoMeanRatio(timed, i, 0));
  return 0;
}

}  // namespace tuneforge::bench
