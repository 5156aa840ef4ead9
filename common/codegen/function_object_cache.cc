#include "common/codegen/function_object_cache.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace tuneforge::codegen {
namespace {

std::string PathIn(const std::string& dir, const std::string& digest) {
  return absl::StrCat(dir, "/", absl::BytesToHexString(digest), ".o");
}

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream bytes;
  bytes << in.rdbuf();
  if (bytes.str().empty()) return std::nullopt;  // no object is empty
  return bytes.str();
}

// Written whole under a name of its own, then renamed: a reader sees the
// complete object or none.
bool WriteFileAtomically(const std::string& path, const std::string& bytes) {
  const std::string temporary = absl::StrCat(path, ".", getpid(), ".tmp");
  {
    std::ofstream out(temporary, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();  // a full disk shows here
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      return false;
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) std::filesystem::remove(temporary, error);
  return !error;
}

}  // namespace

void FunctionObjectCache::ShareThrough(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mu_);
  if (dir == dir_) return;
  dir_ = dir;
  written_.clear();
  written_bytes_ = 0;
}

std::optional<std::string> FunctionObjectCache::Find(const std::string& digest) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = objects_.find(digest); it != objects_.end()) {
    ++hits_;
    return it->second;
  }
  if (!dir_.empty())
    if (std::optional<std::string> shared = ReadFile(PathIn(dir_, digest))) {
      ++hits_;
      KeepLocked(digest, *shared);
      return shared;
    }
  ++misses_;
  return std::nullopt;
}

void FunctionObjectCache::Add(const std::string& digest, std::string object) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!dir_.empty() && object.size() <= max_bytes_) {
    const std::string path = PathIn(dir_, digest);
    if (WriteFileAtomically(path, object)) {
      written_.emplace_back(path, object.size());
      written_bytes_ += object.size();
      std::error_code ignored;
      while (written_bytes_ > max_bytes_) {
        std::filesystem::remove(written_.front().first, ignored);
        written_bytes_ -= written_.front().second;
        written_.pop_front();
      }
    }
  }
  KeepLocked(digest, std::move(object));
}

void FunctionObjectCache::KeepLocked(const std::string& digest, std::string object) {
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
