//===- GraphImporter.cpp - the ONNX graph walk
//-----------------------------===//
//
// Builds the module: one `ml_program.global` per trainable float weight,
// then `func.func @main` whose arguments are the graph inputs that are not
// initializers. Nodes are converted in graph order through the op table;
// initializers are materialized where first used (a global load, or an
// inline hetg.constant for integer, bool and single-element tensors, which
// are shape arithmetic and scalars that must fold, and for frozen weights,
// which are constants of the step and fold the same way).
//
//===----------------------------------------------------------------------===//

#include "compiler/Import/ONNX/NodeContext.h"
#include "compiler/Import/ONNX/ONNXImporter.h"
#include "compiler/Import/ONNX/OpTable.h"
#include "compiler/Import/ONNX/TensorReader.h"
#include "compiler/Import/ONNX/TrainableInitializers.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringExtras.h"

#include <onnx/onnx_pb.h>

using namespace mlir;

namespace hetc::onnximport {

namespace {

constexpr llvm::StringLiteral kEntryName = "main";

/// Float tensors with more than one element are weights; everything else
/// is shape arithmetic or a scalar and stays inline.
bool isWeight(const onnx::TensorProto &tensor) {
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
  case onnx::TensorProto::DOUBLE:
    break;
  default:
    return false;
  }
  int64_t count = 1;
  for (int64_t d : tensor.dims())
    count *= d;
  return count > 1;
}

class GraphImporter {
public:
  GraphImporter(MLIRContext &context, const onnx::ModelProto &model,
                const ONNXImportOptions &options)
      : context(context), model(model), graph(model.graph()), options(options),
        builder(&context), tensors(options.modelPath),
        loadWeights(options.loadWeights),
        warnSharedWeights(options.warnSharedWeights),
        fileLoc(FileLineColLoc::get(
            &context, options.modelPath.empty() ? "<onnx>" : options.modelPath,
            0, 0)) {}

  FailureOr<OwningOpRef<ModuleOp>> run();

private:
  Location nameLoc(llvm::StringRef name) {
    return NameLoc::get(StringAttr::get(&context, name), fileLoc);
  }
  InFlightDiagnostic emitGraphError() { return emitError(fileLoc); }

  LogicalResult readOpset();
  LogicalResult declareInitializers(const TrainableInitializers &trainable);
  LogicalResult declareFrozen(const onnx::TensorProto &tensor, Location loc,
                              std::optional<TensorData> data,
                              std::string reason);
  LogicalResult createFunction();
  FailureOr<Value> lookup(llvm::StringRef name);
  LogicalResult importNode(const onnx::NodeProto &node, int index);
  LogicalResult checkDeclaredType(const onnx::ValueInfoProto &output,
                                  Value value);
  LogicalResult finishFunction();
  void warnAboutSharedWeights();

  MLIRContext &context;
  const onnx::ModelProto &model;
  const onnx::GraphProto &graph;
  const ONNXImportOptions &options;
  OpBuilder builder;
  TensorReader tensors;
  bool loadWeights;
  bool warnSharedWeights;
  Location fileLoc;
  int64_t opset = 0;

