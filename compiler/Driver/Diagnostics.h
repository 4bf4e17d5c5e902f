//===- Diagnostics.h - printing diagnostics for hetc users
//-----------------===//

#ifndef HETC_COMPILER_DRIVER_DIAGNOSTICS_H
#define HETC_COMPILER_DRIVER_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"

namespace hetc::driver {

/// Prints each diagnostic (and its notes) to stderr as
/// `FILE[:LINE:COL]: error: MESSAGE`. Importer locations name the model
/// file and the ONNX node; the node name is part of the message.
class UserDiagnosticHandler : public mlir::ScopedDiagnosticHandler {
public:
  explicit UserDiagnosticHandler(mlir::MLIRContext *context);
};

} // namespace hetc::driver

#endif // HETC_COMPILER_DRIVER_DIAGNOSTICS_H
