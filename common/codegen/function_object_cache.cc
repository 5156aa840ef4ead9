#include "common/codegen/function_object_cache.h"

#include <utility>

namespace tuneforge::codegen {

std::optional<std::string> FunctionObjectCache::Find(const std::string& digest) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = objects_.find(digest);
  if (it == objects_.end()) {
    ++misses_;
    return std::nullopt;
  }
  ++hits_;
  return it->second;
}

void FunctionObjectCache::Add(const std::string& digest, std::string object) {
  std::lock_guard<std::mutex> lock(mu_);
  const size_t size = object.size() + digest.size();
  if (size > max_bytes_ || objects_.contains(digest)) return;
  while (bytes_ + size > max_bytes_ && !order_.empty()) {
    auto oldest = objects_.find(order_.front());
    bytes_ -= oldest->second.size() + oldest->first.size();
    objects_.erase(oldest);
    order_.pop_front();
  }
  objects_.emplace(digest, std::move(object));
  order_.push_back(digest);
  bytes_ += size;
}

int64_t FunctionObjectCache::hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}

int64_t FunctionObjectCache::misses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return misses_;
}

size_t FunctionObjectCache::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

size_t FunctionObjectCache::entries() const {
  std::lock_guard<std::mutex> lock(mu_);
  return objects_.size();
}

}  // namespace tuneforge::codegen