  OwningOpRef<ModuleOp> module;
  func::FuncOp function;
  /// Values of graph inputs, node outputs and materialized initializers.
  llvm::StringMap<Value> values;
  /// Sequence-valued node outputs (SplitToSequence), by name.
  llvm::StringMap<SplitSequence> sequences;
  /// Initializers not materialized yet, by name.
  llvm::StringMap<const onnx::TensorProto *> pendingConstants;
  /// The values of frozen weights (a subset of pendingConstants).
  llvm::StringMap<ElementsAttr> frozenValues;
  /// hetg.frozen_initializers: name -> [elements, reason].
  NamedAttrList frozenInitializers;
  llvm::StringMap<ml_program::GlobalOp> globals;
  /// Every name some node or the graph output reads.
  llvm::StringSet<> usedNames;
  /// The nodes (by name, in graph order, each once) reading each weight.
  llvm::StringMap<SmallVector<std::string, 2>> weightConsumers;
};

LogicalResult GraphImporter::readOpset() {
  bool found = false;
  for (const onnx::OperatorSetIdProto &import : model.opset_import()) {
    if (!import.domain().empty() && import.domain() != "ai.onnx")
      continue;
    opset = import.version();
    found = true;
  }
  if (!found)
    return emitGraphError() << "the model imports no version of the default "
                            << "ONNX opset; hetc imports opsets "
                            << kMinONNXOpset << " to " << kMaxONNXOpset;
  if (opset < kMinONNXOpset || opset > kMaxONNXOpset)
    return emitGraphError()
           << "the model uses ONNX opset " << opset << "; hetc imports opsets "
           << kMinONNXOpset << " to " << kMaxONNXOpset
           << " (re-export it, e.g. torch.onnx.export(..., opset_version=17))";
  return success();
}

LogicalResult GraphImporter::declareFrozen(const onnx::TensorProto &tensor,
                                          Location loc,
                                          std::optional<TensorData> data,
                                          std::string reason) {
  const std::string &name = tensor.name();
  ElementsAttr value;
  if (data) {
    value = data->toElementsAttr();
  } else {
    // --no-weights on a weight stored outside the model: shapes only.
    FailureOr<RankedTensorType> type =
        tensorType(tensor, loc, "initializer '" + name + "'");
    if (failed(type))
      return failure();
    value = DenseElementsAttr::get(
        *type, builder.getFloatAttr(type->getElementType(), 0.0));
  }
  pendingConstants[name] = &tensor;
  frozenValues[name] = value;
  frozenInitializers.append(
      name, builder.getArrayAttr(
                {builder.getI64IntegerAttr(value.getNumElements()),
                 builder.getStringAttr(reason)}));
  return success();
}

LogicalResult
GraphImporter::declareInitializers(const TrainableInitializers &trainable) {
  builder.setInsertionPointToEnd(module->getBody());
  for (const onnx::TensorProto &tensor : graph.initializer()) {
    const std::string &name = tensor.name();
    if (name.empty())
      return emitGraphError() << "the graph has an initializer without a name";
    if (values.count(name) || pendingConstants.count(name) ||
        globals.count(name))
      return emitGraphError()
             << "initializer '" << name << "' is defined twice";
    if (!isWeight(tensor)) {
      pendingConstants[name] = &tensor;
      continue;
    }
    if (name == kEntryName)
      return emitGraphError() << "weight initializer '" << name
                              << "' has the name of the entry function; "
                              << "rename it";
    Location loc = nameLoc(name);
    std::string what = "initializer '" + name + "'";
    std::optional<std::string> frozen = trainable.frozenReason(name);
    // A non-finite weight is frozen whatever the flags: its values are
    // checked where weights are read, and inside the model file otherwise.
    // A frozen weight is read even then, since it may fold.
    bool external = tensor.data_location() == onnx::TensorProto::EXTERNAL;
    std::optional<TensorData> data;
    if (loadWeights) {
      FailureOr<TensorData> read = tensors.read(tensor, loc, what);
      if (failed(read))
        return failure();
      data = std::move(*read);
      if (data->hasNonFinite())
        frozen = kNonFiniteReason.str();
    } else if (!external) {
      FailureOr<bool> nonFinite = tensors.holdsNonFinite(tensor, loc, what);
      if (failed(nonFinite))
        return failure();
      if (*nonFinite)
        frozen = kNonFiniteReason.str();
      if (frozen) {
        FailureOr<TensorData> read = tensors.read(tensor, loc, what);
        if (failed(read))
          return failure();
        data = std::move(*read);
      }
    }
    if (frozen) {
      if (failed(declareFrozen(tensor, loc, std::move(data), *frozen)))
        return failure();
      continue;
    }
    if (!loadWeights) {
      FailureOr<RankedTensorType> type = tensorType(tensor, loc, what);
      if (failed(type))
        return failure();
      auto zero = DenseElementsAttr::get(
          *type, builder.getFloatAttr(type->getElementType(), 0.0));
      globals[name] = ml_program::GlobalOp::create(
          builder, loc, name, *type, /*is_mutable=*/false, zero,
          builder.getStringAttr("private"));
      continue;
    }
    AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
        data->bytes, alignof(uint64_t));
    auto value =
        DenseResourceElementsAttr::get(data->type, name, std::move(blob));
    globals[name] = ml_program::GlobalOp::create(
        builder, loc, name, data->type, /*is_mutable=*/false, value,
        builder.getStringAttr("private"));
  }
  return success();
}

