#include "measure/protocol.h"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tuneforge::measure {
namespace {

using ::testing::HasSubstr;

Message RoundTrip(const Message& m) {
  std::string frame = EncodeFrame(m);
  uint32_t length;
  std::memcpy(&length, frame.data(), 4);
  EXPECT_EQ(length, frame.size() - 4);
  absl::StatusOr<Message> back =
      DecodePayload(static_cast<uint8_t>(frame[4]), std::string_view(frame).substr(5));
  EXPECT_TRUE(back.ok()) << back.status();
  return back.ok() ? *back : Message{};
}

RunRequest SampleRequest() {
  RunRequest r;
  r.workload_key = "0123456789abcdef";
  r.seed = 99;
  r.args = {ArgSpec{"A", te::DType::Float32(), {4, 8}, false},
            ArgSpec{"C", te::DType::Int8(), {2}, true}};
  r.reference = KernelBlob{"ref", "x86_64-pc-linux-gnu", std::string("\0\1\2elf", 6)};
  r.candidate = KernelBlob{"kernel", "x86_64-pc-linux-gnu", std::string(100000, 'x')};
  r.number = 5;
  r.repeat = 7;
  r.min_repeat_ms = 0;
  r.flush_cache = true;
  r.threads = 3;
  return r;
}

TEST(ProtocolTest, RequestRoundTrips) {
  RunRequest in = SampleRequest();
  Message out = RoundTrip(in);
  const auto* r = std::get_if<RunRequest>(&out);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->workload_key, in.workload_key);
  EXPECT_EQ(r->seed, 99u);
  EXPECT_EQ(r->args, in.args);
  EXPECT_EQ(r->reference.object, in.reference.object);
  EXPECT_EQ(r->candidate.object.size(), 100000u);
  EXPECT_EQ(r->candidate.symbol, "kernel");
  EXPECT_EQ(r->number, 5);
  EXPECT_EQ(r->repeat, 7);
  EXPECT_EQ(r->min_repeat_ms, 0);
  EXPECT_TRUE(r->flush_cache);
  EXPECT_EQ(r->threads, 3);
}

TEST(ProtocolTest, BuildRequestAndReplyRoundTrip) {
  BuildRequest in;
  in.definition = "input A: float32[4]\nB[i: 4] = A[i] * 2.0\n";
  in.name = "twice";
  in.workload_key = "0123456789abcdef";
  in.schedule_json = R"({"version":1,"steps":[]})";
  in.target = "x86_64-pc-linux-gnu:cpu=znver3:cores=2";
  in.l1_bytes = 32768;
  in.l2_bytes = 1 << 20;
  in.l3_bytes = 32 << 20;
  Message out = RoundTrip(in);
  const auto* r = std::get_if<BuildRequest>(&out);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->spec, "");
  EXPECT_EQ(r->definition, in.definition);
  EXPECT_EQ(r->name, "twice");
  EXPECT_EQ(r->workload_key, in.workload_key);
  EXPECT_EQ(r->schedule_json, in.schedule_json);
  EXPECT_EQ(r->target, in.target);
  EXPECT_EQ(r->l1_bytes, 32768);
  EXPECT_EQ(r->l2_bytes, 1 << 20);
  EXPECT_EQ(r->l3_bytes, 32 << 20);

  BuildReply reply;
  reply.error_kind = MeasureErrorKind::kCompileError;
  reply.error = "LLVM said no";
  reply.object = KernelBlob{"kernel", "x86_64-pc-linux-gnu", std::string("\0elf", 4)};
  reply.args = {ArgSpec{"A", te::DType::Float32(), {4}, false}};
  Message back = RoundTrip(reply);
  const auto* b = std::get_if<BuildReply>(&back);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->error_kind, MeasureErrorKind::kCompileError);
  EXPECT_EQ(b->error, "LLVM said no");
  EXPECT_EQ(b->object.object, reply.object.object);
  EXPECT_EQ(b->args, reply.args);
}

