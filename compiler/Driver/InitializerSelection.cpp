//===- InitializerSelection.cpp - trained and frozen initializers ---------===//

#include "compiler/Driver/InitializerSelection.h"

#include "dialects/HetGraph/HetGraph.h"
#include "runtime/package/hetpkg.pb.h"

#include "mlir/Dialect/MLProgram/IR/MLProgram.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace hetc::driver {

InitializerSelectionFlags::InitializerSelectionFlags(
    cl::SubCommand &subcommand, cl::OptionCategory &category)
    : freeze("freeze", cl::sub(subcommand), cl::cat(category),
             cl::CommaSeparated, cl::value_desc("PATTERN[,PATTERN...]"),
             cl::desc("Hold the float initializers whose names match these "
                      "globs constant: buffers such as rotary tables, "
                      "inv_freq or masks, or layers not to fine-tune "
                      "(e.g. --freeze '*.rotary_emb.inv_freq')")),
      train("train", cl::sub(subcommand), cl::cat(category),
            cl::CommaSeparated, cl::value_desc("PATTERN[,PATTERN...]"),
            cl::desc("Train only the float initializers whose names match "
                     "these globs; every other one is held constant")) {}

void InitializerSelectionFlags::applyTo(ONNXImportOptions &options) const {
  options.freeze.assign(freeze.begin(), freeze.end());
  options.train.assign(train.begin(), train.end());
}

package::InitializerSummary summarizeInitializers(ModuleOp module) {
  package::InitializerSummary summary;
  for (auto global : module.getOps<ml_program::GlobalOp>()) {
    auto type = llvm::dyn_cast<RankedTensorType>(global.getType());
    if (global.getIsMutable() || !type ||
        !llvm::isa<FloatType>(type.getElementType()))
      continue;
    ++summary.trainableTensors;
    summary.trainableElements += type.getNumElements();
  }
  auto frozen =
      module->getAttrOfType<DictionaryAttr>(hetg::kFrozenInitializersAttr);
  for (NamedAttribute entry : frozen ? frozen.getValue()
                                     : ArrayRef<NamedAttribute>()) {
    auto fields = llvm::dyn_cast<ArrayAttr>(entry.getValue());
    if (!fields || fields.size() != 2)
      continue;
    auto elements = llvm::dyn_cast<IntegerAttr>(fields[0]);
    auto reason = llvm::dyn_cast<StringAttr>(fields[1]);
    summary.frozen.push_back({entry.getName().str(),
                              elements ? elements.getInt() : 0,
                              reason ? reason.str() : std::string()});
  }
  return summary;
}

package::InitializerSummary summarizeInitializers(const pkg::Manifest &manifest) {
  const pkg::Initializers &recorded = manifest.initializers();
  package::InitializerSummary summary;
  summary.trainableTensors = recorded.trainable_tensors();
  summary.trainableElements = recorded.trainable_elements();
  for (const pkg::FrozenInitializer &frozen : recorded.frozen())
    summary.frozen.push_back(
        {frozen.name(), frozen.elements(), frozen.reason()});
  return summary;
}

void printInitializerSummary(const package::InitializerSummary &summary,
                             llvm::StringRef prefix, llvm::raw_ostream &os) {
  int64_t frozenElements = 0;
  for (const package::InitializerSummary::Frozen &frozen : summary.frozen)
    frozenElements += frozen.elements;
  os << prefix << "initializers: " << summary.trainableTensors
     << " trainable (" << summary.trainableElements << " parameters), "
     << summary.frozen.size() << " frozen (" << frozenElements
     << " values)\n";
  for (const package::InitializerSummary::Frozen &frozen : summary.frozen)
    os << prefix << "  frozen " << frozen.name << ": " << frozen.elements
       << " values, " << frozen.reason << "\n";
}

} // namespace hetc::driver
