//===- Simulator.cpp - one step of a plan, replayed under the cost model --===//
//
// Each rank runs a list of tasks in order: its schedule's computations and
// messages, bracketed under full sharding by the gathers and reduce-scatters
// the compiler puts around every call, then the update phase. The replay is
// a discrete-event loop: a rank advances until it needs a message not yet
// sent or a collective not all of whose members have arrived, and the loop
// goes round the ranks until every list is done. The schedule's global
// order is topological, so this always finishes for a schedule that
// checkScheduleMatches accepts. A send is what the runtime's communicators
// do: the sender copies the message into the communicator's buffer and
// goes on computing while the buffer crosses the link; the messages of a
// pair of ranks go in order. Transfers that share a channel of the
// cluster's links (LinkChannels.h) take turns: each is booked at the
// earliest time its channels are all free, and a collective's members wait
// for that.
//
// Not replayed: the all-reduce of the clipping norm, which neither the
// profile nor the plan records.
//
//===----------------------------------------------------------------------===//

#include "planner/Simulator.h"

#include "planner/LinkChannels.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>

namespace hetc::planner {

namespace {

/// One thing a rank does. Its name is built only for a span or an error:
/// the search simulates many candidates and records neither.
struct Task {
  enum class Kind { Compute, Send, Recv, Collective };
  Kind kind = Kind::Compute;
  llvm::StringRef label; // "F", "B", "send", "all_gather", "adamw", ...
  ScheduledOp op;        // the schedule op of a computation or message
  double seconds = 0;    // Compute, Collective; Send: crossing the link
  double stagingSeconds = 0;  // Send: copying into the communicator's buffer
  const Link *link = nullptr; // Send, Collective: the link it is timed by
  llvm::SmallVector<int, 4> channels; // Send, Collective: what it occupies
  int64_t peer = -1;  // Send, Recv
  /// Collective: its group (a stage's replicas: the stage's index; a tied
  /// parameter's ranks: -1 - its index), the how-manieth of the group's
  /// collectives, the group's size and this rank's place in it.
  int64_t group = -1;
  int64_t sequence = 0;
  int64_t groupSize = 0;
  int64_t member = 0;
};

std::string nameOf(const Task &task) {
  const ScheduledOp &op = task.op;
  switch (task.kind) {
  case Task::Kind::Send:
  case Task::Kind::Recv:
    return llvm::formatv("{0}{1} {2}:{3} {4} {5}", task.label,
                         op.gradient ? " grad" : "", op.firstSample,
                         op.firstSample + op.numSamples,
                         task.kind == Task::Kind::Send ? "to" : "from",
                         op.peer)
        .str();
  case Task::Kind::Compute:
    if (task.label == "F" || task.label == "B")
      return (task.label + llvm::Twine(op.microBatch)).str();
    break;
  case Task::Kind::Collective:
    break;
  }
  return task.label.str();
}

/// What one collective of a group needs to start: every member's arrival,
/// then its channels; booked once, when the last member arrives.
struct CollectiveState {
  std::vector<double> arrivals;
  size_t arrived = 0;
  double start = NAN;
  double ready() const { return *llvm::max_element(arrivals); }
};

/// Each channel's busy intervals, disjoint and in time order. A transfer is
/// booked at the earliest time from `ready` at which all its channels are
/// free for its duration, wherever the replay's order finds it.
class ChannelBook {
public:
  explicit ChannelBook(int channels) : busy(channels), booked(channels, 0) {}

  /// The channel booked longest and its seconds; -1 when none was.
  std::pair<int, double> busiest() const {
    auto most = llvm::max_element(booked);
    if (most == booked.end() || *most <= 0)
      return {-1, 0};
    return {static_cast<int>(most - booked.begin()), *most};
  }

  double book(llvm::ArrayRef<int> channels, double ready, double seconds) {
    if (channels.empty() || seconds <= 0)
      return ready;
    double start = ready;
    for (bool moved = true; moved;) {
      moved = false;
      for (int channel : channels) {
        auto clash = firstEndingAfter(channel, start);
        if (clash != busy[channel].end() && clash->start < start + seconds) {
          start = clash->end;
          moved = true;
        }
      }
    }
    for (int channel : channels) {
      std::vector<Interval> &list = busy[channel];
      list.insert(firstEndingAfter(channel, start), {start, start + seconds});
      booked[channel] += seconds;
    }
    return start;
  }

private:
  struct Interval {
    double start, end;
  };
  std::vector<std::vector<Interval>> busy;
  std::vector<double> booked; // per channel

