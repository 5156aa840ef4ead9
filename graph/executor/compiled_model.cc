#include "graph/executor/compiled_model.h"

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "graph/executor/group_constants.h"
#include "graph/executor/kernel_choice.h"

namespace tuneforge::graph {
namespace {

struct TaskKernel {
  std::unique_ptr<codegen::LoadedKernel> loaded;
  std::vector<codegen::PackedArg> packed;
};

absl::StatusOr<TaskKernel> CompileTask(const GroupKernel& kernel, const ScheduleLookup& lookup,
                                       KernelInfo* info) {
  auto func = ChooseProgram(kernel, lookup, "default_function", info);
  if (!func.ok()) return func.status();
  auto object = codegen::CompileToObject(*func, codegen::Target::Host());
  if (!object.ok()) return object.status();
  auto loaded = codegen::LoadObject(*object);
  if (!loaded.ok()) return loaded.status();
  return TaskKernel{*std::move(loaded), object->packed_args};
}

void FreeArena(uint8_t* p) { std::free(p); }

}  // namespace

absl::StatusOr<std::unique_ptr<CompiledModel>> CompiledModel::Compile(const Model& given,
                                                                      const ScheduleLookup& lookup) {
  absl::StatusOr<Model> faster = WithFasterForms(given, lookup);
  if (!faster.ok()) return faster.status();
  const Model& model = *faster;
  std::unique_ptr<CompiledModel> m(new CompiledModel());
  m->graph_ = model.graph;
  m->groups_ = model.groups;
  m->kernel_of_group_.assign(model.groups.size(), -1);
  m->plan_ = PlanMemory(m->graph_, m->groups_);
  m->packed_.resize(model.groups.size());
  for (const ModelTask& task : model.tasks) {
    KernelInfo info{task.name, task.workload_key, false, "", task.spec};
    const GroupKernel& kernel = model.kernels[task.groups.front()];
    auto loaded = CompileTask(kernel, lookup, &info);
    if (!loaded.ok())
      return absl::Status(loaded.status().code(), absl::StrCat("kernel '", task.name, "' (",
                                                               task.workload_key, "): ",
                                                               loaded.status().message()));
    for (int g : task.groups) {
      m->kernel_of_group_[g] = static_cast<int>(m->loaded_.size());
      // Each group's own weights, in the layout the kernel reads, once.
      auto packed = PackGroupConstants(*loaded->loaded, loaded->packed, m->graph_, m->plan_,
                                       model.kernels[g].args);
      if (!packed.ok())
        return absl::Status(packed.status().code(), absl::StrCat("kernel '", task.name, "': ",
                                                                 packed.status().message()));
      m->packed_[g] = *std::move(packed);
    }
    m->loaded_.push_back(std::move(loaded->loaded));
    m->kernels_.push_back(std::move(info));
  }
  for (const GroupKernel& k : model.kernels) m->args_.push_back(k.args);
  // aligned_alloc needs a multiple of the alignment; at least one line.
  size_t bytes = static_cast<size_t>(std::max<int64_t>(m->plan_.arena_bytes, 64));
  m->arena_ = {static_cast<uint8_t*>(std::aligned_alloc(64, bytes)), FreeArena};
  if (!m->arena_) return absl::ResourceExhaustedError(absl::StrCat("cannot allocate ", bytes, " bytes"));
  return m;
}

void* CompiledModel::Resolve(ValueId v, const std::vector<const void*>& inputs) {
  const Storage& s = plan_.storage[v];
  switch (s.kind) {
    case Storage::Kind::kArena: return arena_.get() + s.offset;
    case Storage::Kind::kInput: return const_cast<void*>(inputs[s.input]);
    case Storage::Kind::kConstant: break;
  }
  // A constant or a reshape of one: kernels only read it.
  return const_cast<void*>(graph_.values[plan_.root[v]].constant->data());
}

absl::Status CompiledModel::RunInto(const std::vector<const void*>& inputs,
                                    const std::vector<void*>& outputs, std::vector<double>* task_seconds) {
  if (inputs.size() != graph_.inputs.size() || outputs.size() != graph_.outputs.size())
    return absl::InvalidArgumentError(absl::StrCat("the model takes ", graph_.inputs.size(),
                                                   " inputs and gives ", graph_.outputs.size(),
                                                   " outputs"));
  for (size_t g = 0; g < groups_.size(); ++g) {
    scratch_args_.clear();
    for (ValueId v : args_[g]) scratch_args_.push_back(Resolve(v, inputs));
    packed_[g].AppendTo(&scratch_args_);
    const bool timed = task_seconds != nullptr && static_cast<size_t>(kernel_of_group_[g]) < task_seconds->size();
    const auto start = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
    int32_t rc = (*loaded_[kernel_of_group_[g]])(scratch_args_.data());
    if (timed)
      (*task_seconds)[kernel_of_group_[g]] +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (rc != 0)
      return absl::InternalError(absl::StrCat("kernel '", kernels_[kernel_of_group_[g]].name,
                                              "' returned ", rc));
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Value& v = graph_.values[graph_.outputs[o]];
    std::memcpy(outputs[o], Resolve(graph_.outputs[o], inputs),
                static_cast<size_t>(v.num_elements() * v.dtype.bytes()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<te::NDArray>> CompiledModel::Run(const std::vector<te::NDArray>& inputs) {
  if (inputs.size() != graph_.inputs.size())
    return absl::InvalidArgumentError(
        absl::StrCat("the model takes ", graph_.inputs.size(), " inputs, not ", inputs.size()));
  std::vector<const void*> in;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = graph_.values[graph_.inputs[i]];
    if (inputs[i].dtype() != v.dtype || inputs[i].num_elements() != v.num_elements())
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", v.name, "' must be ", TypeString(v), ", got ", te::ToString(inputs[i].dtype()),
          " with ", inputs[i].num_elements(), " elements"));
    in.push_back(inputs[i].data());
  }
  std::vector<te::NDArray> outputs;
  std::vector<void*> out;
  for (ValueId id : graph_.outputs) {
    const Value& v = graph_.values[id];
    auto a = te::NDArray::Empty(v.dtype, v.shape);
    if (!a.ok()) return a.status();
    outputs.push_back(*std::move(a));
  }
  for (te::NDArray& a : outputs) out.push_back(a.data());
  if (auto s = RunInto(in, out); !s.ok()) return s;
  return outputs;
}

}  // namespace tuneforge::graph
