#include "measure/workload_buffers.h"

#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"

namespace tuneforge::measure {

std::vector<void*> WorkloadBuffers::ReferenceArgs() {
  std::vector<void*> args;
  for (te::NDArray& a : inputs) args.push_back(a.data());
  for (te::NDArray& a : reference_outputs) args.push_back(a.data());
  return args;
}

std::vector<void*> WorkloadBuffers::CandidateArgs() {
  std::vector<void*> args;
  for (te::NDArray& a : inputs) args.push_back(a.data());
  for (te::NDArray& a : outputs) args.push_back(a.data());
  return args;
}

void WorkloadBuffers::PoisonOutputs() {
  for (te::NDArray& a : outputs) {
    if (a.dtype().is_float()) {
      a.Fill(std::numeric_limits<double>::quiet_NaN());
    } else {
      std::memset(a.data(), 0x5a, static_cast<size_t>(a.nbytes()));
    }
  }
}

std::string WorkloadBuffers::ChangedInput() const {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].ContentHash() != input_hashes[i]) return specs[i].name;
  return "";
}

namespace {

absl::StatusOr<WorkloadBuffers> Allocate(const std::string& key, uint64_t seed,
                                         const std::vector<ArgSpec>& specs) {
  WorkloadBuffers w;
  w.key = key;
  w.seed = seed;
  w.specs = specs;
  for (size_t i = 0; i < specs.size(); ++i) {
    const ArgSpec& s = specs[i];
    absl::StatusOr<te::NDArray> a = te::NDArray::Empty(s.dtype, s.shape);
    if (!a.ok())
      return absl::Status(a.status().code(),
                          absl::StrCat("argument ", ToString(s), ": ", a.status().message()));
    if (s.is_output) {
      absl::StatusOr<te::NDArray> ref = te::NDArray::Empty(s.dtype, s.shape);
      if (!ref.ok())
        return absl::Status(ref.status().code(),
                            absl::StrCat("argument ", ToString(s), ": ", ref.status().message()));
      w.reference_outputs.push_back(*std::move(ref));
      w.outputs.push_back(*std::move(a));
    } else {
      // Each input gets its own stream: seed + position.
      a->FillRandom(seed + i);
      w.input_hashes.push_back(a->ContentHash());
      w.inputs.push_back(*std::move(a));
    }
  }
  return w;
}

}  // namespace

absl::StatusOr<WorkloadBuffers*> WorkloadCache::Get(const std::string& key, uint64_t seed,
                                                    const std::vector<ArgSpec>& specs) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->key != key) continue;
    if (it->seed == seed && it->specs == specs) {
      entries_.splice(entries_.begin(), entries_, it);
      return &entries_.front();
    }
    entries_.erase(it);  // same key, different arguments: rebuild
    break;
  }
  // Make room first: the new arguments may need the memory.
  while (entries_.size() >= capacity_) entries_.pop_back();
  absl::StatusOr<WorkloadBuffers> w = Allocate(key, seed, specs);
  if (!w.ok() && !entries_.empty()) {  // retry with every other workload freed
    entries_.clear();
    w = Allocate(key, seed, specs);
  }
  if (!w.ok()) return w.status();
  entries_.push_front(*std::move(w));
  return &entries_.front();
}

void WorkloadCache::Drop(const std::string& key) {
  entries_.remove_if([&](const WorkloadBuffers& w) { return w.key == key; });
}

}  // namespace tuneforge::measure