  std::vector<Interval>::iterator firstEndingAfter(int channel, double time) {
    return llvm::lower_bound(busy[channel], time,
                             [](const Interval &interval, double t) {
                               return interval.end <= t;
                             });
  }
};

/// Builds every rank's task list with its durations.
class TaskBuilder {
public:
  TaskBuilder(const Plan &plan, const CostModel &cost,
              const LinkChannels &channels, llvm::ArrayRef<int> deviceOfRank)
      : plan(plan), cost(cost), channels(channels), profile(cost.profile()),
        deviceOfRank(deviceOfRank) {}

  std::vector<Task> build(const RankSchedule &schedule) {
    std::vector<Task> tasks;
    const Stage &stage = plan.stages[schedule.stage];
    // Replicas exchange parameters and gradients only where there are some.
    bool exchanges = stage.replicas.size() > 1 && stageParameters(stage) > 0;
    bool fullSharding = exchanges && plan.sharding == ShardingKind::Full;
    int device = deviceOfRank[schedule.rank];
    for (const ScheduledOp &op : schedule.ops) {
      int64_t samples = schedule.microBatches[op.microBatch].numSamples;
      switch (op.kind) {
      case ScheduledOp::Kind::Forward:
      case ScheduledOp::Kind::Backward: {
        bool backward = op.kind == ScheduledOp::Kind::Backward;
        if (fullSharding)
          tasks.push_back(stageCollective(schedule, "all_gather"));
        Task compute;
        compute.label = backward ? "B" : "F";
        compute.op = op;
        compute.seconds =
            cost.computeSeconds(device, stage.firstSegment, stage.endSegment,
                                backward, samples, stage.recompute,
                                cost.precisionOf(stage));
        tasks.push_back(compute);
        if (fullSharding && backward)
          tasks.push_back(stageCollective(schedule, "reduce_scatter"));
        break;
      }
      case ScheduledOp::Kind::Send: {
        Task send;
        send.kind = Task::Kind::Send;
        send.peer = op.peer;
        send.label = "send";
        send.op = op;
        int64_t bytes = op.numSamples * boundaryBytes(stage, op.gradient);
        send.seconds =
            cost.transferSeconds(device, deviceOfRank[op.peer], bytes);
        send.stagingSeconds = cost.stagingSeconds(device, bytes);
        if (device != deviceOfRank[op.peer])
          send.link = &cost.cluster().linkBetween(device, deviceOfRank[op.peer]);
        channels.path(device, deviceOfRank[op.peer], send.channels);
        tasks.push_back(send);
        break;
      }
      case ScheduledOp::Kind::Recv: {
        Task recv;
        recv.kind = Task::Kind::Recv;
        recv.peer = op.peer;
        recv.label = "recv";
        recv.op = op;
        tasks.push_back(recv);
        break;
      }
      }
    }
    appendUpdate(schedule, exchanges && !fullSharding, tasks);
    return tasks;
  }

private:
  int64_t stageParameters(const Stage &stage) const {
    return profile.range(stage.firstSegment, stage.endSegment).parameters;
  }

  /// Bytes per sample crossing the stage's boundary: activations leave at
  /// its end, gradients at its start.
  int64_t boundaryBytes(const Stage &stage, bool gradient) const {
    int64_t segment = gradient ? stage.firstSegment - 1 : stage.endSegment - 1;
    return profile.segments[segment].boundaryBytes;
  }

  /// What the replicas of a stage exchange: the same for every replica and
  /// every call, so worked out once per stage.
  struct StageExchange {
    std::vector<int64_t> shardCounts;
    double allGatherSeconds = 0, reduceScatterSeconds = 0;
    const Link *link = nullptr;
    llvm::SmallVector<int, 4> channels;
  };

