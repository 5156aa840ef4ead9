// The CLI at its edges: mutated workload specs, definition files, schedule
// files and import lines (byte flips, truncations, huge numbers, bytes that
// are not UTF-8), with and without --json, run through the real tuneforge
// binary. Whatever the input, tuneforge exits (0 or 1) by itself, never by
// a signal or an uncaught exception, and with --json prints exactly one
// JSON object. Seeded, so a failure repeats; bounded in time.
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <random>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tests/client/cli_child.h"

namespace tuneforge::client_test {
namespace {

constexpr uint32_t kSeed = 20240613;
constexpr int kCases = 160;
constexpr auto kBudget = std::chrono::seconds(40);

const std::vector<std::string> kSpecs = {
    "matmul:M=64,N=64,K=64", "conv2d:N=1,C=3,H=6,W=6,K=4,R=3,S=3,pad=1", "softmax:M=3,N=7",
    "conv2d+bias+relu:N=1,C=2,H=5,W=5,K=3,R=3,S=3,pad=1", "relu:N=1,C=2,H=3,W=4,dtype=float64",
    "batch_matmul:B=2,M=3,N=4,K=5"};

const std::vector<std::string> kSpice = {"1e400",  "-1",  "0",   "99999999999999999999999", "9223372036854775808",
                                         "\xff",   "\xc3\x28", "\xed\xa0\x80", "{",     "\"",
                                         ",,",     "=",   ":",   "NaN",   "[]",  "\\u0000"};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Mutator {
 public:
  explicit Mutator(uint32_t seed) : rng_(seed) {}
  size_t Below(size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  bool Coin() { return Below(2) == 0; }

  // One to three edits of `text`.
  std::string Mutate(std::string text) {
    const size_t edits = 1 + Below(3);
    for (size_t e = 0; e < edits; ++e) {
      const size_t at = Below(text.size() + 1);
      switch (Below(5)) {
        case 0:  // a byte flipped to anything, often above 0x7f
          if (!text.empty()) text[Below(text.size())] = static_cast<char>(Below(256));
          break;
        case 1:  // truncated
          text.resize(at);
          break;
        case 2:  // something nasty inserted
          text.insert(at, kSpice[Below(kSpice.size())]);
          break;
        case 3: {  // a number replaced by a huge one
          const size_t digit = text.find_first_of("0123456789", at);
          if (digit != std::string::npos) {
            const size_t end = text.find_first_not_of("0123456789.e", digit);
            text.replace(digit, (end == std::string::npos ? text.size() : end) - digit,
                         Coin() ? "1e400" : "123456789012345678901234567890");
          }
          break;
        }
        default:  // a piece duplicated
          if (!text.empty()) {
            const size_t from = Below(text.size());
            text.insert(at, text.substr(from, 1 + Below(16)));
          }
      }
    }
    return text;
  }
  // For argv: no NUL bytes.
  std::string MutateArg(const std::string& text) {
    std::string out = Mutate(text);
    for (char& c : out)
      if (c == '\0') c = '\x01';
    return out;
  }

 private:
  std::mt19937 rng_;
};

struct FuzzCase {
  std::vector<std::string> args;
  bool json = false;
};

void ExpectSane(const FuzzCase& c, const CliResult& r) {
  std::string shown;
  for (const std::string& a : c.args) shown += " '" + a + "'";
  SCOPED_TRACE("tuneforge" + shown);
  ASSERT_NE(r.exit_code, -1) << "killed by a signal or ran on: " << r.err.substr(0, 2000);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << "exit " << r.exit_code << ": " << r.err.substr(0, 2000);
  EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.err.substr(0, 2000);
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err.substr(0, 2000);
  if (c.json) {
    EXPECT_TRUE(r.json.is_object()) << "stdout is not one JSON object: " << r.out.substr(0, 2000);
    EXPECT_LE(Lines(r.out).size(), 1u) << r.out.substr(0, 2000);
    if (r.exit_code == 1 && r.json.is_object()) {
      EXPECT_TRUE(r.json.contains("error")) << r.out.substr(0, 2000);
    }
  } else if (r.exit_code == 1) {
    EXPECT_EQ(Lines(r.err).size(), 1u) << "the error is not one line: " << r.err.substr(0, 2000);
  }
}

TEST(CliFuzzTest, MutatedInputsNeverCrashTheCli) {
  const std::string dir = MakeTempDir();
  const std::string data = TF_TEST_DATA_DIR;
  std::vector<std::string> defs, schedules;
  for (const char* name : {"matmul.def", "softmax.def", "swiglu.def"}) defs.push_back(ReadFile(data + "/defs/" + name));
  schedules.push_back(ReadFile(data + "/schedules/matmul_1024.json"));
  schedules.push_back(R"({"workload": "matmul:M=64,N=64,K=64", "steps": [{"kind": "split", "stage": 2, "iter": 0, )"
                      R"("lengths": [8], "inner_to_outer": true}]})");
  // An honest record line (the workload's key and FLOPs from `show`).
  CliResult shown = RunCliIn(dir, {"show", kSpecs[0], "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const double flops = shown.json["flops"].get<double>();
  nlohmann::json record = {{"schema_version", 1},
                           {"workload_key", shown.json["workload_key"]},
                           {"workload", kSpecs[0]},
                           {"device_key", "x86_64-avx2-2c"},
                           {"task_id", "t-1"},
                           {"schedule_json", schedules[1]},
                           {"error_kind", "none"},
                           {"median_seconds", 1e-3},
                           {"repeat_seconds", {1e-3, 1.1e-3}},
                           {"gflops", flops / 1e-3 / 1e9},
                           {"compile_ms", 12.5},
                           {"created_unix_ms", 1700000000000}};
  const std::string line = record.dump();

  Mutator m(kSeed);
  const auto start = std::chrono::steady_clock::now();
  int ran = 0;
  for (int i = 0; i < kCases && std::chrono::steady_clock::now() - start < kBudget; ++i) {
    FuzzCase c;
    const std::string file = absl::StrCat(dir, "/input-", i);
    switch (i % 6) {
      case 0:
        c.args = {"show", m.MutateArg(kSpecs[m.Below(kSpecs.size())])};
        break;
      case 1:
        std::ofstream(file) << m.Mutate(defs[m.Below(defs.size())]);
        c.args = {"show", "--def", file};
        break;
      case 2:
        std::ofstream(file) << m.Mutate(schedules[m.Below(schedules.size())]);
        c.args = {"show", m.Coin() ? "matmul:M=64,N=64,K=64" : "matmul:M=1024,N=1024,K=1024", "--schedule", file};
        break;
      case 3:
        std::ofstream(file) << line << "\n" << m.Mutate(line) << "\n";
        c.args = {"import", file, "--db", absl::StrCat(dir, "/fuzz-", i, ".db")};
        break;
      case 4:
        c.args = {"best", m.MutateArg(kSpecs[m.Below(kSpecs.size())]), "--db", dir + "/none.db",
                  "--device-key", m.MutateArg("x86_64-avx2-2c")};
        break;
      default:
        // A mutated file name too: messages that quote it must stay valid.
        c.args = {"import", m.MutateArg(file + ".jsonl")};
    }
    c.json = m.Coin();
    if (c.json) c.args.push_back("--json");
    ExpectSane(c, RunCliIn(dir, c.args, absl::Seconds(60)));
    ++ran;
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GE(ran, 30) << "too few cases ran in the time budget to mean anything";
}

}  // namespace
}  // namespace tuneforge::client_test
