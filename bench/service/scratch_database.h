// A database file path in a folder, removed (with its WAL and shared-memory
// files) when made and again when this goes: benchmarks start from nothing
// and leave nothing behind.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace tuneforge::bench {

class ScratchDatabase {
 public:
  ScratchDatabase(const std::string& dir, const std::string& name) : path_(dir + "/" + name) { Remove(); }
  ~ScratchDatabase() { Remove(); }
  ScratchDatabase(const ScratchDatabase&) = delete;
  ScratchDatabase& operator=(const ScratchDatabase&) = delete;

  const std::string& path() const { return path_; }
  int64_t Bytes() const {
    int64_t bytes = 0;
    for (const char* suffix : {"", "-wal"}) {
      std::error_code error;
      const auto size = std::filesystem::file_size(path_ + suffix, error);
      if (!error) bytes += static_cast<int64_t>(size);
    }
    return bytes;
  }

 private:
  void Remove() const {
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix, ignored);
  }
  std::string path_;
};

}  // namespace tuneforge::bench