  const StageExchange &exchangeOf(int64_t s) {
    auto [it, inserted] = exchanges.try_emplace(s);
    if (!inserted)
      return it->second;
    const Stage &stage = plan.stages[s];
    std::vector<int> devices;
    for (size_t i = 0; i < stage.replicas.size(); ++i)
      devices.push_back(deviceOfRank[plan.rankOf(s, i)]);
    it->second.shardCounts = shardCounts(stage, stageParameters(stage));
    std::vector<int64_t> parts;
    for (int64_t count : it->second.shardCounts)
      parts.push_back(count * kElementBytes);
    // Under full sharding every exchange is one call's, segment by segment.
    if (plan.sharding == ShardingKind::Full) {
      it->second.allGatherSeconds =
          cost.segmentCollectivesSeconds(stage, devices, /*gather=*/true);
      it->second.reduceScatterSeconds =
          cost.segmentCollectivesSeconds(stage, devices, /*gather=*/false);
    } else {
      it->second.allGatherSeconds = cost.allGatherSeconds(devices, parts);
      it->second.reduceScatterSeconds =
          cost.reduceScatterSeconds(devices, parts);
    }
    it->second.link = cost.ringLink(devices);
    channels.ring(devices, it->second.channels);
    return it->second;
  }

  /// A gather or reduce-scatter of the stage's flat parameters (gradients)
  /// over its replicas, each holding its shard.
  Task stageCollective(const RankSchedule &schedule, llvm::StringRef name) {
    const StageExchange &exchange = exchangeOf(schedule.stage);
    Task task;
    task.kind = Task::Kind::Collective;
    task.label = name;
    task.group = schedule.stage;
    task.sequence = nextSequence[schedule.rank]++;
    task.groupSize =
        static_cast<int64_t>(plan.stages[schedule.stage].replicas.size());
    task.member = schedule.replica;
    task.seconds = name == "all_gather" ? exchange.allGatherSeconds
                                        : exchange.reduceScatterSeconds;
    task.link = exchange.link;
    task.channels = exchange.channels;
    return task;
  }

  /// The all-reduce of tied parameter `index`'s gradient over every rank
  /// of the stages reading it (in rank order).
  Task tiedAllReduce(const RankSchedule &schedule, int64_t index,
                     const TiedParameter &tied) {
    std::vector<int> devices;
    Task task;
    task.kind = Task::Kind::Collective;
    task.label = "all_reduce";
    task.group = -1 - index;
    for (int64_t s : tied.stages)
      for (size_t r = 0; r < plan.stages[s].replicas.size(); ++r) {
        int64_t rank = plan.rankOf(s, r);
        if (rank == schedule.rank)
          task.member = static_cast<int64_t>(devices.size());
        devices.push_back(deviceOfRank[rank]);
      }
    task.groupSize = static_cast<int64_t>(devices.size());
    task.seconds = cost.allReduceSeconds(devices, tied.parameter->bytes);
    task.link = cost.ringLink(devices);
    channels.ring(devices, task.channels);
    return task;
  }

  /// The update after the step's computations (passes/RankUpdate.cpp):
  /// the reduce-scatter of the summed gradients onto the shards, the
  /// all-reduces of the tied parameters the stage shares with others, the
  /// optimizer on this rank's shard (on the host where the stage offloads
  /// it) and its whole tied parameters, the all-gather of the parameters.
  void appendUpdate(const RankSchedule &schedule, bool optimizerSharding,
                    std::vector<Task> &tasks) {
    const Stage &stage = plan.stages[schedule.stage];
    if (optimizerSharding)
      tasks.push_back(stageCollective(schedule, "reduce_scatter"));
    int64_t tiedElements = 0;
    for (auto [index, tied] : llvm::enumerate(tiedParameters(profile, plan)))
      if (llvm::is_contained(tied.stages, schedule.stage)) {
        tasks.push_back(
            tiedAllReduce(schedule, static_cast<int64_t>(index), tied));
        if (tied.stages.front() != schedule.stage)
          tiedElements += tied.parameter->elements;
      }
    int64_t shard =
        stage.replicas.size() > 1
            ? exchangeOf(schedule.stage).shardCounts[schedule.replica]
            : stageParameters(stage);
    int device = deviceOfRank[schedule.rank];
    bool adamw = profile.optimizerStatePerParameterByte > 0;
    bool offloaded = adamw && stage.offloadOptimizer;
    Task update;
    update.label = offloaded ? "adamw on host" : adamw ? "adamw" : "sgd";
    // Tied parameters' copies are updated on the device.
    update.seconds = cost.optimizerSeconds(device, shard, offloaded) +
                     cost.optimizerSeconds(device, tiedElements);
    tasks.push_back(update);
    if (optimizerSharding)
      tasks.push_back(stageCollective(schedule, "all_gather"));
  }

