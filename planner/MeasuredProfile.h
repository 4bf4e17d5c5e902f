//===- MeasuredProfile.h - segment times measured on real runs --*- C++ -*-===//
//
// What a segment's forward or backward took on a device type, in a
// precision, per call of a micro-batch size, and what each kernel kind
// achieved there at each size (its FLOPs and bytes per second): `hetc measure`
// derives it from a `hetrun --profile` trace, `hetc plan --profile` and `hetc
// compile
// --profile` hand it to the cost model, which uses it instead of its
// roofline wherever it covers a call (docs/planner.md, "Measured
// profiles"). Sizes between two measured ones are interpolated linearly;
// below the smallest, a fixed cost per call plus a cost per sample through
// the two smallest (never less than proportional); above the largest,
// proportional to the size.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PLANNER_MEASUREDPROFILE_H
#define HETC_PLANNER_MEASUREDPROFILE_H

#include "planner/Plan.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace hetc::planner {

enum class Pass { Forward, Backward };

/// One measured call: `seconds` for a micro-batch of `microBatch` samples.
struct MeasuredCall {
  std::string deviceType;
  Precision precision = Precision::F32;
  Pass pass = Pass::Forward;
  int64_t segment = 0;
  int64_t microBatch = 1;
  double seconds = 0;
};

/// The launches of one kernel kind on a device type in a precision, in
/// calls of one micro-batch size: their FLOPs (hetg's cost conventions),
/// the bytes of the buffers they read and wrote, and the seconds they took,
/// summed.
struct MeasuredKernel {
  std::string deviceType;
  Precision precision = Precision::F32;
  std::string kernel;
  int64_t launches = 0;
  double flops = 0;
  double bytes = 0;
  double seconds = 0;
  int64_t microBatch = 0; // 0: not recorded (files before sizes)
};

class MeasuredProfile {
public:
  MeasuredProfile(std::string model, int64_t seqLen, int64_t numSegments)
      : model_(std::move(model)), seqLen_(seqLen), numSegments_(numSegments) {}

  const std::string &model() const { return model_; }
  int64_t seqLen() const { return seqLen_; }
  int64_t numSegments() const { return numSegments_; }

  /// Records a call; calls of the same device type, precision, pass,
  /// segment and size are averaged.
  void add(const MeasuredCall &call);
  /// Adds a kernel kind's launches to the sums of its kind and size.
  void addKernel(const MeasuredKernel &kernel);
  /// Adds every call and kernel of `other`, which must measure the same
  /// model shape.
  llvm::Error merge(const MeasuredProfile &other);

  /// Seconds of one call of `samples` samples, or nullopt when the segment
  /// was not measured on `deviceType` in `precision` for `pass`.
  std::optional<double> seconds(llvm::StringRef deviceType,
                                Precision precision, Pass pass,
                                int64_t segment, int64_t samples) const;

  /// Every measured call (averages), in a fixed order.
  std::vector<MeasuredCall> calls() const;

  /// The sums of kernel kind `kernel` on `deviceType` in `precision` over
  /// every size, or nullopt when none of its launches was measured.
  std::optional<MeasuredKernel> kernel(llvm::StringRef deviceType,
                                       Precision precision,
                                       llvm::StringRef kernel) const;
  /// Seconds per FLOP (`perFlop`) or per byte that kind `kernel` takes on
  /// `deviceType` in `precision` in a call of `samples` samples: the rate
  /// measured at that micro-batch size, linear between two measured sizes,
  /// the nearest one's outside them. nullopt where none of its launches was
  /// measured or they count none of that work.
  std::optional<double> kernelSecondsPer(llvm::StringRef deviceType,
                                         Precision precision,
                                         llvm::StringRef kernel,
                                         int64_t samples, bool perFlop) const;
  /// Whether any kernel kind was measured on `deviceType` in `precision`.
  bool hasKernels(llvm::StringRef deviceType, Precision precision) const;
  /// Every measured kernel kind, in a fixed order.
  std::vector<MeasuredKernel> kernels() const;

  /// The JSON format of docs/planner.md, "Measured profiles".
  std::string toJSON() const;

private:
  struct Sum {
    double seconds = 0;
    int64_t count = 0;
  };
  using Key = std::tuple<std::string, Precision, Pass, int64_t>;

  std::string model_;
  int64_t seqLen_ = 0;
  int64_t numSegments_ = 0;
  /// By (device type, precision, pass, segment), then micro-batch size.
  std::map<Key, std::map<int64_t, Sum>> calls_;
  /// By (device type, precision, kernel), then micro-batch size.
  std::map<std::tuple<std::string, Precision, std::string>,
           std::map<int64_t, MeasuredKernel>>
      kernels_;
};

/// Parses the JSON of `hetc measure`; errors name `fileName` and the field.
llvm::Expected<MeasuredProfile> parseMeasuredProfile(llvm::StringRef json,
                                                     llvm::StringRef fileName);
/// Reads `path` and parses it.
llvm::Expected<MeasuredProfile> readMeasuredProfileFile(llvm::StringRef path);

} // namespace hetc::planner

#endif // HETC_PLANNER_MEASUREDPROFILE_H
