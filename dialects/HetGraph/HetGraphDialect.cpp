//===- HetGraphDialect.cpp - hetg dialect registration --------------------===//

#include "dialects/HetGraph/HetGraph.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace hetc::hetg;

#include "dialects/HetGraph/HetGraphDialect.cpp.inc"
#include "dialects/HetGraph/HetGraphEnums.cpp.inc"
#include "dialects/HetGraph/HetGraphInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/HetGraph/HetGraphAttrs.cpp.inc"

namespace {
/// hetg ops are pure tensor computations: a pipeline stage's function can
/// be inlined wherever a rank calls it.
struct HetGraphInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void HetGraphDialect::initialize() {
  addInterfaces<HetGraphInlinerInterface>();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/HetGraph/HetGraphAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/HetGraph/HetGraphOps.cpp.inc"
      >();
}

Operation *HetGraphDialect::materializeConstant(OpBuilder &builder,
                                                Attribute value, Type type,
                                                Location loc) {
  // Folds may refine a dynamic result to a static constant; the constant
  // keeps its own (more static) type.
  auto elements = llvm::dyn_cast<ElementsAttr>(value);
  if (!elements || !areRefinableTypes(type, elements.getType()))
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
