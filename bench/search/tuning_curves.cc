#include "bench/search/tuning_curves.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/str_join.h"
#include "bench/peer_process.h"
#include "bench/peers/fma_peak.h"
#include "bench/search/time_split.h"
#include "bench/search/tuning_curve.h"
#include "bench/timing.h"
#include "common/te/workload.h"
#include "nlohmann/json.hpp"

namespace tuneforge::bench {
namespace {

using Json = nlohmann::ordered_json;

struct TuningWorkload {
  std::string name;
  std::string spec;
  std::vector<std::pair<std::string, std::vector<std::string>>> peers;  // peer, shape args (threads appended)
  // The workload whose FLOPs every figure counts, where it is another
  // algorithm for the same result (Winograd's conv counts the direct conv's,
  // as its peer does): GFLOPS then compare as inverse times. Empty: its own.
  std::string flops_of = "";
  // --conv-algorithm of its tunings (a policy entry's own replaces it); empty: tune's default.
  std::string conv_algorithm = "";
};

const std::vector<TuningWorkload>& All() {
  static const std::vector<TuningWorkload> kAll = {
      {"matmul_1024", "matmul:M=1024,N=1024,K=1024",
       {{"openblas_sgemm", {"1024", "1024", "1024"}}, {"onednn_matmul", {"1024", "1024", "1024"}}}},
      // A shape no vector width divides (1000 = 62 x 16 + 8): its vector
      // tiles are 8, 40 or 50 lanes wide, cut into whole registers.
      {"matmul_1000", "matmul:M=1000,N=1000,K=1000",
       {{"openblas_sgemm", {"1000", "1000", "1000"}}, {"onednn_matmul", {"1000", "1000", "1000"}}}},
      {"matmul_128x3072x768", "matmul:M=128,N=3072,K=768",
       {{"openblas_sgemm", {"128", "3072", "768"}}, {"onednn_matmul", {"128", "3072", "768"}}}},
      // The conv as `tune` tunes it by default: its direct and Winograd forms
      // in one job, the faster the winner; beside oneDNN's faster form.
      {"conv2d_3x3_256_14", "conv2d:N=1,C=256,H=14,W=14,K=256,R=3,S=3,pad=1",
       {{"onednn_conv2d", {"1", "256", "14", "14", "256", "3", "3", "1", "1"}},
        {"onednn_conv2d_winograd", {"1", "256", "14", "14", "256", "3", "3", "1", "1"}}}},
      // Its direct form alone, beside oneDNN's direct conv (the search
      // policies' ablations tune this one: one form, one search).
      {"conv2d_direct_3x3_256_14", "conv2d:N=1,C=256,H=14,W=14,K=256,R=3,S=3,pad=1",
       {{"onednn_conv2d", {"1", "256", "14", "14", "256", "3", "3", "1", "1"}}}, "", "direct"},
      // The same conv by Winograd's F(4x4, 3x3), beside oneDNN's faster of
      // its direct conv and its own Winograd (F(2x2, 3x3) on AVX-512, 1.7-2x
      // its direct conv on Zen 5; none on AVX2).
      {"conv2d_winograd_3x3_256_14", "conv2d_winograd:N=1,C=256,H=14,W=14,K=256,pad=1,tile=4",
       {{"onednn_conv2d", {"1", "256", "14", "14", "256", "3", "3", "1", "1"}},
        {"onednn_conv2d_winograd", {"1", "256", "14", "14", "256", "3", "3", "1", "1"}}},
       "conv2d:N=1,C=256,H=14,W=14,K=256,R=3,S=3,pad=1"},
      // F(2x2, 3x3): 2.25x fewer multiplies than direct (F(4x4): 3.06x at
      // 14x14, its last tiles half outside), but under half the transformed
      // weights' bytes a call streams (4.2 MB against 9.4) and 49 tiles,
      // not 16, to reuse each weight over.
      {"conv2d_winograd2_3x3_256_14", "conv2d_winograd:N=1,C=256,H=14,W=14,K=256,pad=1,tile=2",
       {{"onednn_conv2d", {"1", "256", "14", "14", "256", "3", "3", "1", "1"}},
        {"onednn_conv2d_winograd", {"1", "256", "14", "14", "256", "3", "3", "1", "1"}}},
       "conv2d:N=1,C=256,H=14,W=14,K=256,R=3,S=3,pad=1"},
      {"depthwise_3x3_256_14", "depthwise_conv2d:N=1,C=256,H=14,W=14,R=3,S=3,pad=1",
       {{"onednn_depthwise", {"1", "256", "14", "14", "256", "3", "3", "1", "1"}}}},
      // MobileNetV2's second stride-2 depthwise conv.
      {"depthwise_3x3_s2", "depthwise_conv2d:N=1,C=144,H=56,W=56,R=3,S=3,stride=2,pad=1",
       {{"onednn_depthwise", {"1", "144", "56", "56", "144", "3", "3", "2", "1"}}}},
      // ResNet's stem.
      {"conv2d_7x7_s2", "conv2d:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3",
       {{"onednn_conv2d", {"1", "3", "224", "224", "64", "7", "7", "2", "3"}}}},
      // BERT-base's attention scores (12 heads, sequence 128) and layer norm:
      // no library peer here (the model benchmarks compare them with PyTorch).
      {"batch_matmul_12x128x128x64", "batch_matmul:B=12,M=128,N=128,K=64", {}},
      {"layer_norm_128x768", "layer_norm:M=128,N=768", {}},
  };
  return kAll;
}

// A policy entry is a policy's name, optionally with tune flags after it:
// "ansor:sketch-selection=learned" tunes with --policy ansor
// --sketch-selection learned.
std::string PolicyFlags(const std::string& entry) {
  std::vector<std::string> parts = absl::StrSplit(entry, ':');
  std::string flags = absl::StrCat(" --policy ", parts[0]);
  for (size_t i = 1; i < parts.size(); ++i) {
    std::vector<std::string> kv = absl::StrSplit(parts[i], absl::MaxSplits('=', 1));
    absl::StrAppend(&flags, " --", kv[0], kv.size() > 1 ? absl::StrCat(" ", kv[1]) : "");
  }
  return flags;
}

// Runs one tuning in `dir` (a fresh folder) and collects its progress lines
// ("round 3: 192/1000 trials, best 812.3 GFLOPS (1.234 ms), ...") with
// their arrival times. The records stay in dir/curve.db, the JSON result in
// dir/tune.json.
std::vector<Point> Tune(const TuningOptions& o, const std::filesystem::path& dir, const TuningWorkload& w,
                        const std::string& policy, std::string* error) {
  std::string flags = PolicyFlags(policy);
  if (!w.conv_algorithm.empty() && flags.find("--conv-algorithm") == std::string::npos)
    absl::StrAppend(&flags, " --conv-algorithm ", w.conv_algorithm);
  std::string cmd = absl::StrCat("cd ", dir.string(), " && ", o.tuneforge_binary, " tune '", w.spec,
                                 "' --trials ", o.trials, flags, " --threads ", o.threads,
                                 " --db curve.db --json 2>&1 >tune.json");
  FILE* pipe = popen(cmd.c_str(), "r");
  std::vector<Point> points;
  if (!pipe) {
    *error = "could not start tuneforge";
    return points;
  }
  auto start = std::chrono::steady_clock::now();
  char line[4096];
  while (std::fgets(line, sizeof(line), pipe)) {
    int round = 0, done = 0, total = 0;
    double gflops = 0;
    if (std::sscanf(line, "round %d: %d/%d trials, best %lf GFLOPS", &round, &done, &total, &gflops) == 4) {
      double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      points.push_back({done, gflops, t});
    } else if (std::string(line).find("error") != std::string::npos) {
      *error = line;
    }
  }
  if (int rc = pclose(pipe); rc != 0 && error->empty()) *error = absl::StrCat("tuneforge exited with ", rc);
  return points;
}

// Fresh processes a peer is timed in, once before the tuning and once after.
constexpr int kPeerProcesses = 3;

// Copies a finished tuning's record store (and its write-ahead log, if the
// tuning left one) to dest/name; a failed copy only loses the keepsake.
void KeepDatabase(const std::filesystem::path& dir, const std::filesystem::path& dest, const std::string& name) {
  std::error_code ec;
  std::filesystem::create_directories(dest, ec);
  for (const char* suffix : {"", "-wal"}) {
    const std::filesystem::path from = dir / absl::StrCat("curve.db", suffix);
    if (!std::filesystem::exists(from, ec)) continue;
    std::filesystem::copy_file(from, dest / absl::StrCat(name, suffix),
                               std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) std::fprintf(stderr, "bench: keeping %s failed: %s\n", from.c_str(), ec.message().c_str());
  }
}

// The tuning's best record timed once by `tuneforge measure --best` in a
// fresh process, with the peers' timing options (repeats of at least 200 ms,
// the median of 5).
std::optional<double> RemeasureBestOnce(const TuningOptions& o, const std::filesystem::path& dir,
                                        const std::string& spec) {
  std::string cmd = absl::StrCat("cd ", dir.string(), " && ", o.tuneforge_binary, " measure '", spec,
                                 "' --best --db curve.db --threads ", o.threads, " --repeat ", kPeerTiming.repeat,
                                 " --min-repeat-ms ", kPeerTiming.min_repeat_ms, " --json 2>/dev/null");
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return std::nullopt;
  std::string out;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof(buf), pipe)) out.append(buf, n);
  pclose(pipe);
  Json j = Json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.value("correct", false) || !j["gflops"].is_number()) return std::nullopt;
  return j["gflops"].get<double>();
}

