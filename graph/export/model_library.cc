#include "graph/export/model_library.h"

#include <filesystem>
#include <fstream>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/codegen/compiler.h"
#include "graph/executor/group_constants.h"
#include "graph/executor/kernel_choice.h"
#include "graph/executor/memory_plan.h"
#include "graph/export/run_tool.h"

namespace tuneforge::graph {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kAlignment = 64;

int64_t Align(int64_t n) { return (n + kAlignment - 1) / kAlignment * kAlignment; }

int64_t Bytes(const Value& v) { return v.num_elements() * v.dtype.bytes(); }

absl::Status WriteFile(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  if (!out) return absl::PermissionDeniedError(absl::StrCat("cannot write '", path.string(), "'"));
  return absl::OkStatus();
}

// Every constant the kernels read, packed 64-byte aligned: offset per root.
std::string PackWeights(const Graph& g, const MemoryPlan& plan, const std::vector<GroupKernel>& kernels,
                        absl::flat_hash_map<ValueId, int64_t>* offsets) {
  std::string blob;
  for (const GroupKernel& k : kernels)
    for (ValueId v : k.args) {
      ValueId root = plan.root[v];
      if (plan.storage[v].kind != Storage::Kind::kConstant || offsets->contains(root)) continue;
      const te::NDArray& a = *g.values[root].constant;
      (*offsets)[root] = static_cast<int64_t>(blob.size());
      blob.append(static_cast<const char*>(a.data()), static_cast<size_t>(a.nbytes()));
      blob.resize(static_cast<size_t>(Align(static_cast<int64_t>(blob.size()))), '\0');
    }
  return blob;
}

std::string ShapeComment(const Value& v) {
  return absl::StrCat(te::ToString(v.dtype), "[", absl::StrJoin(v.shape, ", "), "]");
}

std::string Header(const Model& model, const std::string& name, const MemoryPlan& plan) {
  const Graph& g = model.graph;
  std::string h = absl::StrCat(
      "/* ", name, ": the ONNX model '", model.name, "' compiled by tuneforge.\n",
      " * Link with -l", name, " (and -Wl,-rpath,<this folder>); nothing else of tuneforge is needed.\n",
      " * ", model.groups.size(), " kernels per run; intermediates live in one static arena of ",
      plan.arena_bytes, " bytes,\n * so calls must not overlap (one run at a time per process). */\n",
      "#ifndef ", name, "_H\n#define ", name, "_H\n\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  absl::StrAppend(&h, "#define ", name, "_NUM_INPUTS ", g.inputs.size(), "\n#define ", name, "_NUM_OUTPUTS ",
                  g.outputs.size(), "\n\n");
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const Value& v = g.values[g.inputs[i]];
    absl::StrAppend(&h, "/* input ", i, " '", v.name, "': ", ShapeComment(v), " */\n#define ", name, "_INPUT", i,
                    "_ELEMENTS ", v.num_elements(), "\n");
  }
  for (size_t o = 0; o < g.outputs.size(); ++o) {
    const Value& v = g.values[g.outputs[o]];
    absl::StrAppend(&h, "/* output ", o, " '", v.name, "': ", ShapeComment(v), " */\n#define ", name, "_OUTPUT",
                    o, "_ELEMENTS ", v.num_elements(), "\n");
  }
  absl::StrAppend(&h, "\n/* Runs the model: inputs[i] and outputs[o] point to row-major arrays of the\n",
                  " * types and shapes above. Returns 0, or the non-zero code of a failed kernel. */\n",
                  "int ", name, "_run(const void* const* inputs, void* const* outputs);\n\n",
                  "#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
  return h;
}

// Appends a group's packed constants to the weights blob: their offsets.
std::vector<int64_t> AppendPacked(const codegen::PackedConstants& packed, std::string* blob) {
  std::vector<int64_t> offsets;
  for (const te::NDArray& a : packed.buffers()) {
    offsets.push_back(static_cast<int64_t>(blob->size()));
    blob->append(static_cast<const char*>(a.data()), static_cast<size_t>(a.nbytes()));
    blob->resize(static_cast<size_t>(Align(static_cast<int64_t>(blob->size()))), '\0');
  }
  return offsets;
}

// packed_offsets[g]: where group g's packed constants (layout rewrite) lie in
// the weights blob; its kernel takes them after its outputs.
std::string Glue(const Model& model, const std::string& name, const MemoryPlan& plan,
                 const absl::flat_hash_map<ValueId, int64_t>& weight_offsets, const std::vector<int>& task_of_group,
                 const std::vector<std::vector<int64_t>>& packed_offsets) {
  const Graph& g = model.graph;
  auto pointer = [&](ValueId v) -> std::string {
    const Storage& s = plan.storage[v];
    switch (s.kind) {
      case Storage::Kind::kArena: return absl::StrCat("(void*)(arena + ", s.offset, ")");
      case Storage::Kind::kInput: return absl::StrCat("(void*)inputs[", s.input, "]");
      case Storage::Kind::kConstant: break;
    }
    return absl::StrCat("(void*)(", name, "_weights + ", weight_offsets.at(plan.root[v]), ")");
  };
  std::string c = absl::StrCat("/* Generated by tuneforge compile from '", model.name, "'. */\n",
                               "#include <stdint.h>\n#include <string.h>\n#include \"", name, ".h\"\n\n",
                               "extern const unsigned char ", name, "_weights[];\n");
  for (size_t t = 0; t < model.tasks.size(); ++t)
    absl::StrAppend(&c, "int32_t ", name, "_k", t, "(void** args);  /* ", model.tasks[t].name, " */\n");
  absl::StrAppend(&c, "\nstatic unsigned char arena[", std::max<int64_t>(plan.arena_bytes, kAlignment),
                  "] __attribute__((aligned(", kAlignment, ")));\n\n", "int ", name,
                  "_run(const void* const* inputs, void* const* outputs) {\n  int32_t rc;\n");
  for (size_t gi = 0; gi < model.groups.size(); ++gi) {
    const GroupKernel& k = model.kernels[gi];
    std::vector<std::string> args;
    for (ValueId v : k.args) args.push_back(pointer(v));
    for (int64_t offset : packed_offsets[gi]) args.push_back(absl::StrCat("(void*)(", name, "_weights + ", offset, ")"));
    absl::StrAppend(&c, "  { /* ", k.name, " */\n    void* args[] = {", absl::StrJoin(args, ", "), "};\n",
                    "    if ((rc = ", name, "_k", task_of_group[gi], "(args)) != 0) return rc;\n  }\n");
  }
  for (size_t o = 0; o < g.outputs.size(); ++o)
    absl::StrAppend(&c, "  memcpy(outputs[", o, "], ", pointer(g.outputs[o]), ", ", Bytes(g.values[g.outputs[o]]),
                    ");\n");
  absl::StrAppend(&c, "  return 0;\n}\n");
  return c;
}

}  // namespace

