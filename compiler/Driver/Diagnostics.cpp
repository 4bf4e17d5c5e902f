//===- Diagnostics.cpp - printing diagnostics for hetc users
//---------------===//

#include "compiler/Driver/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace hetc::driver {

namespace {

/// The file position inside `loc`, printed without MLIR location syntax.
std::string describeLocation(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    if (auto file = llvm::dyn_cast<FileLineColLoc>(inner)) {
      text = file.getFilename().str();
      if (file.getLine() != 0)
        text += ":" + std::to_string(file.getLine()) + ":" +
                std::to_string(file.getColumn());
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return text.empty() ? "hetc" : text;
}

llvm::StringRef severityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

void print(const Diagnostic &diag) {
  llvm::errs() << describeLocation(diag.getLocation()) << ": "
               << severityName(diag.getSeverity()) << ": " << diag << "\n";
  for (const Diagnostic &note : diag.getNotes())
    print(note);
}

} // namespace

UserDiagnosticHandler::UserDiagnosticHandler(MLIRContext *context)
    : ScopedDiagnosticHandler(context) {
  setHandler([](Diagnostic &diag) {
    print(diag);
    return success();
  });
}

} // namespace hetc::driver
