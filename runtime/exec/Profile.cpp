//===- Profile.cpp --------------------------------------------------------===//

#include "runtime/exec/Profile.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace hetc::runtime::exec {
namespace {

constexpr int kComputeThread = 0;
constexpr int kCommunicationThread = 1;

/// `text` as a JSON string literal.
std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

const hetc::pkg::Instruction &
instructionOf(const std::vector<hetc::pkg::Program> &programs,
              const std::vector<hetc::pkg::Program> &evalPrograms,
              const LaunchRecord &record) {
  const auto &of = record.evaluation ? evalPrograms : programs;
  return of[record.rank].instructions(record.instruction);
}

} // namespace

std::string chromeTrace(const hetc::pkg::Manifest &manifest,
                        const std::vector<hetc::pkg::Program> &programs,
                        const std::vector<hetc::pkg::Program> &evalPrograms,
                        const std::vector<LaunchRecord> &records) {
  std::ostringstream os;
  os << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [";
  const char *separator = "\n";
  auto metadata = [&](const char *name, int rank, int thread,
                      const std::string &args) {
    os << separator << "{\"name\": \"" << name << "\", \"ph\": \"M\", "
       << "\"pid\": " << rank;
    if (thread >= 0)
      os << ", \"tid\": " << thread;
    os << ", \"args\": {" << args << "}}";
    separator = ",\n";
  };
  for (const hetc::pkg::RankInfo &rank : manifest.ranks()) {
    std::string device = rank.device().empty()
                             ? "rank " + std::to_string(rank.rank())
                             : rank.device();
    metadata("process_name", rank.rank(), -1, "\"name\": " + quoted(device));
    metadata("process_sort_index", rank.rank(), -1,
             "\"sort_index\": " + std::to_string(rank.rank()));
    metadata("thread_name", rank.rank(), kComputeThread,
             "\"name\": \"compute\"");
    metadata("thread_name", rank.rank(), kCommunicationThread,
             "\"name\": \"communication\"");
  }
  for (const LaunchRecord &record : records) {
    const hetc::pkg::Instruction &inst =
        instructionOf(programs, evalPrograms, record);
    bool communication = record.communication;
    os << separator << "{\"name\": " << quoted(inst.kernel())
       << ", \"cat\": \""
       << (communication ? "communication" : "compute") << "\", \"ph\": \"X\", "
       << "\"pid\": " << record.rank << ", \"tid\": "
       << (communication ? kCommunicationThread : kComputeThread)
       << ", \"ts\": " << record.start * 1e6
       << ", \"dur\": " << record.seconds * 1e6 << ", \"args\": {"
       << "\"step\": " << record.step << ", \"instruction\": "
       << record.instruction << ", \"program\": \""
       << (record.evaluation ? "evaluation" : "step")
       << "\", \"location\": " << quoted(inst.location());
    if (communication)
      os << ", \"bytes\": " << record.bytes;
    if (inst.flops() > 0)
      os << ", \"flops\": " << inst.flops();
    if (!inst.phase().empty())
      os << ", \"segment\": " << inst.segment() << ", \"phase\": \""
         << inst.phase() << "\"";
    os << "}}";
  }
  os << "\n]}\n";
  return os.str();
}

std::string profileSummary(const std::vector<hetc::pkg::Program> &programs,
                           const std::vector<hetc::pkg::Program> &evalPrograms,
                           const std::vector<LaunchRecord> &records,
                           int64_t steps) {
  struct Row {
    int64_t launches = 0, bytes = 0;
    double seconds = 0.0, flops = 0.0;
  };
  std::map<std::string, Row> rows;
  double total = 0.0;
  for (const LaunchRecord &record : records) {
    const hetc::pkg::Instruction &inst =
        instructionOf(programs, evalPrograms, record);
    std::string kernel = inst.kernel();
    if (record.evaluation)
      kernel += " (evaluation)";
    Row &row = rows[kernel];
    ++row.launches;
    row.seconds += record.seconds;
    row.bytes += record.bytes;
    row.flops += static_cast<double>(inst.flops());
    total += record.seconds;
  }
  std::vector<std::pair<std::string, Row>> sorted(rows.begin(), rows.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) {
    return a.second.seconds > b.second.seconds;
  });
  std::ostringstream os;
  char line[256];
  std::snprintf(line, sizeof(line), "%-28s %9s %12s %12s %7s %10s %10s\n",
                "kernel", "launches", "total ms", "ms/step", "share",
                "GFLOP/s", "GB/s");
  os << line;
  // "" where the launches count none, or took no time.
  auto rate = [](double amount, double seconds) {
    char text[32] = "";
    if (amount > 0 && seconds > 0)
      std::snprintf(text, sizeof(text), "%.3f", amount / seconds / 1e9);
    return std::string(text);
  };
  for (const auto &[kernel, row] : sorted) {
    std::snprintf(line, sizeof(line),
                  "%-28s %9lld %12.3f %12.4f %6.1f%% %10s %10s\n",
                  kernel.c_str(), static_cast<long long>(row.launches),
                  row.seconds * 1e3,
                  steps > 0 ? row.seconds * 1e3 / static_cast<double>(steps)
                            : 0.0,
                  total > 0 ? 100.0 * row.seconds / total : 0.0,
                  rate(row.flops, row.seconds).c_str(),
                  rate(static_cast<double>(row.bytes), row.seconds).c_str());
    os << line;
  }
  std::snprintf(line, sizeof(line), "%-28s %9zu %12.3f %12.4f %6.1f%%\n",
                "all launches", records.size(), total * 1e3,
                steps > 0 ? total * 1e3 / static_cast<double>(steps) : 0.0,
                100.0);
  os << line;
  return os.str();
}

} // namespace hetc::runtime::exec
