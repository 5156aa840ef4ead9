#include "common/codegen/arm_cpuinfo.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace tuneforge::codegen {
namespace {

struct KnownCore {
  int implementer, part;
  const char* name;
};

// The cores boards and Arm servers ship with (Linux's arch/arm64 cputype.h
// numbers; names as LLVM spells them).
constexpr KnownCore kKnownCores[] = {
    {0x41, 0xd03, "cortex-a53"},   {0x41, 0xd04, "cortex-a35"},  {0x41, 0xd05, "cortex-a55"},
    {0x41, 0xd07, "cortex-a57"},   {0x41, 0xd08, "cortex-a72"},  {0x41, 0xd09, "cortex-a73"},
    {0x41, 0xd0a, "cortex-a75"},   {0x41, 0xd0b, "cortex-a76"},  {0x41, 0xd0c, "neoverse-n1"},
    {0x41, 0xd0d, "cortex-a77"},   {0x41, 0xd40, "neoverse-v1"}, {0x41, 0xd41, "cortex-a78"},
    {0x41, 0xd44, "cortex-x1"},    {0x41, 0xd46, "cortex-a510"}, {0x41, 0xd47, "cortex-a710"},
    {0x41, 0xd48, "cortex-x2"},    {0x41, 0xd49, "neoverse-n2"}, {0x41, 0xd4d, "cortex-a715"},
    {0x41, 0xd4e, "cortex-x3"},    {0x41, 0xd4f, "neoverse-v2"}, {0x41, 0xd80, "cortex-a520"},
    {0x41, 0xd81, "cortex-a720"},  {0x41, 0xd82, "cortex-x4"},   {0x46, 0x001, "a64fx"},
    {0x48, 0xd01, "tsv110"},       {0x51, 0xc00, "falkor"},      {0x51, 0x801, "kryo"},
    {0xc0, 0xac3, "ampere1"},      {0xc0, 0xac4, "ampere1a"},    {0x61, 0x022, "apple-m1"},
    {0x61, 0x023, "apple-m1"},     {0x61, 0x032, "apple-m2"},    {0x61, 0x033, "apple-m2"},
};

// "0x41" or "65" -> 65; -1 when unreadable.
int ParseNumber(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  int value = 0;
  if (absl::StartsWith(text, "0x") || absl::StartsWith(text, "0X")) {
    return absl::SimpleHexAtoi(text.substr(2), &value) ? value : -1;
  }
  return absl::SimpleAtoi(text, &value) ? value : -1;
}

}  // namespace

std::string ArmCpuInfo::CoreName() const {
  for (const KnownCore& c : kKnownCores)
    if (c.implementer == implementer && c.part == part) return c.name;
  return "";
}

std::string ArmCpuInfo::LlvmFeatures() const {
  std::vector<std::string> out = {"+neon"};
  const std::pair<const char*, const char*> kMap[] = {
      {"sve", "+sve"}, {"sve2", "+sve2"}, {"asimddp", "+dotprod"}, {"i8mm", "+i8mm"}, {"asimdhp", "+fullfp16"}};
  for (const auto& [kernel, llvm] : kMap)
    if (features.count(kernel)) out.push_back(llvm);
  return absl::StrJoin(out, ",");
}

ArmCpuInfo ParseArmCpuInfo(absl::string_view text) {
  ArmCpuInfo info;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    const size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;
    const absl::string_view key = absl::StripAsciiWhitespace(line.substr(0, colon));
    const absl::string_view value = absl::StripAsciiWhitespace(line.substr(colon + 1));
    if (key == "processor") {
      ++info.cores;
    } else if (key == "CPU implementer" && info.implementer < 0) {
      info.implementer = ParseNumber(value);
    } else if (key == "CPU part" && info.part < 0) {
      info.part = ParseNumber(value);
    } else if (key == "Features" && info.features.empty()) {
      for (absl::string_view f : absl::StrSplit(value, ' ', absl::SkipEmpty())) info.features.insert(std::string(f));
    }
  }
  return info;
}

}  // namespace tuneforge::codegen
