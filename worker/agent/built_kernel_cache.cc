#include "worker/agent/built_kernel_cache.h"

#include "absl/strings/str_cat.h"

namespace tuneforge::worker {

std::string BuiltKernelCache::KeyOf(const std::string& workload_key, const std::vector<schedule::Step>& steps) {
  return absl::StrCat(workload_key, "/", schedule::HashSteps(steps));
}

std::shared_ptr<const measure::BuiltKernel> BuiltKernelCache::Find(const std::string& key) const {
  auto it = kernels_.find(key);
  return it == kernels_.end() ? nullptr : it->second;
}

size_t BuiltKernelCache::BytesOf(const measure::BuiltKernel& kernel) {
  return kernel.object.object.size() + kernel.object.symbol.size() + kernel.object.prepack_symbol.size();
}

void BuiltKernelCache::Add(const std::string& key, measure::BuiltKernel kernel) {
  const size_t bytes = BytesOf(kernel);
  if (!kernel.ok() || bytes > max_bytes_ || kernels_.contains(key)) return;
  while (bytes_ + bytes > max_bytes_ && !order_.empty()) {
    auto oldest = kernels_.find(order_.front());
    bytes_ -= BytesOf(*oldest->second);
    kernels_.erase(oldest);
    order_.pop_front();
  }
  kernels_[key] = std::make_shared<const measure::BuiltKernel>(std::move(kernel));
  order_.push_back(key);
  bytes_ += bytes;
}

}  // namespace tuneforge::worker