// Where the tuning's wall time went (its JSON result and records).
std::optional<TimeSplit> ReadTimeSplit(const std::filesystem::path& dir) {
  std::FILE* f = std::fopen((dir / "tune.json").c_str(), "r");
  if (!f) return std::nullopt;
  std::string text;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof(buf), f)) text.append(buf, n);
  std::fclose(f);
  Json result = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (result.is_discarded()) return std::nullopt;
  return SplitTuningTime(result, (dir / "curve.db").string(),
                         static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

std::optional<double> Max(std::optional<double> a, std::optional<double> b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

// The library's fastest of the forms listed for it (oneDNN's direct conv
// and its Winograd for a Winograd workload), one fresh process each.
std::optional<double> PeerGflopsOnce(const TuningOptions& o, const TuningWorkload& w,
                                     const std::string& prefix, double flops) {
  std::optional<double> best;
  for (const auto& [peer, shape] : w.peers) {
    if (peer.rfind(prefix, 0) != 0) continue;
    std::vector<std::string> args = {peer};
    args.insert(args.end(), shape.begin(), shape.end());
    args.push_back(std::to_string(o.threads));
    std::optional<PeerResult> r = RunPeer(o.self, args);
    if (r && r->seconds > 0) best = Max(best, flops / r->seconds / 1e9);
  }
  return best;
}

std::optional<double> PeerGflops(const TuningOptions& o, const TuningWorkload& w, const std::string& prefix,
                                 double flops) {
  // The machine is shared: a peer timed while a neighbour is busy looks
  // slow. The best of three timings (each a fresh process) is its figure.
  std::optional<double> best;
  for (int i = 0; i < kPeerProcesses; ++i)
    if (std::optional<double> g = PeerGflopsOnce(o, w, prefix, flops); g && (!best || *g > *best)) best = g;
  return best;
}

std::string Reach(const std::vector<Point>& curve, double gflops) {
  std::optional<Point> p = FirstHolding(curve, gflops);
  return p ? absl::StrFormat("trial %d (%.0f s)", p->trials, p->seconds) : "not reached";
}

// The winner and the peers after a tuning, side by side: rounds of one
// fresh process each (ours, then every peer), so that all see the same
// minutes of this shared machine; each figure is its best over the rounds.
// The machine's FMA peak at the same thread count is timed in every round
// too: the ceiling that says how much a ratio to a peer can still move.
struct SideBySide {
  std::optional<double> ours, openblas, onednn, fma_peak;
};

SideBySide TimeSideBySide(const TuningOptions& o, const TuningWorkload& w, const std::filesystem::path& dir,
                          double flops) {
  SideBySide s;
  for (int round = 0; round < 2 * kPeerProcesses; ++round) {
    s.ours = Max(s.ours, RemeasureBestOnce(o, dir, w.spec));
    s.openblas = Max(s.openblas, PeerGflopsOnce(o, w, "openblas", flops));
    s.onednn = Max(s.onednn, PeerGflopsOnce(o, w, "onednn", flops));
    if (double peak = MeasureFmaPeakGflops(o.threads, nullptr); peak > 0) s.fma_peak = Max(s.fma_peak, peak);
  }
  return s;
}

std::optional<double> Ratio(std::optional<double> ours, std::optional<double> peer) {
  if (!ours || !peer || *peer <= 0) return std::nullopt;
  return *ours / *peer;
}

std::string Cell(std::optional<double> v, const char* fmt = "%.1f") {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof(buf), fmt, *v);
  return buf;
}

}  // namespace

