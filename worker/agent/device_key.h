// Device keys: which records, cost models and bests a machine shares with
// others. "x86_64-avx512-epyc9r14-2c": architecture, widest vector ISA, CPU
// model, cores. Two machines share a key only if they would time a kernel
// alike; the model is part of it because the same ISA and core count on
// different CPUs do not (clocks, caches, ports).
//
// Builds before the model was added stored records under
// "x86_64-avx512-2c"; LegacyDeviceKey() gives that key back so those
// records are still found for this machine.
#pragma once

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "common/codegen/target.h"

namespace tuneforge::worker {

// A CPU model name as it appears in a key: lower-case letters and digits,
// vendor words, trademarks, "Processor", "CPU", core counts and the clock
// left out; at most 24 characters. "AMD EPYC 9R14 96-Core Processor" ->
// "epyc9r14"; "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz" ->
// "xeonplatinum8375c". "" when nothing is left.
std::string ModelKeyPart(absl::string_view model_name);

// A CPU's model name from its /proc/cpuinfo text: the "model name" line on
// x86; on Arm the core the probe named from implementer and part (a "model
// name" there, as under qemu-user, is the emulating machine's); "" where
// neither is known.
std::string CpuModelName(const codegen::Target& host, absl::string_view cpuinfo);
// The same for this machine.
std::string HostCpuModelName(const codegen::Target& host);

// The key of `target` with the CPU model `model_name` (ModelKeyPart); the
// old form when the model yields nothing.
std::string DeviceKeyWithModel(const codegen::Target& target, absl::string_view model_name);

// This machine's key.
std::string HostDeviceKey();

// The key an older build gave the same device ("x86_64-avx512-2c" for
// "x86_64-avx512-epyc9r14-2c"); nullopt for a key without a model.
std::optional<std::string> LegacyDeviceKey(absl::string_view key);

}  // namespace tuneforge::worker