  const Plan &plan;
  const CostModel &cost;
  const LinkChannels &channels;
  const ModelProfile &profile;
  llvm::ArrayRef<int> deviceOfRank;
  std::map<int64_t, int64_t> nextSequence; // per rank
  std::map<int64_t, StageExchange> exchanges; // per stage
};

/// The event loop's state: each rank's clock and place in its list.
class Replay {
public:
  Replay(const Plan &plan, std::vector<std::vector<Task>> tasks,
         const LinkChannels &channels, bool recordSpans)
      : plan(plan), tasks(std::move(tasks)), channels(channels),
        recordSpans(recordSpans), clock(this->tasks.size(), 0),
        next(this->tasks.size(), 0), compute(this->tasks.size(), 0),
        communication(this->tasks.size(), 0), book(channels.size()) {}

  llvm::Error run() {
    size_t done = 0;
    while (done < tasks.size()) {
      bool progressed = false;
      done = 0;
      for (size_t rank = 0; rank < tasks.size(); ++rank) {
        while (next[rank] < tasks[rank].size() && advance(rank))
          progressed = true;
        done += next[rank] == tasks[rank].size();
      }
      if (done < tasks.size() && !progressed)
        return stuckError();
    }
    return llvm::Error::success();
  }

  void fill(SimulationResult &result) const {
    result.stepSeconds = *llvm::max_element(clock);
    result.computeSeconds = compute;
    result.communicationSeconds = communication;
    for (size_t rank = 0; rank < compute.size(); ++rank) {
      double busy = compute[rank] + communication[rank];
      result.busySeconds.push_back(busy);
      result.idleSeconds.push_back(result.stepSeconds - busy);
    }
    result.spans = spans;
    auto [channel, seconds] = book.busiest();
    if (channel >= 0) {
      result.busiestChannel = channels.name(channel);
      result.busiestChannelSeconds = seconds;
    }
    for (const auto &[link, seconds] : linkSeconds)
      result.linkUses.push_back({link, seconds});
    // Busiest first; on a tie the slower link.
    llvm::sort(result.linkUses, [](const LinkUse &a, const LinkUse &b) {
      if (a.seconds != b.seconds)
        return a.seconds > b.seconds;
      return a.link->bandwidthGBps < b.link->bandwidthGBps;
    });
  }

private:
  /// Runs rank's next task if it can; false when it must wait.
  bool advance(size_t rank) {
    const Task &task = tasks[rank][next[rank]];
    double &now = clock[rank];
    switch (task.kind) {
    case Task::Kind::Compute:
      record(rank, task, "compute", now, task.seconds);
      break;
    case Task::Kind::Send: {
      record(rank, task, "comm", now, task.stagingSeconds);
      std::pair<int64_t, int64_t> pair{static_cast<int64_t>(rank), task.peer};
      // The pair's earlier message goes first.
      double &pairFree = pairFreeAt[pair];
      double start =
          book.book(task.channels, std::max(now, pairFree), task.seconds);
      pairFree = start + task.seconds;
      inFlight[pair].push_back(pairFree);
      addLinkTime(task);
      if (recordSpans)
        spans.push_back(
            {pair.first, nameOf(task), "transfer", start, task.seconds});
      break;
    }
    case Task::Kind::Recv: {
      std::deque<double> &queue =
          inFlight[{task.peer, static_cast<int64_t>(rank)}];
      if (queue.empty())
        return false;
      double arrival = queue.front();
      queue.pop_front();
      if (arrival > now)
        record(rank, task, "wait", now, arrival - now);
      break;
    }
    case Task::Kind::Collective: {
      CollectiveState &state = collectives[{task.group, task.sequence}];
      if (state.arrivals.empty())
        state.arrivals.assign(task.groupSize, NAN);
      if (std::isnan(state.arrivals[task.member])) {
        state.arrivals[task.member] = now;
        ++state.arrived;
      }
      if (state.arrived < state.arrivals.size())
        return false;
      if (std::isnan(state.start))
        state.start = book.book(task.channels, state.ready(), task.seconds);
      double start = state.start;
      if (start > now)
        record(rank, task, "wait", now, start - now);
      record(rank, task, "comm", start, task.seconds);
      addLinkTime(task);
      break;
    }
    }
    ++next[rank];
    return true;
  }

