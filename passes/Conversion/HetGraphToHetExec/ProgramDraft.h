//===- ProgramDraft.h - one program's buffers and launches ------*- C++ -*-===//
//
// The lowering of a function collects its buffers (owning ones and views of
// them) and its launches here; finishing the draft computes each owning
// buffer's lifetime, places the buffers with the memory planner and emits
// the hetx.program.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PASSES_CONVERSION_HETGRAPHTOHETEXEC_PROGRAMDRAFT_H
#define HETC_PASSES_CONVERSION_HETGRAPHTOHETEXEC_PROGRAMDRAFT_H

#include "dialects/HetExec/HetExec.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace hetc {

/// The memref type of a buffer holding `type`, or an error at `loc` naming
/// `what` when no buffer can (dynamic shapes, element types without a
/// package dtype).
mlir::FailureOr<mlir::MemRefType> bufferTypeOf(mlir::Type type,
                                               mlir::Location loc,
                                               const llvm::Twine &what);

struct BufferInfo {
  std::string name;
  mlir::MemRefType type;
  hetx::BufferKind kind;
  std::optional<hetx::InputRole> role;
  mlir::ElementsAttr init;
  mlir::Location loc;
  /// TOKENS and LABELS inputs of a rank: the global sample of row 0.
  std::optional<int64_t> firstSample;
  /// A piece of a sharded tensor: that tensor's shape.
  mlir::DenseI64ArrayAttr wholeShape;
  /// Lies in the rank's host memory (hetx.buffer's `host`).
  bool onHost = false;
  /// For views: the buffer owning the bytes, and where they start in it.
  int aliasOf = -1;
  int64_t viewOffset = 0;
  /// Owning activations: the first and last launch touching the bytes.
  int64_t firstUse = std::numeric_limits<int64_t>::max();
  int64_t lastUse = -1;
};

struct LaunchInfo {
  std::string kernel;
  llvm::SmallVector<int> inputs, outputs;
  mlir::DictionaryAttr params;
  mlir::Location loc;
  /// The op's FLOPs (hetg's cost interface); 0: none counted.
  int64_t flops = 0;
  /// The model segment and pass the op belongs to, where it has one.
  std::optional<std::pair<int64_t, hetc::hetx::LaunchPhase>> segment;
};

/// The program's attributes other than its memory plan.
struct ProgramPlacement {
  int32_t rank = 0, stage = 0, replica = 0;
  std::optional<std::string> device;
  int64_t firstSample = 0, numSamples = 0;
};

class ProgramDraft {
public:
  int addBuffer(BufferInfo info);
  /// A view of `type` at `byteOffset` in the bytes of buffer `of` (itself
  /// maybe a view); views always alias the buffer owning the bytes.
  int addView(int of, mlir::MemRefType type, int64_t byteOffset,
              std::string name, mlir::Location loc);
  void addLaunch(LaunchInfo launch) { launches.push_back(std::move(launch)); }
  void addCopy(int from, int to, mlir::Location loc) {
    addLaunch({"copy", {from}, {to}, mlir::DictionaryAttr(), loc});
  }
  /// Renames buffer `id` when it is an activation (parameters, constants
  /// and inputs keep their names).
  void nameActivation(int id, std::string name) {
    if (buffers[id].kind == hetx::BufferKind::activation)
      buffers[id].name = std::move(name);
  }
  void setResults(int lossBuffer, llvm::SmallVector<int> outputBuffers) {
    loss = lossBuffer;
    outputs = std::move(outputBuffers);
  }

  const BufferInfo &buffer(int id) const { return buffers[id]; }
  int numBuffers() const { return static_cast<int>(buffers.size()); }
  int numLaunches() const { return static_cast<int>(launches.size()); }
  /// The buffer owning the bytes of `id`.
  int rootOf(int id) const {
    return buffers[id].aliasOf >= 0 ? buffers[id].aliasOf : id;
  }

  /// Plans the memory and appends `hetx.program @rank<N>` at the builder's
  /// insertion point; the program's step does `modelFlops` model FLOPs.
  /// With a `trainProgram`, the program is its evaluation copy
  /// `@rank<N>_eval`, laid out to run in its arena (HetExecOps.td); fails
  /// when it reads a parameter or state the training program lacks.
  mlir::FailureOr<hetx::ProgramOp>
  finish(mlir::OpBuilder &builder, mlir::Location loc,
         const ProgramPlacement &placement, int64_t modelFlops,
         hetx::ProgramOp trainProgram = {});

private:
  struct Layout {
    std::vector<int64_t> offsets; // per owning buffer; views: unused
    int64_t arenaBytes = 0, hostArenaBytes = 0;
  };
  void computeLiveness();
  /// The buffers' own arenas, the device's and the host's: persistent
  /// first, then the activations.
  Layout layOut() const;
  /// The launches that compute on host buffers (not copies), in order.
  std::vector<int64_t> hostComputeLaunches() const;
  /// Places the owning buffers of one arena into `layout.offsets`; returns
  /// the arena's size.
  int64_t layOutArena(bool host, Layout &layout) const;
  /// The arena of `trainProgram`, shared: see finish.
  mlir::FailureOr<Layout> layOutBeside(hetx::ProgramOp trainProgram) const;

  std::vector<BufferInfo> buffers;
  std::vector<LaunchInfo> launches;
  int loss = -1;
  llvm::SmallVector<int> outputs;
};

} // namespace hetc

#endif // HETC_PASSES_CONVERSION_HETGRAPHTOHETEXEC_PROGRAMDRAFT_H