std::vector<std::string> TuningWorkloadNames() {
  std::vector<std::string> names;
  for (const TuningWorkload& w : All()) names.push_back(w.name);
  return names;
}

int RunTuningCurves(const TuningOptions& o) {
  Json out = Json::array();
  for (const TuningWorkload& w : All()) {
    if (!o.workloads.empty() && std::find(o.workloads.begin(), o.workloads.end(), w.name) == o.workloads.end())
      continue;
    absl::StatusOr<te::Workload> parsed = te::ParseWorkload(w.spec);
    absl::StatusOr<te::Workload> counted = te::ParseWorkload(w.flops_of.empty() ? w.spec : w.flops_of);
    if (!parsed.ok() || !counted.ok()) return 1;
    const double flops = counted->dag->flops();
    // The tuning reports GFLOPS of its own workload's FLOPs.
    const double scale = flops / parsed->dag->flops();
    std::optional<double> openblas = PeerGflops(o, w, "openblas", flops);
    std::optional<double> onednn = PeerGflops(o, w, "onednn", flops);
    if (!o.json)
      std::printf("\n%s (%s), %d threads, before tuning: OpenBLAS %s GFLOPS, oneDNN %s GFLOPS\n",
                  w.name.c_str(), w.spec.c_str(), o.threads, Cell(openblas).c_str(), Cell(onednn).c_str());
    Json row{{"workload", w.name}, {"spec", w.spec}, {"threads", o.threads}};
    std::vector<std::pair<std::string, std::vector<Point>>> curves;  // per policy, for the reach summary
    for (const std::string& policy : o.policies) {
      std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                  absl::StrCat("tf_curve_", getpid(), "_", policy);
      std::filesystem::remove_all(dir);
      std::filesystem::create_directories(dir);
      std::string error;
      std::vector<Point> curve = Tune(o, dir, w, policy, &error);
      for (Point& p : curve) p.gflops *= scale;
      curves.emplace_back(policy, curve);
      // The ratios compare the winner with the peers timed beside it, in
      // the same minutes (before the tuning is only the header's figure).
      std::optional<TimeSplit> time_split = ReadTimeSplit(dir);
      SideBySide beside = TimeSideBySide(o, w, dir, flops);
      std::optional<double> remeasured = beside.ours;
      if (remeasured) *remeasured *= scale;
      if (!o.keep_dbs.empty()) KeepDatabase(dir, o.keep_dbs, absl::StrCat(w.name, "-", policy, ".db"));
      std::filesystem::remove_all(dir);
      Json points = Json::array();
      for (const Point& p : curve) points.push_back({{"trials", p.trials}, {"best_gflops", p.gflops}, {"seconds", p.seconds}});
      row[policy] = {{"curve", points},
                     {"best_gflops", BestBy(curve, o.trials)},
                     {"remeasured_gflops", remeasured ? Json(*remeasured) : Json()},
                     {"openblas_gflops_beside", beside.openblas ? Json(*beside.openblas) : Json()},
                     {"onednn_gflops_beside", beside.onednn ? Json(*beside.onednn) : Json()},
                     {"fma_peak_gflops_beside", beside.fma_peak ? Json(*beside.fma_peak) : Json()},
                     {"seconds", curve.empty() ? 0.0 : curve.back().seconds},
                     {"error", error}};
      if (time_split)
        row[policy]["time_per_trial"] = {
            {"wall_s", time_split->wall_s},
            {"propose_s", time_split->propose_s},
            {"learn_s", time_split->learn_s},
            {"compile_s", time_split->compile_s},
            {"run_s", time_split->run_s},
            {"retime_s", time_split->retime_s},
            {"other_s", time_split->other_s},
            {"compile_p50_ms", time_split->compile_p50_ms},
            {"compile_p99_ms", time_split->compile_p99_ms}};
      if (o.json) continue;
      std::printf("  %-7s trials", policy.c_str());
      for (int t : {64, 128, 256, 300, 512, 1000, 2000})
        if (t <= o.trials) std::printf("  @%-4d %6.1f", t, BestBy(curve, t));
      std::printf("\n  %-7s time  ", "");
      for (int t : {60, 300, 600, 1200, 2400})
        if (!curve.empty() && t <= curve.back().seconds * 1.5) std::printf("  @%-4ds %5.1f", t, BestAt(curve, t));
      const double secs = curve.empty() ? 0 : curve.back().seconds;
      std::printf("  (done in %.0f s)\n", secs);
      std::printf("  %-7s best %.1f GFLOPS in the tuning, re-measured %s beside OpenBLAS %s and oneDNN %s"
                  " (best of %d interleaved fresh processes each): x OpenBLAS %s, x oneDNN %s\n",
                  "", BestBy(curve, o.trials), Cell(remeasured).c_str(), Cell(beside.openblas).c_str(),
                  Cell(beside.onednn).c_str(), 2 * kPeerProcesses,
                  Cell(Ratio(remeasured, beside.openblas), "%.2f").c_str(),
                  Cell(Ratio(remeasured, beside.onednn), "%.2f").c_str());
      // The workload's FLOPs, not those executed: a conv whose program skips
      // its padded taps can pass 1.0.
      std::printf("  %-7s x FMA peak %s (%s GFLOPS, best of the same rounds)\n", "",
                  Cell(Ratio(remeasured, beside.fma_peak), "%.2f").c_str(), Cell(beside.fma_peak).c_str());
      if (time_split) std::printf("  %-7s %s\n", "", TimeSplitLine(*time_split).c_str());
      if (!error.empty()) std::printf("    error: %s\n", error.c_str());
      std::fflush(stdout);
    }
    // How soon each policy reached the baseline's best (ansor's when it ran,
    // else the first policy's) at 1,000 trials (or the budget).
    if (curves.size() > 1) {
      auto base = std::find_if(curves.begin(), curves.end(), [](const auto& c) { return c.first == "ansor"; });
      if (base == curves.end()) base = curves.begin();
      const int at = std::min(1000, o.trials);
      const double target = BestBy(base->second, at);
      if (!o.json)
        std::printf("  reaching %s's best at %d trials (%.1f GFLOPS):\n", base->first.c_str(), at, target);
      Json reach = Json::object();
      for (const auto& [policy, curve] : curves) {
        std::optional<Point> p95 = FirstHolding(curve, 0.95 * target), p100 = FirstHolding(curve, target);
        reach[policy] = {{"trials_to_95", p95 ? Json(p95->trials) : Json()},
                         {"seconds_to_95", p95 ? Json(p95->seconds) : Json()},
                         {"trials_to_100", p100 ? Json(p100->trials) : Json()},
                         {"seconds_to_100", p100 ? Json(p100->seconds) : Json()}};
        if (!o.json)
          std::printf("    %-40s 95%%: %-22s 100%%: %s\n", policy.c_str(), Reach(curve, 0.95 * target).c_str(),
                      Reach(curve, target).c_str());
      }
      row["reach"] = {{"baseline", base->first}, {"trials", at}, {"best_gflops", target}, {"policies", reach}};
    }
    if (openblas) row["openblas_gflops_before"] = *openblas;
    if (onednn) row["onednn_gflops_before"] = *onednn;
    out.push_back(row);
  }
  if (o.json) std::cout << out.dump(2) << "\n";
  return 0;
}

}  // namespace tuneforge::bench
