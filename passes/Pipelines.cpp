//===- Pipelines.cpp - hetc pass pipelines --------------------------------===//

#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace hetc {

void buildSimplifyPipeline(OpPassManager &pm,
                           const SimplifyPipelineOptions &options) {
  pm.addPass(createHetgSpecialize({options.batch, options.seq}));
  pm.addPass(createCanonicalizerPass());
  // Activations and norms first: attention matching looks through neither.
  pm.addPass(createHetgFuseNorms());
  pm.addPass(createHetgFuseActivations());
  pm.addPass(createHetgFuseMatmulBias());
  pm.addPass(createHetgFuseAttention());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createSymbolDCEPass());
}

void registerAllPasses() {
  registerHetcPasses();
  PassPipelineRegistration<SimplifyPipelineOptions>(
      "hetg-simplify",
      "Specialize shapes, fold shape arithmetic and fuse transformer ops",
      buildSimplifyPipeline);
}

} // namespace hetc
