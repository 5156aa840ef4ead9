#include "worker/agent/device_key.h"

#include <cctype>
#include <fstream>
#include <iterator>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace tuneforge::worker {
namespace {

constexpr size_t kMaxModelChars = 24;

// Words that name no model: vendors, marketing, and units.
bool IsNoise(const std::string& word) {
  static const char* const kNoise[] = {"amd", "intel", "arm", "processor", "cpu", "with", "radeon",
                                       "graphics", "core", "tm", "r", "apu", "genuine", "authentic"};
  for (const char* noise : kNoise)
    if (word == noise) return true;
  // "96-core" was split into "96" and "core"; a lone count or "2.90ghz"
  // (split at '.') says nothing of the model.
  if (absl::EndsWith(word, "ghz") || absl::EndsWith(word, "mhz")) return true;
  return false;
}

}  // namespace

std::string ModelKeyPart(absl::string_view model_name) {
  // Everything after '@' is the clock.
  absl::string_view name = model_name.substr(0, model_name.find('@'));
  std::string lower = absl::AsciiStrToLower(name);
  // Trademarks "(R)", "(TM)" become words of their own, then dropped.
  std::vector<std::string> words =
      absl::StrSplit(lower, absl::ByAnyChar(" \t()-_,/"), absl::SkipEmpty());
  std::string key;
  for (size_t i = 0; i < words.size(); ++i) {
    std::string word;
    for (char c : words[i])
      if (std::isalnum(static_cast<unsigned char>(c))) word += c;
    if (word.empty() || IsNoise(word)) continue;
    // "96-core": a count followed by "core" is no part of the model.
    const bool all_digits = word.find_first_not_of("0123456789") == std::string::npos;
    if (all_digits && i + 1 < words.size() && absl::StartsWith(words[i + 1], "core")) continue;
    key += word;
  }
  if (key.size() > kMaxModelChars) key.resize(kMaxModelChars);
  return key;
}

std::string CpuModelName(const codegen::Target& host, absl::string_view cpuinfo) {
  const std::string core = host.cpu == "generic" ? "" : host.cpu;
  if (host.is_aarch64()) return core;
  for (absl::string_view line : absl::StrSplit(cpuinfo, '\n')) {
    if (!absl::StartsWith(line, "model name")) continue;
    size_t colon = line.find(':');
    if (colon != absl::string_view::npos) return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
  }
  return core;
}

std::string HostCpuModelName(const codegen::Target& host) {
  std::ifstream in("/proc/cpuinfo");
  const std::string cpuinfo((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return CpuModelName(host, cpuinfo);
}

std::string DeviceKeyWithModel(const codegen::Target& target, absl::string_view model_name) {
  const std::string old_key = target.device_key();  // ARCH-ISA-Nc
  const std::string model = ModelKeyPart(model_name);
  const size_t cores_at = old_key.rfind('-');
  if (model.empty() || cores_at == std::string::npos) return old_key;
  return absl::StrCat(old_key.substr(0, cores_at), "-", model, old_key.substr(cores_at));
}

std::string HostDeviceKey() {
  const codegen::Target host = codegen::Target::Host();
  return DeviceKeyWithModel(host, HostCpuModelName(host));
}

std::optional<std::string> LegacyDeviceKey(absl::string_view key) {
  // ARCH-ISA-MODEL-Nc: the architecture holds no '-' ("x86_64"), nor does
  // a model part.
  std::vector<absl::string_view> parts = absl::StrSplit(key, '-');
  if (parts.size() != 4) return std::nullopt;
  absl::string_view cores = parts[3];
  if (cores.size() < 2 || cores.back() != 'c' ||
      cores.substr(0, cores.size() - 1).find_first_not_of("0123456789") != absl::string_view::npos)
    return std::nullopt;
  return absl::StrCat(parts[0], "-", parts[1], "-", cores);
}

}  // namespace tuneforge::worker