TEST(ProtocolTest, ReplyHelloAndPhaseRoundTrip) {
  RunReply in;
  in.error_kind = MeasureErrorKind::kWrongAnswer;
  in.error = "output 'C': 1 of 4 elements differ";
  in.max_abs_error = 0.5;
  in.number = 11;
  in.repeat_seconds = {1e-3, 2e-3};
  in.median_seconds = 1.5e-3;
  in.timed_ms = 33;
  Message out = RoundTrip(in);
  const auto* r = std::get_if<RunReply>(&out);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->error_kind, MeasureErrorKind::kWrongAnswer);
  EXPECT_EQ(r->error, in.error);
  EXPECT_FALSE(r->correct);
  EXPECT_EQ(r->max_abs_error, 0.5);
  EXPECT_EQ(r->number, 11);
  EXPECT_EQ(r->repeat_seconds, in.repeat_seconds);
  EXPECT_EQ(r->median_seconds, 1.5e-3);
  EXPECT_EQ(r->timed_ms, 33);

  Message hello = RoundTrip(HelloMessage{kProtocolVersion, 1234});
  ASSERT_TRUE(std::holds_alternative<HelloMessage>(hello));
  EXPECT_EQ(std::get<HelloMessage>(hello).pid, 1234);
  Message phase = RoundTrip(PhaseMessage{RunPhase::kReference});
  ASSERT_TRUE(std::holds_alternative<PhaseMessage>(phase));
  EXPECT_EQ(std::get<PhaseMessage>(phase).phase, RunPhase::kReference);
}

TEST(ProtocolTest, MalformedPayloadsAreRejected) {
  std::string frame = EncodeFrame(SampleRequest());
  std::string_view payload = std::string_view(frame).substr(5);
  // Truncated.
  auto r = DecodePayload(static_cast<uint8_t>(MessageType::kRunRequest), payload.substr(0, 40));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsDataLoss(r.status()));
  EXPECT_THAT(r.status().message(), HasSubstr("malformed runner message"));
  // Trailing bytes.
  std::string longer(payload);
  longer += "x";
  EXPECT_FALSE(DecodePayload(static_cast<uint8_t>(MessageType::kRunRequest), longer).ok());
  // Unknown type; unknown error kind.
  EXPECT_FALSE(DecodePayload(77, payload).ok());
  std::string reply = EncodeFrame(RunReply{});
  reply[5] = 42;  // error kind byte
  EXPECT_FALSE(
      DecodePayload(static_cast<uint8_t>(MessageType::kRunReply), std::string_view(reply).substr(5))
          .ok());
}

TEST(ProtocolTest, PipeTransportDeadlinesAndClosedPeers) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  // A large message goes through a pipe smaller than it (a writer thread).
  RunRequest big = SampleRequest();
  big.candidate.object = std::string(4 << 20, 'o');
  std::thread writer([&] { EXPECT_TRUE(WriteMessage(fds[1], big).ok()); });
  absl::StatusOr<Message> got = ReadMessage(fds[0], std::nullopt);
  writer.join();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(std::get<RunRequest>(*got).candidate.object.size(), size_t{4} << 20);
  // Nothing to read: the deadline passes.
  auto start = std::chrono::steady_clock::now();
  got = ReadMessage(fds[0], start + std::chrono::milliseconds(50));
  EXPECT_TRUE(absl::IsDeadlineExceeded(got.status())) << got.status();
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(50));
  // Writer closed: Unavailable.
  close(fds[1]);
  got = ReadMessage(fds[0], std::nullopt);
  EXPECT_TRUE(absl::IsUnavailable(got.status())) << got.status();
  close(fds[0]);
  // Reader closed: an error, not SIGPIPE.
  ASSERT_EQ(pipe(fds), 0);
  close(fds[0]);
  absl::Status s = WriteMessage(fds[1], PhaseMessage{});
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  close(fds[1]);
}

TEST(ErrorKindTest, NamesAreStableAndRoundTrip) {
  const char* expected[] = {"none",          "invalid_schedule", "lower_error",
                            "compile_error", "runtime_crash",    "timeout",
                            "out_of_memory", "wrong_answer",     "runner_error",
                            "worker_lost"};
  for (int i = 0; i < kNumMeasureErrorKinds; ++i) {
    auto kind = static_cast<MeasureErrorKind>(i);
    EXPECT_STREQ(ErrorKindName(kind), expected[i]);
    EXPECT_EQ(ParseErrorKind(expected[i]), kind);
  }
  EXPECT_EQ(ParseErrorKind("segfault"), std::nullopt);
}

}  // namespace
}  // namespace tuneforge::measure
