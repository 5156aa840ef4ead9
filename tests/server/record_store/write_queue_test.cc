// Group commit: writes queued while the writer is busy share the next
// transaction, and one failing write does not fail the others.
#include "server/record_store/write_queue.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/record_store/schema.h"
#include "tests/server/record_store/store_test_util.h"

namespace tuneforge::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::RawDb;
using testing::TempDir;

std::unique_ptr<sqlite::Connection> SchemaConnection(const std::string& path) {
  auto connection = sqlite::Connection::Open(path, sqlite::Connection::Mode::kReadWrite, 1000);
  EXPECT_TRUE(connection.ok()) << connection.status();
  if (!connection.ok()) return nullptr;
  absl::Status schema = PrepareSchema(**connection);
  EXPECT_TRUE(schema.ok()) << schema;
  return *std::move(connection);
}

WriteQueue::Work InsertDevice(const std::string& key) {
  return [key](sqlite::Connection& db) {
    return db.Exec(absl::StrCat("INSERT INTO devices VALUES ('", key, "', x'', 0)"));
  };
}

// A write that holds the writer (saying so in *running) until `count`
// writes are queued behind it.
WriteQueue::Work WaitForQueued(WriteQueue* queue, size_t count, const std::string& key,
                               std::atomic<bool>* running) {
  return [queue, count, key, running](sqlite::Connection& db) {
    *running = true;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (queue->queued() < count && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return InsertDevice(key)(db);
  };
}

std::vector<std::string> Devices(const std::string& path) {
  RawDb raw(path);
  return raw.Column("SELECT device_key FROM devices ORDER BY device_key");
}

TEST(WriteQueueTest, QueuedWritesShareOneTransactionAndAFailureStaysAlone) {
  TempDir dir;
  const std::string path = dir.File("queue.db");
  WriteQueue queue(SchemaConnection(path));
  absl::Status first, good1, bad, good2;
  std::atomic<bool> running{false};
  std::thread holder([&] { first = queue.Run(WaitForQueued(&queue, 3, "d0", &running)); });
  while (!running) std::this_thread::yield();
  std::thread t1([&] { good1 = queue.Run(InsertDevice("d1")); });
  std::thread t2([&] {
    bad = queue.Run([](sqlite::Connection& db) -> absl::Status {
      if (absl::Status s = InsertDevice("d2")(db); !s.ok()) return s;
      return absl::InvalidArgumentError("this write changed its mind");
    });
  });
  std::thread t3([&] { good2 = queue.Run(InsertDevice("d3")); });
  for (std::thread* t : {&holder, &t1, &t2, &t3}) t->join();

  EXPECT_TRUE(first.ok()) << first;
  EXPECT_TRUE(good1.ok()) << good1;
  EXPECT_TRUE(good2.ok()) << good2;
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr("changed its mind"));
  // d0 alone, then d1, d2 (rolled back to its savepoint) and d3 together.
  EXPECT_EQ(queue.stats().transactions, 2);
  EXPECT_EQ(queue.stats().writes, 3);
  EXPECT_THAT(Devices(path), ElementsAre("d0", "d1", "d3"));
}

TEST(WriteQueueTest, AWriteThatLosesTheTransactionFailsAloneAndTheOthersAreRetried) {
  TempDir dir;
  const std::string path = dir.File("queue.db");
  WriteQueue queue(SchemaConnection(path));
  absl::Status first, good1, loser, good2;
  std::atomic<bool> running{false};
  std::thread holder([&] { first = queue.Run(WaitForQueued(&queue, 3, "e0", &running)); });
  while (!running) std::this_thread::yield();
  std::thread t1([&] { good1 = queue.Run(InsertDevice("e1")); });
  std::thread t2([&] {
    // As SQLite does itself after some errors (disk full, I/O error).
    loser = queue.Run([](sqlite::Connection& db) -> absl::Status {
      if (absl::Status s = InsertDevice("e2")(db); !s.ok()) return s;
      db.Exec("ROLLBACK").IgnoreError();
      return absl::ResourceExhaustedError("the transaction is gone");
    });
  });
  std::thread t3([&] { good2 = queue.Run(InsertDevice("e3")); });
  for (std::thread* t : {&holder, &t1, &t2, &t3}) t->join();

  EXPECT_TRUE(first.ok()) << first;
  EXPECT_TRUE(good1.ok()) << good1;
  EXPECT_TRUE(good2.ok()) << good2;
  EXPECT_EQ(loser.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(Devices(path), ElementsAre("e0", "e1", "e3"));
}

TEST(WriteQueueTest, SqlErrorsComeBackToTheirCaller) {
  TempDir dir;
  const std::string path = dir.File("queue.db");
  WriteQueue queue(SchemaConnection(path));
  ASSERT_TRUE(queue.Run(InsertDevice("same")).ok());
  absl::Status again = queue.Run(InsertDevice("same"));
  EXPECT_EQ(again.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(again.message(), HasSubstr(path));
  EXPECT_THAT(again.message(), HasSubstr("UNIQUE constraint failed: devices.device_key"));
  EXPECT_TRUE(queue.Run(InsertDevice("other")).ok());
  EXPECT_THAT(Devices(path), ElementsAre("other", "same"));
}

}  // namespace
}  // namespace tuneforge::server
