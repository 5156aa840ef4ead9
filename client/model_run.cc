#include "client/model_run.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "common/schedule/schedule_json.h"
#include "graph/onnx/test_data.h"

namespace tuneforge::cli {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<std::vector<te::NDArray>> RandomInputs(const graph::Graph& g, uint64_t seed) {
  std::vector<te::NDArray> inputs;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const graph::Value& v = g.values[g.inputs[i]];
    auto a = te::NDArray::Empty(v.dtype, v.shape);
    if (!a.ok()) return a.status();
    a->FillRandom(seed + i);
    inputs.push_back(*std::move(a));
  }
  return inputs;
}

// Compares by element (shapes may differ by a scalar's [1] vs []); updates
// the report's error and first mismatch.
void Check(const te::NDArray& got, const te::NDArray& want, size_t output, ModelRunReport* r) {
  if (got.num_elements() != want.num_elements() || got.dtype() != want.dtype()) {
    if (r->mismatch.empty())
      r->mismatch = absl::StrCat("output ", output, " has ", got.num_elements(), " ", te::ToString(got.dtype()),
                                 " elements, expected ", want.num_elements(), " ", te::ToString(want.dtype()));
    return;
  }
  // Same shape for Compare: the expected array's.
  auto reshaped = te::NDArray::Empty(want.dtype(), want.shape());
  if (!reshaped.ok()) return;
  std::memcpy(reshaped->data(), got.data(), static_cast<size_t>(got.nbytes()));
  auto cmp = te::Compare(*reshaped, want);
  if (!cmp.ok()) {
    if (r->mismatch.empty()) r->mismatch = std::string(cmp.status().message());
    return;
  }
  r->max_abs_error = std::max(r->max_abs_error, cmp->max_abs_error);
  if (!cmp->ok && r->mismatch.empty()) r->mismatch = absl::StrCat("output ", output, ": ", cmp->Summary());
}

}  // namespace

graph::ScheduleLookup LookupFrom(RecordSource& source, const std::string& device_key) {
  return [&source, device_key](const std::string& key) -> std::optional<graph::TunedSchedule> {
    absl::StatusOr<std::optional<v1::Record>> best = BestForDevice(source, key, device_key);
    if (!best.ok() || !best->has_value()) return std::nullopt;
    absl::StatusOr<schedule::Schedule> s = schedule::ParseScheduleJson((*best)->schedule_json());
    if (!s.ok()) return std::nullopt;
    return graph::TunedSchedule{s->steps, (*best)->median_seconds()};
  };
}

absl::StatusOr<ModelRecords> OpenModelRecords(const RecordSourceArgs& args, const std::string& device_key) {
  ModelRecords records;
  records.description = "no record database";
  if (args.db.empty() && !args.server.given() && !fs::exists(kDefaultDb)) return records;
  auto opened = RecordSource::Open(args, RecordSource::Mode::kRead);
  if (!opened.ok()) return opened.status();
  records.source = *std::move(opened);
  records.description = records.source->Describe();
  records.lookup = LookupFrom(*records.source, device_key);
  return records;
}

absl::StatusOr<ModelRunReport> RunModel(const graph::Model& model, const std::string& model_path,
                                        const graph::ScheduleLookup& lookup,
                                        const ModelRunOptions& options) {
  auto compiled = graph::CompiledModel::Compile(model, lookup);
  if (!compiled.ok()) return compiled.status();
  graph::CompiledModel& m = **compiled;
  ModelRunReport r;
  r.kernels = m.kernels();
  r.tasks = static_cast<int>(r.kernels.size());
  for (const graph::KernelInfo& k : r.kernels) r.untuned_tasks += k.tuned ? 0 : 1;
  r.arena_bytes = m.memory_plan().arena_bytes;

  auto sets = graph::ReadTestDataSets(fs::path(model_path).parent_path().string(), model.graph.inputs.size(),
                                      model.graph.outputs.size());
  if (!sets.ok()) return sets.status();
  std::vector<te::NDArray> timing_inputs;
  if (!sets->empty()) {
    r.checked_against = absl::StrCat("the model's test data (", sets->size(), " set", sets->size() > 1 ? "s" : "", ")");
    for (graph::TestDataSet& d : *sets) {
      auto out = m.Run(d.inputs);
      if (!out.ok()) return out.status();
      for (size_t o = 0; o < out->size(); ++o) Check((*out)[o], d.outputs[o], o, &r);
    }
    timing_inputs = std::move(sets->front().inputs);
  } else {
    r.checked_against = "the unscheduled reference on random inputs";
    auto inputs = RandomInputs(model.graph, options.seed);
    if (!inputs.ok()) return inputs.status();
    auto reference = graph::CompiledModel::Compile(model, nullptr);
    if (!reference.ok()) return reference.status();
    auto want = (*reference)->Run(*inputs);
    if (!want.ok()) return want.status();
    auto got = m.Run(*inputs);
    if (!got.ok()) return got.status();
    for (size_t o = 0; o < got->size(); ++o) Check((*got)[o], (*want)[o], o, &r);
    timing_inputs = *std::move(inputs);
  }
  r.outputs_checked = r.mismatch.empty();

  // Timing: buffers allocated once; one warm-up, then the median run.
  std::vector<const void*> in;
  for (const te::NDArray& a : timing_inputs) in.push_back(a.data());
  std::vector<te::NDArray> outputs;
  std::vector<void*> out;
  for (graph::ValueId id : model.graph.outputs) {
    auto a = te::NDArray::Empty(model.graph.values[id].dtype, model.graph.values[id].shape);
    if (!a.ok()) return a.status();
    outputs.push_back(*std::move(a));
  }
  for (te::NDArray& a : outputs) out.push_back(a.data());
  if (auto s = m.RunInto(in, out); !s.ok()) return s;
  const size_t runs = static_cast<size_t>(std::max(options.runs, 1));
  std::vector<double> ms;
  std::vector<std::vector<double>> task_seconds(runs, std::vector<double>(m.kernels().size(), 0.0));
  for (size_t i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (auto s = m.RunInto(in, out, &task_seconds[i]); !s.ok()) return s;
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  r.latency_ms = ms[ms.size() / 2];
  for (size_t t = 0; t < m.kernels().size(); ++t) {
    std::vector<double> per_run;
    for (const std::vector<double>& run : task_seconds) per_run.push_back(run[t] * 1e3);
    std::sort(per_run.begin(), per_run.end());
    r.task_ms.push_back(per_run[per_run.size() / 2]);
  }
  return r;
}

}  // namespace tuneforge::cli
