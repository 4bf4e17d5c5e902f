//===- FunctionLowering.h - one function to one hetx.program ----*- C++ -*-===//
//
// Lowers the body of one func.func: every value gets a buffer, every hetg
// and hetd op a launch (views and constants get none), global accesses read
// and write the globals' buffers. Values live on the device, except those
// of globals marked hetd.host, of hetd.to_host and of the ops that read
// only host values, which live and run on the rank's host.
//
//===----------------------------------------------------------------------===//

#ifndef HETC_PASSES_CONVERSION_HETGRAPHTOHETEXEC_FUNCTIONLOWERING_H
#define HETC_PASSES_CONVERSION_HETGRAPHTOHETEXEC_FUNCTIONLOWERING_H

#include "passes/Conversion/HetGraphToHetExec/GlobalAccess.h"
#include "passes/Conversion/HetGraphToHetExec/ProgramDraft.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"

namespace hetc {

/// An ml_program global as the buffer that holds it.
struct GlobalBuffer {
  std::string name;
  mlir::MemRefType type;
  hetx::BufferKind kind;
  mlir::ElementsAttr init;
  mlir::Location loc;
  /// A piece of a sharded tensor: that tensor's shape (hetd.whole_shape).
  mlir::DenseI64ArrayAttr wholeShape;
  /// Lives in the rank's host memory (hetd.host).
  bool onHost = false;
};

/// The name of each constant value, shared by the programs of a module:
/// the package loads constants by name, so one name is one value.
using ConstantNames = llvm::DenseMap<mlir::Attribute, std::string>;

class FunctionLowering {
public:
  /// `globals` are the module's globals in module order. A rank function
  /// (`placement` given) gets buffers for the globals it references, may
  /// read several micro-batches of tokens and labels and returns its loss
  /// or nothing; the single function of a module without ranks gets every
  /// global and is a train step or a function returning output buffers.
  /// An evaluation copy (hetd.eval) of the function lowered to
  /// `trainProgram` gets the globals it references, and its program runs
  /// in that program's arena.
  FunctionLowering(mlir::func::FuncOp func,
                   llvm::ArrayRef<GlobalBuffer> globals,
                   ConstantNames &constantNames,
                   std::optional<ProgramPlacement> placement,
                   hetx::ProgramOp trainProgram = {})
      : func(func), globals(globals), constantNames(constantNames),
        rankPlacement(std::move(placement)), trainProgram(trainProgram) {}

  /// Appends the function's program at the builder's insertion point.
  mlir::FailureOr<hetx::ProgramOp> run(mlir::OpBuilder &builder);

private:
  bool isRankFunction() const { return rankPlacement.has_value(); }
  void addGlobals();
  mlir::LogicalResult addArguments();
  mlir::LogicalResult lowerOp(mlir::Operation *op);
  mlir::LogicalResult lowerGlobalAccess(mlir::Operation *op);
  mlir::LogicalResult lowerReturn(mlir::func::ReturnOp ret);
  mlir::LogicalResult lowerView(mlir::Operation *op, int64_t byteOffset);
  mlir::LogicalResult lowerConstant(mlir::Operation *op);
  mlir::LogicalResult lowerLaunch(mlir::Operation *op, bool onHost);
  mlir::LogicalResult lowerSend(mlir::Operation *op);
  mlir::LogicalResult lowerAllReduce(mlir::Operation *op);
  mlir::LogicalResult lowerTransfer(mlir::Operation *op, bool toHost);
  /// Whether `op` runs on the host: its operands are host values. Fails
  /// when it mixes host and device values, or communicates from the host.
  mlir::FailureOr<bool> runsOnHost(mlir::Operation *op) const;
  /// The buffer `result` is written to: its global's when its store is in
  /// place, else a new activation named after the launch.
  mlir::FailureOr<int> resultBuffer(mlir::OpResult result,
                                    llvm::StringRef kernel,
                                    bool onHost = false);
  int bufferOf(mlir::Value value) const { return buffers.lookup(value); }
  ProgramPlacement placement() const;

  mlir::func::FuncOp func;
  llvm::ArrayRef<GlobalBuffer> globals;
  ConstantNames &constantNames;
  std::optional<ProgramPlacement> rankPlacement;
  hetx::ProgramOp trainProgram;
  mlir::Block *body = nullptr;
  ProgramDraft draft;
  GlobalAccessPlan accesses;
  llvm::DenseMap<mlir::Value, int> buffers;
  llvm::StringMap<int> globalBuffers;
  llvm::SmallVector<int> tokens, labels;
  /// One read-only buffer per constant value.
  llvm::DenseMap<mlir::Attribute, int> constantBuffers;
};

} // namespace hetc

#endif // HETC_PASSES_CONVERSION_HETGRAPHTOHETEXEC_FUNCTIONLOWERING_H
