//===- CompileProgress.cpp - a progress line per compile stage ------------===//

#include "compiler/Driver/CompileProgress.h"

#include "dialects/HetDist/HetDist.h"
#include "planner/Plan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace hetc::driver {

namespace {

/// The value of option `key` in the pass's textual form
/// (`name{key=value other=value}`); empty when it is not there.
std::string optionOf(Pass *pass, llvm::StringRef key) {
  std::string text;
  llvm::raw_string_ostream os(text);
  pass->printAsTextualPipeline(os);
  llvm::StringRef options = llvm::StringRef(text).split('{').second;
  options = options.drop_back(); // the closing brace
  llvm::SmallVector<llvm::StringRef> pairs;
  options.split(pairs, ' ', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef pair : pairs) {
    auto [name, value] = pair.split('=');
    if (name == key) // list options print as {a,b}
      return value.ltrim('{').rtrim('}').str();
  }
  return "";
}

/// "bf16", or per segment "bf16 in segments 0-3, f16 in 4-8".
std::string describePrecision(Pass *pass) {
  std::string uniform = optionOf(pass, "precision");
  llvm::SmallVector<llvm::StringRef> types;
  std::string list = optionOf(pass, "segment-precision");
  llvm::StringRef(list).split(types, ',', -1, /*KeepEmpty=*/false);
  if (types.empty())
    return uniform;
  std::string text;
  for (size_t first = 0; first < types.size();) {
    size_t end = first;
    while (end < types.size() && types[end] == types[first])
      ++end;
    text += (first ? ", " : "") + types[first].str() + " in segment" +
            (end - first > 1 ? "s " + std::to_string(first) + "-" +
                                   std::to_string(end - 1)
                             : " " + std::to_string(first));
    first = end;
  }
  return text;
}

/// "segment the forward graph", with what is recomputed.
std::string describeSegmentation(Pass *pass) {
  std::string line = "segment the forward graph";
  if (optionOf(pass, "recompute-all") == "true")
    return line + ", recompute all";
  std::string list = optionOf(pass, "recompute");
  return list.empty() ? line : line + ", recompute " + list;
}

/// The ranks of the plan `hetd-build-ranks` reads from the module.
int64_t planRanks(Operation *op) {
  auto json = op->getAttrOfType<StringAttr>(hetd::kPlanAttr);
  if (!json)
    return 0;
  llvm::Expected<planner::Plan> plan = planner::parsePlan(json.getValue());
  if (!plan) {
    llvm::consumeError(plan.takeError());
    return 0;
  }
  return plan->numRanks();
}

} // namespace

void CompileProgress::runAfterPass(Pass *pass, Operation *) {
  if (pass->getArgument() == "hetg-segment")
    insideSegmentation = false;
}

void CompileProgress::runBeforePass(Pass *pass, Operation *op) {
  llvm::StringRef name = pass->getArgument();
  // hetg-segment differentiates a copy to profile the backward pass.
  if (insideSegmentation)
    return;
  if (name == "hetg-untie-parameters") {
    print("untie shared weights");
  } else if (name == "hetg-specialize") {
    // The steps of a plan's micro-batch sizes build in nested modules.
    if (op->getParentOp())
      print("micro-batch of " + optionOf(pass, "batch") + ":");
    print("simplify to batch " + optionOf(pass, "batch") + ", sequence " +
          optionOf(pass, "seq"));
  } else if (name == "hetg-attach-loss") {
    print("attach the loss");
  } else if (name == "hetg-segment") {
    insideSegmentation = true;
    print(describeSegmentation(pass));
  } else if (name == "hetg-mixed-precision") {
    print("compute in " + describePrecision(pass) +
          ", with f32 master weights and optimizer state");
  } else if (name == "hetg-autodiff") {
    print("differentiate");
  } else if (name == "hetg-recompute") {
    print("recompute the flagged segments' activations");
  } else if (name == "hetd-partition-stages") {
    std::string starts = optionOf(pass, "stage-starts");
    print("partition into " +
          llvm::Twine(starts.empty() ? 1 : llvm::count(starts, ',') + 2) +
          " stages");
  } else if (name == "hetg-optimizer") {
    print("add the " + optionOf(pass, "optimizer") + " update");
  } else if (name == "hetd-build-ranks") {
    print("build " + llvm::Twine(planRanks(op)) +
          " rank programs from the schedule, then inline the stages");
  } else if (name == "hetx-lower-to-program") {
    print("lower to hetx programs and plan memory");
  }
}

} // namespace hetc::driver