std::string CIdentifier(const std::string& name) {
  std::string out;
  for (char ch : name) out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "model_" + out;
  return out;
}

absl::StatusOr<LibraryReport> WriteModelLibrary(const Model& model, const ScheduleLookup& lookup,
                                                const LibraryOptions& options) {
  const std::string name = CIdentifier(options.name.empty() ? model.name : options.name);
  fs::path dir(options.out_dir);
  std::error_code ec;
  fs::create_directories(dir / "kernels", ec);
  if (ec) return absl::PermissionDeniedError(absl::StrCat("cannot create '", (dir / "kernels").string(), "': ", ec.message()));
  dir = fs::absolute(dir);

  LibraryReport report;
  MemoryPlan plan = PlanMemory(model.graph, model.groups);
  report.arena_bytes = plan.arena_bytes;
  std::vector<int> task_of_group(model.groups.size(), -1);
  // The glue is C: "-x c" keeps a C++ driver from compiling it as C++.
  std::vector<std::string> link = {options.compiler, "-shared", "-o", (dir / ("lib" + name + ".so")).string(),
                                   "-x", "c", (dir / (name + ".c")).string(), "-x", "none",
                                   (dir / "weights.S").string()};
  absl::flat_hash_map<ValueId, int64_t> weight_offsets;
  std::string weights = PackWeights(model.graph, plan, model.kernels, &weight_offsets);
  std::vector<std::vector<int64_t>> packed_offsets(model.groups.size());
  for (size_t t = 0; t < model.tasks.size(); ++t) {
    const ModelTask& task = model.tasks[t];
    for (int gi : task.groups) task_of_group[gi] = static_cast<int>(t);
    KernelInfo info{task.name, task.workload_key, false, ""};
    auto func = ChooseProgram(model.kernels[task.groups.front()], lookup, absl::StrCat(name, "_k", t), &info);
    if (!func.ok()) return func.status();
    auto object = codegen::CompileToObject(*func, codegen::Target::Host());
    if (!object.ok())
      return absl::Status(object.status().code(), absl::StrCat("kernel '", task.name, "': ", object.status().message()));
    if (!object->packed_args.empty()) {
      // Layout rewrite at compile time: each group's weights are stored in
      // the layout its kernel reads, computed here by the kernel's prepack.
      auto loaded = codegen::LoadObject(*object);
      if (!loaded.ok()) return loaded.status();
      for (int gi : task.groups) {
        auto packed = PackGroupConstants(**loaded, object->packed_args, model.graph, plan, model.kernels[gi].args);
        if (!packed.ok()) return packed.status();
        packed_offsets[gi] = AppendPacked(*packed, &weights);
      }
    }
    fs::path path = dir / "kernels" / absl::StrCat("k", t, ".o");
    if (auto s = WriteFile(path, object->object); !s.ok()) return s;
    link.push_back(path.string());
    report.kernels.push_back(std::move(info));
  }
  report.weight_bytes = static_cast<int64_t>(weights.size());
  // The weights are linked in as read-only data with the assembler's
  // .incbin: no giant C initializer to compile.
  std::string asm_text = absl::StrCat("  .section .rodata\n  .balign ", kAlignment, "\n  .globl ", name,
                                      "_weights\n", name, "_weights:\n  .incbin \"", (dir / "weights.bin").string(),
                                      "\"\n  .byte 0\n  .section .note.GNU-stack,\"\",@progbits\n");
  report.header = (dir / (name + ".h")).string();
  report.library = (dir / ("lib" + name + ".so")).string();
  for (const auto& [file, text] :
       std::vector<std::pair<std::string, std::string>>{{"weights.bin", weights},
                                                        {"weights.S", asm_text},
                                                        {name + ".h", Header(model, name, plan)},
                                                        {name + ".c", Glue(model, name, plan, weight_offsets, task_of_group, packed_offsets)}})
    if (auto s = WriteFile(dir / file, text); !s.ok()) return s;
  // The thread pool the kernels call, then what it and the kernels need.
  for (const char* arg : {"-O2", "-fPIC", "-Wl,-z,noexecstack"}) link.push_back(arg);
  link.push_back(options.runtime_archive);
  for (const char* arg : {"-lm", "-lpthread"}) link.push_back(arg);
  if (auto s = RunTool(link, (dir / "link.log").string()); !s.ok()) return s;
  return report;
}

}  // namespace tuneforge::graph