  /// Adds a span and moves the rank's clock to its end.
  void record(size_t rank, const Task &task, const char *category,
              double start, double seconds) {
    clock[rank] = start + seconds;
    llvm::StringRef kind(category);
    if (kind == "compute")
      compute[rank] += seconds;
    else if (kind == "comm")
      communication[rank] += seconds;
    if (recordSpans)
      spans.push_back(
          {static_cast<int64_t>(rank), nameOf(task), category, start, seconds});
  }

  /// Counts a transfer's or a collective member's time against its link.
  void addLinkTime(const Task &task) {
    if (task.link)
      linkSeconds[task.link] += task.seconds;
  }

  llvm::Error stuckError() const {
    std::string waiting;
    for (size_t rank = 0; rank < tasks.size(); ++rank)
      if (next[rank] < tasks[rank].size())
        waiting += llvm::formatv("\n  rank {0} waits at \"{1}\"", rank,
                                 nameOf(tasks[rank][next[rank]]))
                       .str();
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the schedule cannot finish: no rank can proceed" + waiting);
  }

  const Plan &plan;
  std::vector<std::vector<Task>> tasks;
  const LinkChannels &channels;
  bool recordSpans;
  std::vector<double> clock;
  std::vector<size_t> next;
  std::vector<double> compute, communication;
  ChannelBook book;
  llvm::DenseMap<const Link *, double> linkSeconds;
  std::vector<TraceSpan> spans;
  /// Arrival times of the messages sent and not yet received, per pair.
  std::map<std::pair<int64_t, int64_t>, std::deque<double>> inFlight;
  /// When each pair's last message has crossed.
  std::map<std::pair<int64_t, int64_t>, double> pairFreeAt;
  std::map<std::pair<int64_t, int64_t>, CollectiveState> collectives;
};

} // namespace

llvm::Expected<SimulationResult>
simulate(const Plan &plan, const std::vector<RankSchedule> &schedule,
         const CostModel &cost, bool recordSpans) {
  const Cluster &cluster = cost.cluster();
  if (static_cast<int64_t>(schedule.size()) != plan.numRanks())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        llvm::formatv("the schedule has {0} ranks but the plan has {1}",
                      schedule.size(), plan.numRanks()));
  std::vector<int> deviceOfRank;
  for (const Stage &stage : plan.stages)
    for (const Replica &replica : stage.replicas) {
      int device = cluster.deviceIndex(replica.device);
      if (device < 0)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            llvm::formatv("device \"{0}\" of the plan is not in cluster "
                          "\"{1}\" (devices are named NODE/TYPE:INDEX)",
                          replica.device, cluster.name));
      deviceOfRank.push_back(device);
    }

  LinkChannels channels(cluster);
  TaskBuilder builder(plan, cost, channels, deviceOfRank);
  std::vector<std::vector<Task>> tasks;
  for (const RankSchedule &rank : schedule)
    tasks.push_back(builder.build(rank));
  Replay replay(plan, std::move(tasks), channels, recordSpans);
  if (llvm::Error error = replay.run())
    return std::move(error);

  SimulationResult result;
  replay.fill(result);
  int64_t samples = 0;
  for (const Replica &replica : plan.stages.front().replicas)
    samples += replica.numSamples;
  if (result.stepSeconds > 0)
    result.tokensPerSecond =
        static_cast<double>(samples * cost.profile().seqLen) /
        result.stepSeconds;
  for (const RankSchedule &rank : schedule)
    result.peakMemoryBytes.push_back(cost.rankMemoryBytes(plan, rank));
  return result;
}

} // namespace hetc::planner
