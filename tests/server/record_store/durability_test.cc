// What survives and what is reported: kill -9 while writing, a locked
// database, a full disk.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/server/record_store/store_test_util.h"

namespace tuneforge::server {
namespace {

using ::testing::HasSubstr;
using testing::MakeRecord;
using testing::OpenOrFail;
using testing::RawDb;
using testing::TempDir;

constexpr int kChildWriters = 4;

std::string ChildTaskId(int32_t ack) { return absl::StrCat("c-", ack); }

// The child: writers adding records as fast as they can; after each
// AddRecords returns OK, the records' numbers go down the pipe (one write
// of at most PIPE_BUF bytes, so acknowledgements never interleave).
[[noreturn]] void WriteUntilKilled(const std::string& path, int ack_fd) {
  absl::StatusOr<std::unique_ptr<RecordStore>> store = RecordStore::Open(path);
  if (!store.ok()) _exit(2);
  std::vector<std::thread> writers;
  for (int w = 0; w < kChildWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int32_t i = 0;; ++i) {
        const int batch = 1 + i % 4;
        std::vector<Record> records;
        std::vector<int32_t> acks;
        for (int j = 0; j < batch; ++j) {
          const int32_t ack = (w * 100000 + i) * 4 + j;
          records.push_back(MakeRecord(ChildTaskId(ack), absl::StrCat("wk-", ack % 13), "dev-1", 0.001 + j));
          acks.push_back(ack);
        }
        if (!(*store)->AddRecords(records).ok()) _exit(3);
        const size_t bytes = acks.size() * sizeof(int32_t);
        if (write(ack_fd, acks.data(), bytes) != static_cast<ssize_t>(bytes)) _exit(4);
      }
    });
  }
  for (std::thread& writer : writers) writer.join();
  _exit(0);
}

// Reads acknowledgements until `enough` or the deadline; after the child
// is dead, until end of file.
void ReadAcks(int fd, std::set<int32_t>* acks, size_t enough, std::chrono::seconds within) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  int32_t buffer[256];
  while (acks->size() < enough && std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n <= 0) return;
    ASSERT_EQ(n % static_cast<ssize_t>(sizeof(int32_t)), 0);
    acks->insert(buffer, buffer + n / static_cast<ssize_t>(sizeof(int32_t)));
  }
}

TEST(DurabilityTest, KillNineLosesNoAcknowledgedRecord) {
  TempDir dir;
  const std::string path = dir.File("crash.db");
  ASSERT_NE(OpenOrFail(path), nullptr);  // schema exists before the child starts
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(fds[0]);
    WriteUntilKilled(path, fds[1]);
  }
  close(fds[1]);
  std::set<int32_t> acks;
  ReadAcks(fds[0], &acks, 1500, std::chrono::seconds(60));
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int wait_status = 0;
  ASSERT_EQ(waitpid(child, &wait_status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(wait_status)) << "the child ended on its own with " << WEXITSTATUS(wait_status);
  ReadAcks(fds[0], &acks, SIZE_MAX, std::chrono::seconds(5));  // what was in the pipe
  close(fds[0]);
  ASSERT_GE(acks.size(), 1500u);

  EXPECT_EQ(RawDb(path).Column("PRAGMA integrity_check"), std::vector<std::string>{"ok"});
  auto store = OpenOrFail(path);
  ASSERT_NE(store, nullptr);
  std::set<std::string> stored;
  RecordFilter all;
  all.limit = 0;
  auto records = store->Query(all);
  ASSERT_TRUE(records.ok()) << records.status();
  for (const Record& record : *records) stored.insert(record.task_id);
  EXPECT_EQ(stored.size(), records->size());  // no duplicates
  size_t lost = 0;
  for (int32_t ack : acks) lost += stored.count(ChildTaskId(ack)) == 0;
  EXPECT_EQ(lost, 0u) << "of " << acks.size() << " acknowledged records";
  // Committed but not yet acknowledged when it died: stored, not lost.
  EXPECT_GE(stored.size(), acks.size());
}

TEST(DurabilityTest, ALockedDatabaseIsReportedAndWritesWorkOnceFree) {
  TempDir dir;
  const std::string path = dir.File("locked.db");
  RecordStoreOptions options;
  options.busy_timeout_ms = 100;
  auto store = OpenOrFail(path, options);
  ASSERT_NE(store, nullptr);
  RawDb other(path);
  other.Exec("BEGIN IMMEDIATE");  // another process holds the write lock
  DeviceInfo device;
  device.device_key = "dev-1";
  absl::Status status = store->SaveDevice(device);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr(path));
  EXPECT_THAT(status.message(), HasSubstr("locked by another connection or process"));
  // Reads go on meanwhile (WAL).
  EXPECT_TRUE(store->CountRecords().ok());
  other.Exec("COMMIT");
  EXPECT_TRUE(store->SaveDevice(device).ok());
  EXPECT_EQ(store->LoadDevices()->size(), 1u);
}

TEST(DurabilityTest, AFullDiskIsReportedAndEarlierRecordsStay) {
  TempDir dir;
  const std::string path = dir.File("full.db");
  RecordStoreOptions options;
  options.max_database_bytes = 256 << 10;
  auto store = OpenOrFail(path, options);
  ASSERT_NE(store, nullptr);
  int stored = 0;
  absl::Status status;
  for (int i = 0; i < 1000 && status.ok(); ++i) {
    Record record = MakeRecord(absl::StrCat("t-", i), "wk-a", "dev-1", 0, "runtime_crash");
    record.error = std::string(4000, 'e');
    absl::StatusOr<AddOutcome> added = store->AddRecords({record});
    status = added.status();
    if (added.ok()) ++stored;
  }
  ASSERT_FALSE(status.ok()) << "the size limit was never reached";
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_THAT(status.message(), HasSubstr(path));
  EXPECT_THAT(status.message(), HasSubstr("the disk is full"));
  EXPECT_THAT(status.message(), HasSubstr("free disk space"));
  EXPECT_GT(stored, 10);
  EXPECT_EQ(*store->CountRecords(), stored);
  EXPECT_TRUE(store->Best("wk-a", "dev-1").ok());  // reads go on

  // The fix the message names: a larger limit, and the write goes through.
  store.reset();
  store = OpenOrFail(path);
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(store->AddRecords({MakeRecord("after", "wk-a", "dev-1", 0.5)}).ok());
  EXPECT_EQ(*store->CountRecords(), stored + 1);
}

}  // namespace
}  // namespace tuneforge::server