LogicalResult GraphImporter::createFunction() {
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    const std::string &name = input.name();
    // Older exporters list initializers among the inputs too.
    if (pendingConstants.count(name) || globals.count(name))
      continue;
    if (llvm::is_contained(argNames, name))
      return emitGraphError() << "graph input '" << name << "' is listed twice";
    FailureOr<RankedTensorType> type = convertTensorType(
        input.type(), nameLoc(name), "graph input '" + name + "'");
    if (failed(type))
      return failure();
    argTypes.push_back(*type);
    argNames.push_back(name);
  }
  builder.setInsertionPointToEnd(module->getBody());
  function = func::FuncOp::create(builder, fileLoc, kEntryName,
                                  builder.getFunctionType(argTypes, {}));
  Block *entry = function.addEntryBlock();
  for (auto [i, name] : llvm::enumerate(argNames)) {
    function.setArgAttr(i, hetg::kNameAttr, builder.getStringAttr(name));
    values[name] = entry->getArgument(i);
  }
  builder.setInsertionPointToEnd(entry);
  return success();
}

FailureOr<Value> GraphImporter::lookup(llvm::StringRef name) {
  auto known = values.find(name);
  if (known != values.end())
    return known->second;
  if (auto global = globals.find(name); global != globals.end()) {
    ml_program::GlobalOp op = global->second;
    Value loaded = ml_program::GlobalLoadConstOp::create(
        builder, op.getLoc(), op.getType(), FlatSymbolRefAttr::get(op));
    values[name] = loaded;
    return loaded;
  }
  if (auto frozen = frozenValues.find(name); frozen != frozenValues.end()) {
    Value constant =
        hetg::ConstantOp::create(builder, nameLoc(name), frozen->second);
    values[name] = constant;
    return constant;
  }
  if (auto pending = pendingConstants.find(name);
      pending != pendingConstants.end()) {
    Location loc = nameLoc(name);
    FailureOr<TensorData> data =
        tensors.read(*pending->second, loc, "initializer '" + name.str() + "'");
    if (failed(data))
      return failure();
    Value constant =
        hetg::ConstantOp::create(builder, loc, data->toElementsAttr());
    values[name] = constant;
    return constant;
  }
  return failure();
}

