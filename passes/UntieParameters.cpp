//===- UntieParameters.cpp - one parameter per use site ---------------------===//
//
// A global read at several places is one tied parameter for hetg-autodiff.
// Exporters that merge equal-valued initializers create such ties by
// accident; this pass gives every use site (consumer op) its own copy of
// the global so that each trains on its own.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace hetc {
#define GEN_PASS_DEF_HETGUNTIEPARAMETERS
#include "passes/Passes.h.inc"
} // namespace hetc

using namespace mlir;
using namespace hetc;

namespace {


bool isFloatTensor(Type type) {
  auto tensor = llvm::dyn_cast<RankedTensorType>(type);
  return tensor && llvm::isa<FloatType>(tensor.getElementType());
}

/// The global a load reads, when it is a plain (non-nested) reference to a
/// float global of the module.
ml_program::GlobalOp loadedParameter(Value value, SymbolTable &symbols) {
  auto load = value.getDefiningOp<ml_program::GlobalLoadConstOp>();
  if (!load || !load.getGlobal().getNestedReferences().empty() ||
      !isFloatTensor(load.getType()))
    return {};
  return symbols.lookup<ml_program::GlobalOp>(
      load.getGlobal().getRootReference());
}

/// `base.k` for the smallest k >= `next` that no symbol has yet.
std::string freshName(StringRef base, unsigned &next, SymbolTable &symbols) {
  for (;; ++next) {
    std::string name = (base + "." + Twine(next)).str();
    if (!symbols.lookup(name))
      return name;
  }
}

struct HetgUntieParameters
    : hetc::impl::HetgUntieParametersBase<HetgUntieParameters> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);

    // The sites of every shared global, in program order (pre-order walk).
    llvm::MapVector<ml_program::GlobalOp, llvm::SetVector<Operation *>> sites;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      for (Value operand : op->getOperands())
        if (ml_program::GlobalOp global = loadedParameter(operand, symbols))
          sites[global].insert(op);
    });

    OpBuilder builder(&getContext());
    llvm::SetVector<Operation *> oldLoads;
    for (auto &[global, users] : sites) {
      if (users.size() < 2)
        continue;
      StringRef base = global.getSymName();
      Attribute untiedFrom = global->getAttr(hetg::kUntiedFromAttr);
      if (!untiedFrom)
        untiedFrom = FlatSymbolRefAttr::get(global);
      Operation *insertAfter = global;
      unsigned next = 1;
      for (Operation *user : llvm::drop_begin(users)) {
        auto copy = llvm::cast<ml_program::GlobalOp>(global->clone());
        copy.setSymName(freshName(base, next, symbols));
        copy->setAttr(hetg::kUntiedFromAttr, untiedFrom);
        symbols.insert(copy, std::next(insertAfter->getIterator()));
        insertAfter = copy;

        builder.setInsertionPoint(user);
        Value loaded;
        for (OpOperand &operand : user->getOpOperands()) {
          if (loadedParameter(operand.get(), symbols) != global)
            continue;
          oldLoads.insert(operand.get().getDefiningOp());
          if (!loaded)
            loaded = ml_program::GlobalLoadConstOp::create(
                builder, operand.get().getLoc(), operand.get().getType(),
                FlatSymbolRefAttr::get(copy));
          operand.set(loaded);
        }
      }
    }
    for (Operation *load : oldLoads)
      if (load->use_empty())
        load->erase();
  }
};

} // namespace
