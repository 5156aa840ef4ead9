#include "common/te/workload.h"

#include <algorithm>
#include <fstream>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/te/definition/definition.h"

namespace tuneforge::te {
namespace {

// No key may exceed this, so that shapes multiply without overflow.
constexpr int64_t kMaxKeyValue = int64_t{1} << 31;
// Nor may any tensor hold more elements (a 4 TiB float32 tensor).
constexpr double kMaxTensorElements = static_cast<double>(int64_t{1} << 40);
// Real fused kernels have a handful of epilogues; the cap keeps a hostile
// spec from building thousands of stages.
constexpr size_t kMaxEpilogues = 16;
// Definitions are a few kilobytes of math; anything far larger is a mistake.
constexpr std::streamsize kMaxDefinitionBytes = 1 << 20;

absl::Status SpecError(absl::string_view spec, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("workload '", spec, "': ", message));
}

std::string OpNames() {
  std::vector<std::string> names;
  for (const ops::OpDef& op : ops::OpTable()) names.push_back(op.info.name);
  return absl::StrJoin(names, ", ");
}

std::string EpilogueNames() {
  std::vector<std::string> names;
  for (const ops::EpilogueInfo& e : ops::ListEpilogues()) names.push_back(e.name);
  return absl::StrJoin(names, ", ");
}

std::string KeyNames(const ops::OpDef& op) {
  std::vector<std::string> keys;
  for (const ParamInfo& p : op.info.params) keys.push_back(p.key);
  keys.push_back("dtype");
  return absl::StrJoin(keys, ", ");
}

const ParamInfo* FindParam(const ops::OpDef& op, absl::string_view key) {
  for (const ParamInfo& p : op.info.params)
    if (p.key == key) return &p;
  return nullptr;
}

// The parsed "OP+EPILOGUE+...:KEY=VALUE,..." before anything is built.
struct ParsedSpec {
  const ops::OpDef* op = nullptr;
  std::vector<std::string> epilogues;
  absl::flat_hash_map<std::string, int64_t> values;
  DType dtype = DType::Float32();
};

absl::Status ParseOpPart(absl::string_view spec, absl::string_view text, ParsedSpec& out) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, '+');
  for (absl::string_view part : parts)
    if (absl::StripAsciiWhitespace(part).empty())
      return SpecError(spec, "empty op name; write OP or OP+EPILOGUE+... (e.g. conv2d+bias+relu) "
                             "with single '+' between names");
  std::string base(absl::StripAsciiWhitespace(parts[0]));
  out.op = ops::FindOp(base);
  if (!out.op)
    return SpecError(spec, absl::StrCat("unknown op '", base, "'; valid ops: ", OpNames()));
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string name(absl::StripAsciiWhitespace(parts[i]));
    if (!ops::IsEpilogue(name))
      return SpecError(spec, absl::StrCat("unknown epilogue '", name, "' after '+'; valid "
                                          "epilogues: ", EpilogueNames()));
    out.epilogues.push_back(name);
  }
  if (out.epilogues.size() > kMaxEpilogues)
    return SpecError(spec, absl::StrCat(out.epilogues.size(), " epilogues; at most ", kMaxEpilogues,
                                        " may follow an op"));
  return absl::OkStatus();
}

absl::Status ParseValue(absl::string_view spec, const std::string& key, absl::string_view value,
                        ParsedSpec& out) {
  if (key == "dtype") {
    std::optional<DType> t = ParseDType(std::string_view(value.data(), value.size()));
    if (!t || t->is_bool())
      return SpecError(spec, absl::StrCat("dtype=", value, " is not supported; use float32, "
                                          "float64, int8, int32 or int64"));
    out.dtype = *t;
    return absl::OkStatus();
  }
  int64_t v = 0;
  if (!absl::SimpleAtoi(value, &v)) {
    bool looks_joined = value.find_first_of(";:= ") != absl::string_view::npos;
    return SpecError(spec, absl::StrCat(key, "=", value, " is not an integer",
                                        looks_joined ? "; separate KEY=VALUE pairs with ','"
                                                     : "; values are whole numbers like 64"));
  }
  if (v > kMaxKeyValue)
    return SpecError(spec, absl::StrCat(key, "=", v, " is too large; the limit is ", kMaxKeyValue));
  out.values[key] = v;
  return absl::OkStatus();
}

