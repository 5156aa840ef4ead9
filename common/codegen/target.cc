// Target specs ("host", "aarch64", "cuda:sm_XX", "TRIPLE[:cpu=..][:features=..][:cores=N]"),
// checked by the build's toolchain (LLVM's own CPU and feature tables, or
// the spec's text alone in a runner-only build: toolchain.h).
#include "common/codegen/target.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/codegen/toolchain.h"

namespace tuneforge::codegen {
namespace {

using toolchain::kSpecForms;
using toolchain::SpecError;

absl::Status ApplyOption(const std::string& spec, absl::string_view option, Target& t) {
  std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(option, absl::MaxSplits('=', 1));
  if (kv.first == "cpu" && !kv.second.empty()) {
    t.cpu = std::string(kv.second);
  } else if (kv.first == "features") {
    t.features = std::string(kv.second);
  } else if (kv.first == "cores") {
    int cores = 0;
    if (!absl::SimpleAtoi(kv.second, &cores) || cores < 1) {
      return SpecError(spec, absl::StrCat("cores must be a positive integer, got '", kv.second, "'"));
    }
    t.num_cores = cores;
  } else {
    return SpecError(spec, absl::StrCat("unknown option '", option,
                                        "'; options are cpu=NAME, features=+a,+b, cores=N"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Target> Target::Parse(const std::string& spec) {
  if (spec.empty()) return absl::InvalidArgumentError(absl::StrCat("empty target; ", kSpecForms));
  if (GpuTarget::IsGpuSpec(spec)) {
    absl::StatusOr<GpuTarget> gpu = GpuTarget::Parse(spec);
    if (!gpu.ok()) return gpu.status();
    return Gpu(*std::move(gpu));
  }
  std::vector<absl::string_view> parts = absl::StrSplit(spec, ':');
  absl::StatusOr<Target> t;
  if (parts[0] == "host") {
    t = Host();
  } else if (parts[0] == "aarch64") {
    t = toolchain::FromTriple(spec, "aarch64-unknown-linux-gnu");
  } else if (parts[0].empty()) {
    return SpecError(spec, absl::StrCat("missing triple; ", kSpecForms));
  } else {
    t = toolchain::FromTriple(spec, std::string(parts[0]));
  }
  if (!t.ok()) return t.status();
  for (size_t i = 1; i < parts.size(); ++i) {
    absl::Status s = ApplyOption(spec, parts[i], *t);
    if (!s.ok()) return s;
  }
  // The plain host probe is already complete and exact.
  if (parts[0] == "host" && parts.size() == 1) return t;
  absl::Status s = toolchain::Finish(spec, *t);
  if (!s.ok()) return s;
  return t;
}

Target Target::Gpu(GpuTarget gpu) {
  Target t;
  t.triple = kCudaTriple;
  t.cpu = gpu.arch();
  t.vector_bits = 32;  // CUDA C is scalar per thread
  t.gpu = std::move(gpu);
  return t;
}

bool Target::is_x86() const { return absl::StartsWith(triple, "x86_64-"); }
bool Target::is_aarch64() const { return absl::StartsWith(triple, "aarch64-"); }

std::string Target::device_key() const {
  if (gpu) return gpu->device_key();
  std::string isa;
  if (is_x86()) {
    isa = vector_bits >= 512 ? "avx512" : vector_bits >= 256 ? "avx2" : "sse";
  } else if (is_aarch64()) {
    isa = absl::StrContains(features, "+sve") ? "sve" : "neon";
  } else {
    isa = "generic";
  }
  return absl::StrCat(triple.substr(0, triple.find('-')), "-", isa, "-", num_cores, "c");
}

std::string Target::ToString() const {
  if (gpu) return gpu->ToString();
  std::string s = absl::StrCat(triple, ":cpu=", cpu);
  if (!features.empty()) absl::StrAppend(&s, ":features=", features);
  absl::StrAppend(&s, ":cores=", num_cores);
  return s;
}

}  // namespace tuneforge::codegen
