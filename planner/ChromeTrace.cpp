//===- ChromeTrace.cpp - a simulated step as a Chrome trace ---------------===//
//
// The Trace Event Format's JSON object form: "M" events name each process
// (one per rank, named by its device) and its two threads, and each span is
// a complete ("X") event with times in microseconds. Computation goes on
// thread 0; messages, collectives and the waits for them on thread 1; sent
// messages crossing their links, which overlap the rest, on thread 2.
//
//===----------------------------------------------------------------------===//

#include "planner/Simulator.h"

#include "llvm/Support/JSON.h"

namespace hetc::planner {

namespace {

constexpr int64_t kComputeThread = 0;
constexpr int64_t kCommunicationThread = 1;
constexpr int64_t kTransferThread = 2;

int64_t threadOf(llvm::StringRef category) {
  if (category == "compute")
    return kComputeThread;
  return category == "transfer" ? kTransferThread : kCommunicationThread;
}

llvm::json::Object metadata(llvm::StringRef name, int64_t rank,
                            std::optional<int64_t> thread,
                            llvm::json::Object args) {
  llvm::json::Object event{
      {"name", name}, {"ph", "M"}, {"pid", rank}, {"args", std::move(args)}};
  if (thread)
    event["tid"] = *thread;
  return event;
}

} // namespace

std::string chromeTrace(const Plan &plan, const SimulationResult &result) {
  llvm::json::Array events;
  for (int64_t rank = 0; rank < plan.numRanks(); ++rank) {
    auto [stage, replica] = plan.stageAndReplicaOf(rank);
    const std::string &device = plan.stages[stage].replicas[replica].device;
    events.push_back(metadata("process_name", rank, {},
                              llvm::json::Object{{"name", device}}));
    events.push_back(metadata("process_sort_index", rank, {},
                              llvm::json::Object{{"sort_index", rank}}));
    events.push_back(metadata("thread_name", rank, kComputeThread,
                              llvm::json::Object{{"name", "compute"}}));
    events.push_back(metadata("thread_name", rank, kCommunicationThread,
                              llvm::json::Object{{"name", "communication"}}));
    events.push_back(metadata("thread_name", rank, kTransferThread,
                              llvm::json::Object{{"name", "in flight"}}));
  }
  for (const TraceSpan &span : result.spans)
    events.push_back(llvm::json::Object{{"name", span.name},
                                        {"cat", span.category},
                                        {"ph", "X"},
                                        {"pid", span.rank},
                                        {"tid", threadOf(span.category)},
                                        {"ts", span.start * 1e6},
                                        {"dur", span.seconds * 1e6}});
  llvm::json::Object trace{{"traceEvents", std::move(events)},
                           {"displayTimeUnit", "ms"}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(trace));
  return text;
}

} // namespace hetc::planner