absl::Status ParseKeyPart(absl::string_view spec, absl::string_view text, ParsedSpec& out) {
  if (absl::StripAsciiWhitespace(text).empty()) return absl::OkStatus();
  absl::flat_hash_set<std::string> seen;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    item = absl::StripAsciiWhitespace(item);
    if (item.empty())
      return SpecError(spec, "empty KEY=VALUE item; separate items with single commas and no "
                             "trailing comma");
    size_t eq = item.find('=');
    if (eq == absl::string_view::npos)
      return SpecError(spec, absl::StrCat("'", item, "' is not KEY=VALUE (e.g. M=1024)"));
    std::string key(absl::StripAsciiWhitespace(item.substr(0, eq)));
    absl::string_view value = absl::StripAsciiWhitespace(item.substr(eq + 1));
    if (key.empty()) return SpecError(spec, absl::StrCat("'", item, "' has no key before '='"));
    if (key != "dtype" && !FindParam(*out.op, key)) {
      std::string hint;
      for (const ParamInfo& p : out.op->info.params)
        if (absl::EqualsIgnoreCase(p.key, key)) hint = absl::StrCat(" (did you mean '", p.key, "'?)");
      return SpecError(spec, absl::StrCat(out.op->info.name, " has no key '", key, "'", hint,
                                          "; its keys: ", KeyNames(*out.op)));
    }
    if (!seen.insert(key).second)
      return SpecError(spec, absl::StrCat("key '", key, "' is given twice; give each key once"));
    if (value.empty())
      return SpecError(spec, absl::StrCat("key '", key, "' has no value; write ", key, "=VALUE"));
    if (auto s = ParseValue(spec, key, value, out); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// Fills defaults and reports the first required key missing.
absl::Status CompleteKeys(absl::string_view spec, ParsedSpec& out) {
  std::vector<std::string> missing;
  for (const ParamInfo& p : out.op->info.params) {
    if (out.values.contains(p.key)) continue;
    if (p.default_value) out.values[p.key] = *p.default_value;
    else if (p.required) missing.push_back(p.key);
  }
  if (missing.empty()) return absl::OkStatus();
  std::vector<std::string> example;
  for (const ParamInfo& p : out.op->info.params)
    if (p.required) example.push_back(absl::StrCat(p.key, "=.."));
  return SpecError(spec, absl::StrCat(out.op->info.name, " needs key", missing.size() > 1 ? "s " : " ",
                                      absl::StrJoin(missing, ", "), "; write ",
                                      out.op->info.name, ":", absl::StrJoin(example, ",")));
}

// Keys sorted; optional keys at their default and dtype=float32 left out.
std::string CanonicalSpec(const ParsedSpec& p) {
  std::vector<std::string> items;
  for (const ParamInfo& info : p.op->info.params) {
    auto it = p.values.find(info.key);
    if (it == p.values.end()) continue;
    if (info.default_value && *info.default_value == it->second) continue;
    items.push_back(absl::StrCat(info.key, "=", it->second));
  }
  if (p.dtype != DType::Float32()) items.push_back(absl::StrCat("dtype=", ToString(p.dtype)));
  std::sort(items.begin(), items.end());
  std::string op = p.op->info.name;
  for (const std::string& e : p.epilogues) absl::StrAppend(&op, "+", e);
  return absl::StrCat(op, ":", absl::StrJoin(items, ","));
}

absl::Status CheckSizes(absl::string_view what, const ComputeDag& dag) {
  for (const Tensor& t : dag.ops()) {
    double elements = 1;
    for (int64_t d : t->shape) elements *= static_cast<double>(d);
    if (elements > kMaxTensorElements)
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": tensor '", t->name, "' would hold ", elements, " elements, more than the limit ",
          kMaxTensorElements, "; use smaller shapes"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Workload> MakeWorkload(std::string spec, std::string op,
                                      const std::vector<Tensor>& outputs) {
  auto dag = ComputeDag::Create(outputs);
  if (!dag.ok()) return SpecError(spec, dag.status().message());
  if (auto s = CheckSizes(absl::StrCat("workload '", spec, "'"), *dag); !s.ok()) return s;
  return Workload{std::move(spec), std::move(op),
                  std::make_shared<const ComputeDag>(*std::move(dag))};
}

}  // namespace

absl::StatusOr<Workload> ParseWorkload(std::string_view spec) {
  absl::string_view text = absl::StripAsciiWhitespace(absl::string_view(spec.data(), spec.size()));
  if (text.empty())
    return absl::InvalidArgumentError(
        "empty workload spec; write OP:KEY=VALUE,... such as matmul:M=1024,N=1024,K=1024, or "
        "def:FILE for a compute definition");
  if (absl::StartsWith(text, "def:")) return LoadDefinitionFile(std::string(text.substr(4)));
  size_t colon = text.find(':');
  ParsedSpec parsed;
  if (auto s = ParseOpPart(text, text.substr(0, colon), parsed); !s.ok()) return s;
  if (colon != absl::string_view::npos)
    if (auto s = ParseKeyPart(text, text.substr(colon + 1), parsed); !s.ok()) return s;
  if (auto s = CompleteKeys(text, parsed); !s.ok()) return s;

  auto built = parsed.op->build(ops::OpArgs(parsed.values, parsed.dtype));
  if (!built.ok()) return SpecError(text, built.status().message());
  for (const std::string& e : parsed.epilogues) {
    built = ops::ApplyEpilogue(e, *built);
    if (!built.ok()) return SpecError(text, built.status().message());
  }
  std::string canonical = CanonicalSpec(parsed);
  std::string op = canonical.substr(0, canonical.find(':'));
  return MakeWorkload(std::move(canonical), std::move(op), {built->output});
}

absl::StatusOr<Workload> LoadDefinitionFile(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return absl::NotFoundError(absl::StrCat("cannot read definition file '", path,
                                            "'; check the path (def:FILE or --def FILE)"));
  std::string text(kMaxDefinitionBytes + 1, '\0');
  in.read(text.data(), kMaxDefinitionBytes + 1);
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > static_cast<size_t>(kMaxDefinitionBytes))
    return absl::InvalidArgumentError(absl::StrCat("definition file '", path, "' is larger than ",
                                                   kMaxDefinitionBytes, " bytes; is it the right file?"));
  std::string name = path.substr(path.find_last_of('/') + 1);
  name = name.substr(0, name.find('.'));
  if (name.empty()) name = "def";
  auto outputs = definition::BuildDefinition(text, name);
  if (!outputs.ok())
    return absl::Status(outputs.status().code(), absl::StrCat(path, ": ", outputs.status().message()));
  return MakeWorkload(absl::StrCat("def:", path), name, *outputs);
}

absl::StatusOr<Workload> ParseDefinition(std::string_view text, std::string name) {
  auto outputs = definition::BuildDefinition(absl::string_view(text.data(), text.size()), name);
  if (!outputs.ok()) return outputs.status();
  return MakeWorkload(absl::StrCat("def:", name), name, *outputs);
}

std::vector<OpInfo> ListOps() { return ops::ListOps(); }

std::string WorkloadHelp() {
  std::string out = "Workloads: OP:KEY=VALUE,... (keys in any order), OP+EPILOGUE+...:..., or def:FILE\n";
  for (const ops::OpDef& op : ops::OpTable()) {
    std::vector<std::string> keys;
    for (const ParamInfo& p : op.info.params) {
      if (p.default_value) keys.push_back(absl::StrCat(p.key, "=", *p.default_value));
      else if (p.required) keys.push_back(p.key);
      else keys.push_back(absl::StrCat("[", p.key, "]"));
    }
    absl::StrAppend(&out, "  ", op.info.name, ": ", op.info.summary, "\n      keys: ",
                    absl::StrJoin(keys, " "), " dtype=float32\n");
  }
  absl::StrAppend(&out, "Epilogues (OP+NAME, one elementwise stage each):\n");
  for (const ops::EpilogueInfo& e : ops::ListEpilogues())
    absl::StrAppend(&out, "  ", e.name, ": ", e.meaning, "\n");
  return out;
}

}  // namespace tuneforge::te