LogicalResult GraphImporter::importNode(const onnx::NodeProto &node,
                                        int index) {
  std::string name = node.name().empty()
                         ? node.op_type() + "_" + std::to_string(index)
                         : node.name();
  Location loc = nameLoc(name);
  bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
  const OpTable &table = onnxOpTable();
  auto entry = defaultDomain ? table.find(node.op_type()) : table.end();
  if (entry == table.end()) {
    std::string opType =
        defaultDomain ? node.op_type() : node.domain() + "." + node.op_type();
    InFlightDiagnostic error = emitError(loc)
                               << "node '" << name << "' has op type '"
                               << opType << "' (opset " << opset
                               << "), which hetc cannot import";
    if (StringRef advice = adviceForUnsupportedOp(opType); !advice.empty())
      error << "; " << advice;
    return error << "; supported op types: "
                 << llvm::join(supportedONNXOps(), ", ");
  }
  const OpConverter &converter = entry->second;
  auto describe = [&] {
    return "node '" + name + "' (" + node.op_type() + ", opset " +
           std::to_string(opset) + "): ";
  };

  unsigned numInputs = node.input_size();
  if (numInputs > converter.maxInputs)
    return emitError(loc) << describe() << "has " << numInputs
                          << " inputs; hetc supports at most "
                          << converter.maxInputs;
  if (unsigned(node.output_size()) > std::max(1u, converter.maxOutputs))
    return emitError(loc) << describe() << "has " << node.output_size()
                          << " outputs; hetc supports at most "
                          << converter.maxOutputs;
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < numInputs; ++i) {
    const std::string &inputName = node.input(i);
    // A sequence is not a Value: the converter reads it by name.
    if (inputName.empty() || sequences.count(inputName)) {
      inputs.push_back(Value());
      continue;
    }
    FailureOr<Value> value = lookup(inputName);
    if (failed(value))
      return emitError(loc) << describe() << "input " << i << " '" << inputName
                            << "' is not defined by an earlier "
                            << "node, a graph input or an initializer";
    inputs.push_back(*value);
    if (globals.count(inputName)) {
      SmallVector<std::string, 2> &consumers = weightConsumers[inputName];
      if (consumers.empty() || consumers.back() != name)
        consumers.push_back(name);
    }
  }
  for (unsigned i = 0; i < converter.minInputs; ++i)
    if (i >= inputs.size() || (!inputs[i] && !sequences.count(node.input(i))))
      return emitError(loc)
             << describe() << "input " << i << " is required but missing";
  for (const std::string &output : node.output())
    if (!output.empty() && (values.count(output) || globals.count(output) ||
                            pendingConstants.count(output) ||
                            sequences.count(output)))
      return emitError(loc)
             << describe() << "output '" << output << "' is already defined";

  NodeContext ctx(builder, loc, node, name, opset, std::move(inputs), values,
                  sequences, usedNames, tensors);
  if (failed(converter.convert(ctx)))
    return failure();
  for (auto [i, output] : llvm::enumerate(node.output()))
    if (!output.empty() && usedNames.contains(output) &&
        !values.count(output) && !sequences.count(output))
      return emitError(loc) << describe() << "output " << i << " ('" << output
                            << "') is used but hetc cannot "
                            << "produce it";
  return success();
}

LogicalResult
GraphImporter::checkDeclaredType(const onnx::ValueInfoProto &output,
                                 Value value) {
  if (!output.type().has_tensor_type())
    return success();
  const onnx::TypeProto::Tensor &declared = output.type().tensor_type();
  auto type = llvm::cast<RankedTensorType>(value.getType());
  bool matches = declared.elem_type() == onnx::TensorProto::UNDEFINED ||
                 declared.elem_type() == onnxDataType(type.getElementType());
  if (declared.has_shape()) {
    matches = matches && declared.shape().dim_size() == type.getRank();
    for (int64_t d = 0; matches && d < type.getRank(); ++d) {
      const auto &dim = declared.shape().dim(d);
      matches = !dim.has_dim_value() || type.isDynamicDim(d) ||
                dim.dim_value() == type.getDimSize(d);
    }
  }
  if (matches)
    return success();
  std::string shape;
  if (declared.has_shape())
    shape = llvm::join(llvm::map_range(declared.shape().dim(),
                                       [](const auto &dim) {
                                         return dim.has_dim_value()
                                                    ? std::to_string(
                                                          dim.dim_value())
                                                    : std::string("?");
                                       }),
                       "x");
  return emitGraphError() << "graph output '" << output.name()
                          << "' is declared as "
                          << dataTypeName(declared.elem_type()) << " [" << shape
                          << "], but the imported graph computes " << type
                          << " for it";
}

LogicalResult GraphImporter::finishFunction() {
  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    FailureOr<Value> value = lookup(output.name());
    if (failed(value))
      return emitGraphError() << "graph output '" << output.name()
                              << "' is not computed by any node";
    if (failed(checkDeclaredType(output, *value)))
      return failure();
    results.push_back(*value);
  }
  func::ReturnOp::create(builder, fileLoc, results);
  function.setType(builder.getFunctionType(function.getArgumentTypes(),
                                           ValueRange(results).getTypes()));
  for (auto [i, output] : llvm::enumerate(graph.output()))
    function.setResultAttr(i, hetg::kNameAttr, builder.getStringAttr(output.name()));
  return success();
}

