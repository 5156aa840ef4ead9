#include "bench/search/compile_split.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <vector>

#include "bench/timing.h"
#include "common/codegen/target.h"
#include "common/schedule/schedule_json.h"
#include "common/te/workload.h"
#include "measure/builder.h"
#include "nlohmann/json.hpp"
#include "server/record_store/record_store.h"

namespace tuneforge::bench {
namespace {

struct Phases {
  std::vector<double> total, lower, module, optimize, machine_code;
};

double Sum(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

}  // namespace

int RunCompileSplitBench(const std::string& db_path, int records, bool json) {
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
  const size_t n = records <= 0 ? ok.size() : std::min(ok.size(), static_cast<size_t>(records));
  for (size_t i = 0; i < n; ++i) chosen.push_back(&ok[i * ok.size() / n]);
  if (chosen.empty()) {
    std::cerr << "error: " << db_path << " has no successful records to rebuild; tune first\n";
    return 1;
  }

  const codegen::Target target = codegen::Target::Host();
  Phases p;
  int failed = 0;
  for (const server::Record* r : chosen) {
    absl::StatusOr<te::Workload> workload = te::ParseWorkload(r->workload);
    absl::StatusOr<schedule::Schedule> sched = schedule::ParseScheduleJson(r->schedule_json);
    if (!workload.ok() || !sched.ok()) {
      ++failed;  // a compute definition's record, or a newer schedule format
      continue;
    }
    measure::BuiltKernel k = measure::BuildSchedule(workload->dag, sched->steps, target);
    if (!k.ok()) {
      ++failed;
      continue;
    }
    const codegen::CompiledObject& o = k.object;
    p.total.push_back(k.build_ms);
    p.lower.push_back(k.build_ms - o.compile_ms);
    p.module.push_back(o.compile_ms - o.optimize_ms - o.machine_code_ms);
    p.optimize.push_back(o.optimize_ms);
    p.machine_code.push_back(o.machine_code_ms);
  }

  struct Row {
    const char* name;
    const std::vector<double>* v;
  };
  const Row rows[] = {{"replay + lower", &p.lower},
                      {"LLVM module", &p.module},
                      {"LLVM optimize", &p.optimize},
                      {"machine code", &p.machine_code},
                      {"total", &p.total}};
  const double total = std::max(1e-9, Sum(p.total));
  if (json) {
    nlohmann::ordered_json out{{"db", db_path}, {"rebuilt", p.total.size()}, {"failed", failed}};
    for (const Row& row : rows)
      out["phases"][row.name] = {{"p50_ms", Quantile(*row.v, 0.5)}, {"p90_ms", Quantile(*row.v, 0.9)},
                                 {"max_ms", Quantile(*row.v, 1.0)}, {"share", Sum(*row.v) / total}};
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::printf("%zu records of %s rebuilt (%d could not be)\n", p.total.size(), db_path.c_str(), failed);
  std::printf("%-16s %9s %9s %9s %7s\n", "phase", "p50 ms", "p90 ms", "max ms", "share");
  for (const Row& row : rows)
    std::printf("%-16s %9.1f %9.1f %9.1f %6.0f%%\n", row.name, Quantile(*row.v, 0.5), Quantile(*row.v, 0.9),
                Quantile(*row.v, 1.0), 100 * Sum(*row.v) / total);
  return 0;
}

}  // namespace tuneforge::bench
