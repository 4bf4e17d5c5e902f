//===- HetDistDialect.cpp - hetd dialect registration ---------------------===//

#include "dialects/HetDist/HetDist.h"

#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace hetc::hetd;

#include "dialects/HetDist/HetDistDialect.cpp.inc"

namespace {
/// Communication ops keep their order wherever they are inlined.
struct HetDistInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void HetDistDialect::initialize() {
  addInterfaces<HetDistInlinerInterface>();
  addOperations<
#define GET_OP_LIST
#include "dialects/HetDist/HetDistOps.cpp.inc"
      >();
}
