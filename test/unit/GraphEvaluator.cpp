//===- GraphEvaluator.cpp - evaluating hetg functions by constant folding -===//

#include "GraphEvaluator.h"

#include "dialects/HetGraph/HetGraph.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/Passes.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace hetc::testing {

namespace {

DialectRegistry dialects() {
  DialectRegistry registry;
  registry.insert<hetg::HetGraphDialect, func::FuncDialect,
                  ml_program::MLProgramDialect>();
  return registry;
}

std::vector<double> readValues(DenseElementsAttr attr) {
  std::vector<double> values;
  if (llvm::isa<FloatType>(attr.getElementType())) {
    for (const APFloat &v : attr.getValues<APFloat>())
      values.push_back(v.convertToDouble());
  } else {
    for (const APInt &v : attr.getValues<APInt>())
      values.push_back(double(v.getSExtValue()));
  }
  return values;
}

/// `values` as a constant of `type`, or null on a size mismatch.
DenseElementsAttr constantOf(RankedTensorType type,
                             const std::vector<double> &values) {
  if (int64_t(values.size()) != type.getNumElements())
    return {};
  Type element = type.getElementType();
  if (auto floatType = llvm::dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> out;
    for (double v : values) {
      APFloat f(v);
      bool lost;
      f.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      out.push_back(f);
    }
    return DenseElementsAttr::get(type, out);
  }
  SmallVector<APInt> out;
  for (double v : values)
    out.emplace_back(element.getIntOrFloatBitWidth(), int64_t(v),
                     /*isSigned=*/true);
  return DenseElementsAttr::get(type, out);
}

} // namespace

GraphEvaluator::GraphEvaluator() : context_(dialects()) {
  context_.loadAllAvailableDialects();
}

OwningOpRef<ModuleOp> GraphEvaluator::parse(StringRef text) {
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  ScopedDiagnosticHandler handler(&context_, [&](Diagnostic &d) {
    os << d << "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context_);
  EXPECT_TRUE(module) << diagnostics << "\n" << text.str();
  return module;
}

bool GraphEvaluator::run(ModuleOp module,
                         llvm::function_ref<void(PassManager &)> build,
                         std::string *diagnostics) {
  std::string messages;
  llvm::raw_string_ostream os(messages);
  ScopedDiagnosticHandler handler(&context_, [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      os << d << "\n";
    return success();
  });
  PassManager pm(&context_);
  build(pm);
  bool ok = succeeded(pm.run(module));
  if (diagnostics)
    *diagnostics = messages;
  return ok;
}

std::optional<Evaluation> GraphEvaluator::evaluate(ModuleOp module,
                                                   const GlobalValues &values) {
  OwningOpRef<ModuleOp> copy = module.clone();
  auto funcs = copy->getOps<func::FuncOp>();
  if (std::distance(funcs.begin(), funcs.end()) != 1) {
    ADD_FAILURE() << "expected one function";
    return std::nullopt;
  }
  func::FuncOp func = *funcs.begin();
  SmallVector<Operation *> loads;
  func.walk([&](Operation *op) {
    if (llvm::isa<ml_program::GlobalLoadConstOp, ml_program::GlobalLoadOp>(op))
      loads.push_back(op);
  });
  for (Operation *load : loads) {
    auto symbol = load->getAttrOfType<SymbolRefAttr>("global");
    std::string name = symbol.getRootReference().str();
    auto it = values.find(name);
    auto type = llvm::cast<RankedTensorType>(load->getResult(0).getType());
    DenseElementsAttr attr;
    if (it != values.end())
      attr = constantOf(type, it->second);
    if (!attr) {
      ADD_FAILURE() << "no value of the right size for @" << name;
      return std::nullopt;
    }
    OpBuilder builder(load);
    Value constant = hetg::ConstantOp::create(builder, load->getLoc(), attr);
    load->getResult(0).replaceAllUsesWith(constant);
    load->erase();
  }
  if (!run(*copy,
           [](PassManager &pm) { pm.addPass(createCanonicalizerPass()); })) {
    ADD_FAILURE() << "canonicalization failed";
    return std::nullopt;
  }
  auto readConstant = [&](Value value) -> std::optional<std::vector<double>> {
    DenseElementsAttr attr;
    if (matchPattern(value, m_Constant(&attr)))
      return readValues(attr);
    std::string text;
    llvm::raw_string_ostream os(text);
    if (Operation *op = value.getDefiningOp())
      op->print(os);
    ADD_FAILURE() << "did not fold to a constant: " << text;
    return std::nullopt;
  };
  Evaluation evaluation;
  Operation *terminator = func.getBody().front().getTerminator();
  for (Value result : terminator->getOperands()) {
    std::optional<std::vector<double>> v = readConstant(result);
    if (!v)
      return std::nullopt;
    evaluation.results.push_back(std::move(*v));
  }
  for (auto store : func.getOps<ml_program::GlobalStoreOp>()) {
    std::optional<std::vector<double>> v = readConstant(store.getValue());
    if (!v)
      return std::nullopt;
    evaluation.stores[store.getGlobal().getRootReference().str()] =
        std::move(*v);
  }
  return evaluation;
}

std::vector<double> initialValue(ModuleOp module, StringRef name) {
  auto global = SymbolTable::lookupSymbolIn(module, name);
  auto value = llvm::dyn_cast_if_present<DenseElementsAttr>(
      global ? global->getAttr("value") : Attribute());
  return value ? readValues(value) : std::vector<double>();
}

} // namespace hetc::testing