/// The layer of a node: its name up to the last '/' (torch names nodes
/// '/h.0/attn/MatMul'); a name without '/' is the top level.
StringRef layerOf(StringRef nodeName) {
  size_t slash = nodeName.rfind('/');
  return slash == StringRef::npos ? StringRef() : nodeName.take_front(slash);
}

void GraphImporter::warnAboutSharedWeights() {
  for (const onnx::TensorProto &tensor : graph.initializer()) {
    auto global = globals.find(tensor.name());
    auto consumers = weightConsumers.find(tensor.name());
    if (global == globals.end() || consumers == weightConsumers.end())
      continue;
    ArrayRef<std::string> nodes = consumers->second;
    StringRef firstLayer = layerOf(nodes.front());
    const std::string *other = llvm::find_if(
        nodes, [&](const std::string &n) { return layerOf(n) != firstLayer; });
    if (other == nodes.end())
      continue;
    emitWarning(global->second.getLoc())
        << "parameter '" << tensor.name() << "' is shared by " << nodes.size()
        << " uses in different layers (e.g. '" << nodes.front() << "' and '"
        << *other << "'); ONNX says they are one tied parameter and hetc "
        << "trains them as one. If the exporter merged equal initializers, "
        << "pass --untie-weights; if it is a buffer (a table or mask that "
        << "is not trained), pass --freeze '" << tensor.name() << "'";
  }
}

FailureOr<OwningOpRef<ModuleOp>> GraphImporter::run() {
  module = ModuleOp::create(fileLoc);
  if (failed(readOpset()))
    return failure();
  FailureOr<TrainableInitializers> trainable = TrainableInitializers::create(
      model, options.freeze, options.train, fileLoc);
  if (failed(trainable) || failed(declareInitializers(*trainable)) ||
      failed(createFunction()))
    return failure();
  if (!frozenInitializers.empty())
    (*module)->setAttr(hetg::kFrozenInitializersAttr,
                       frozenInitializers.getDictionary(&context));
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &input : node.input())
      usedNames.insert(input);
  for (const onnx::ValueInfoProto &output : graph.output())
    usedNames.insert(output.name());
  for (auto [index, node] : llvm::enumerate(graph.node()))
    if (failed(importNode(node, index)))
      return failure();
  if (failed(finishFunction()))
    return failure();
  if (warnSharedWeights)
    warnAboutSharedWeights();
  // Constants read only for their values (axes, shapes) and shape
  // arithmetic that folded away are left without uses.
  for (Operation &op : llvm::make_early_inc_range(
           llvm::reverse(function.getBody().front().getOperations())))
    if (isOpTriviallyDead(&op))
      op.erase();
  if (failed(verify(*module)))
    return emitGraphError() << "internal error: the imported module does not "
                            << "verify (an importer bug; please report it "
                            << "with the model)";
  return std::move(module);
}

} // namespace

} // namespace hetc::onnximport

namespace hetc {

FailureOr<OwningOpRef<ModuleOp>>
importONNXModel(MLIRContext &context, const onnx::ModelProto &model,
                const ONNXImportOptions &options) {
  context.loadDialect<hetg::HetGraphDialect, func::FuncDialect,
                      ml_program::MLProgramDialect>();
  onnximport::GraphImporter importer(context, model, options);
  return importer.run();
}

FailureOr<OwningOpRef<ModuleOp>> importONNXFile(MLIRContext &context,
                                                llvm::StringRef path,
                                                ONNXImportOptions options) {
  onnx::ModelProto model;
  if (failed(loadONNXModel(context, path, model)))
    return failure();
  options.modelPath = path.str();
  return importONNXModel(context, model, options);
}

} // namespace hetc
