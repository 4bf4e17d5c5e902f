//===- SegmentProfile.cpp - a model's segment profile for the planner -----===//

#include "compiler/Driver/SegmentProfile.h"

#include "dialects/HetGraph/HetGraph.h"
#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"

using namespace mlir;

namespace hetc::driver {

LogicalResult segmentModel(ModuleOp module, int64_t batch, int64_t seq,
                           ArrayRef<int64_t> recompute) {
  PassManager pm(module.getContext());
  SimplifyPipelineOptions simplify;
  simplify.batch = batch;
  simplify.seq = seq;
  buildSimplifyPipeline(pm, simplify);
  pm.addPass(createHetgAttachLoss());
  HetgSegmentOptions segment;
  segment.recompute = llvm::to_vector(recompute);
  pm.addPass(createHetgSegment(segment));
  return pm.run(module);
}

FailureOr<planner::ModelProfile>
readModelProfile(ModuleOp module, StringRef modelName, int64_t seq) {
  auto funcs = llvm::to_vector(module.getOps<func::FuncOp>());
  llvm::erase_if(funcs, [](func::FuncOp f) { return f.isExternal(); });
  if (funcs.size() != 1)
    return module.emitError("expected one function to profile, found ")
           << funcs.size();
  func::FuncOp func = funcs.front();
  auto entries = func->getAttrOfType<ArrayAttr>(hetg::kSegmentsAttr);
  auto batchAttr = func->getAttrOfType<IntegerAttr>(hetg::kBatchAttr);
  if (!entries || !batchAttr)
    return func.emitError("has no segment profile; run hetg-segment first");
  double batch = static_cast<double>(batchAttr.getInt());

  planner::ModelProfile profile;
  profile.model = modelName.str();
  profile.seqLen = seq;
  for (Attribute entry : entries) {
    auto dict = llvm::dyn_cast<DictionaryAttr>(entry);
    auto get = [&](StringRef name) -> int64_t {
      auto value = dict ? dict.getAs<IntegerAttr>(name) : IntegerAttr();
      return value ? value.getInt() : 0;
    };
    planner::SegmentCost cost;
    cost.ops = get("ops");
    cost.parameters = get("parameters");
    cost.parameterBytes = get("parameter_bytes");
    cost.forwardFlops = get("forward_flops") / batch;
    cost.backwardFlops = get("backward_flops") / batch;
    cost.forwardBytes = get("forward_bytes") / batch;
    cost.backwardBytes = get("backward_bytes") / batch;
    cost.savedActivationBytes = get("saved_activation_bytes_per_sample");
    cost.boundaryBytes = get("boundary_bytes_per_sample");
    if (auto kinds = dict ? dict.getAs<DictionaryAttr>("kinds") : nullptr)
      for (NamedAttribute named : kinds) {
        auto kind = llvm::dyn_cast<DictionaryAttr>(named.getValue());
        auto kindCount = [&](StringRef name) -> int64_t {
          auto value = kind ? kind.getAs<IntegerAttr>(name) : IntegerAttr();
          return value ? value.getInt() : 0;
        };
        auto kindGet = [&](StringRef name) {
          return static_cast<double>(kindCount(name)) / batch;
        };
        planner::KindCost &into = cost.kinds[named.getName().str()];
        // Launches are per call, whatever its batch.
        into.forwardOps = kindCount("forward_ops");
        into.backwardOps = kindCount("backward_ops");
        into.forwardFlops = kindGet("forward_flops");
        into.backwardFlops = kindGet("backward_flops");
        into.forwardBytes = kindGet("forward_bytes");
        into.backwardBytes = kindGet("backward_bytes");
      }
    profile.segments.push_back(cost);
  }
  if (auto shared = func->getAttrOfType<ArrayAttr>(hetg::kSharedParametersAttr))
    for (auto dict : shared.getAsRange<DictionaryAttr>()) {
      planner::SharedParameter parameter;
      if (auto name = dict.getAs<StringAttr>("name"))
        parameter.name = name.str();
      if (auto elements = dict.getAs<IntegerAttr>("elements"))
        parameter.elements = elements.getInt();
      if (auto bytes = dict.getAs<IntegerAttr>("bytes"))
        parameter.bytes = bytes.getInt();
      if (auto segments = dict.getAs<DenseI64ArrayAttr>("segments"))
        parameter.segments.assign(segments.asArrayRef().begin(),
                                  segments.asArrayRef().end());
      profile.sharedParameters.push_back(std::move(parameter));
    }
  return profile;
}

} // namespace hetc::driver
