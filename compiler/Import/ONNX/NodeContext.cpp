//===- NodeContext.cpp - what an op converter sees of one ONNX node
//--------===//

#include "compiler/Import/ONNX/NodeContext.h"

#include "compiler/Import/ONNX/TensorReader.h"
#include "dialects/HetGraph/ConstantEval.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"

#include <onnx/onnx_pb.h>

using namespace mlir;
using onnx::AttributeProto;

namespace hetc::onnximport {

NodeContext::NodeContext(OpBuilder &builder, Location loc,
                         const onnx::NodeProto &node, llvm::StringRef nodeName,
                         int64_t opset, llvm::SmallVector<Value> inputs,
                         llvm::StringMap<Value> &values,
                         llvm::StringMap<SplitSequence> &sequences,
                         const llvm::StringSet<> &usedNames,
                         TensorReader &tensors)
    : b(builder), location(loc), nodeProto(node), name(nodeName.str()),
      opsetVersion(opset), inputValues(std::move(inputs)), values(values),
      sequences(sequences), usedNames(usedNames), tensors(tensors) {}

llvm::StringRef NodeContext::opType() const { return nodeProto.op_type(); }

std::string NodeContext::describe() const {
  return "node '" + name + "' (" + nodeProto.op_type() + ", opset " +
         std::to_string(opsetVersion) + ")";
}

InFlightDiagnostic NodeContext::emitError() {
  return mlir::emitError(location) << describe() << ": ";
}

//===----------------------------------------------------------------------===//
// Inputs and outputs
//===----------------------------------------------------------------------===//

unsigned NodeContext::numOutputs() const { return nodeProto.output_size(); }

bool NodeContext::isOutputUsed(unsigned index) const {
  return index < numOutputs() && !nodeProto.output(index).empty() &&
         usedNames.contains(nodeProto.output(index));
}

void NodeContext::setOutput(unsigned index, Value value) {
  if (index < numOutputs() && !nodeProto.output(index).empty())
    values[nodeProto.output(index)] = value;
}

FailureOr<const SplitSequence *> NodeContext::sequenceInput(unsigned index) {
  auto found = index < unsigned(nodeProto.input_size())
                   ? sequences.find(nodeProto.input(index))
                   : sequences.end();
  if (found == sequences.end())
    return emitError() << "input " << index << " must be a sequence made by "
                       << "SplitToSequence (hetc imports no other sequences)";
  return &found->second;
}

void NodeContext::setSequenceOutput(unsigned index, SplitSequence sequence) {
  if (index < numOutputs() && !nodeProto.output(index).empty())
    sequences[nodeProto.output(index)] = std::move(sequence);
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

const AttributeProto *NodeContext::findAttribute(llvm::StringRef attr) const {
  for (const AttributeProto &a : nodeProto.attribute())
    if (a.name() == attr)
      return &a;
  return nullptr;
}

/// True when `attr` holds a value of `type`. Old models may leave the type
/// unset; then the filled field decides.
static bool hasType(const AttributeProto &attr,
                    AttributeProto::AttributeType type, bool fieldSet) {
  return attr.type() == type ||
         (attr.type() == AttributeProto::UNDEFINED && fieldSet);
}

FailureOr<int64_t> NodeContext::intAttr(llvm::StringRef attr,
                                        int64_t fallback) {
  FailureOr<std::optional<int64_t>> value = optionalIntAttr(attr);
  if (failed(value))
    return failure();
  return value->value_or(fallback);
}

FailureOr<std::optional<int64_t>>
NodeContext::optionalIntAttr(llvm::StringRef attr) {
  const AttributeProto *a = findAttribute(attr);
  if (!a)
    return std::optional<int64_t>();
  if (!hasType(*a, AttributeProto::INT, a->has_i()))
    return emitError() << "attribute '" << attr << "' must be an int";
  return std::optional<int64_t>(a->i());
}

FailureOr<float> NodeContext::floatAttr(llvm::StringRef attr, float fallback) {
  const AttributeProto *a = findAttribute(attr);
  if (!a)
    return fallback;
  if (!hasType(*a, AttributeProto::FLOAT, a->has_f()))
    return emitError() << "attribute '" << attr << "' must be a float";
  return a->f();
}

FailureOr<std::string> NodeContext::stringAttr(llvm::StringRef attr,
                                               llvm::StringRef fallback) {
  const AttributeProto *a = findAttribute(attr);
  if (!a)
    return fallback.str();
  if (!hasType(*a, AttributeProto::STRING, a->has_s()))
    return emitError() << "attribute '" << attr << "' must be a string";
  return a->s();
}

FailureOr<std::optional<llvm::SmallVector<int64_t>>>
NodeContext::intsAttr(llvm::StringRef attr) {
  const AttributeProto *a = findAttribute(attr);
  if (!a)
    return std::optional<llvm::SmallVector<int64_t>>();
  if (!hasType(*a, AttributeProto::INTS, a->ints_size() > 0))
    return emitError() << "attribute '" << attr << "' must be a list of ints";
  return std::optional<llvm::SmallVector<int64_t>>(
      llvm::SmallVector<int64_t>(a->ints().begin(), a->ints().end()));
}

FailureOr<std::optional<llvm::SmallVector<float>>>
NodeContext::floatsAttr(llvm::StringRef attr) {
  const AttributeProto *a = findAttribute(attr);
  if (!a)
    return std::optional<llvm::SmallVector<float>>();
  if (!hasType(*a, AttributeProto::FLOATS, a->floats_size() > 0))
    return emitError() << "attribute '" << attr << "' must be a list of floats";
  return std::optional<llvm::SmallVector<float>>(
      llvm::SmallVector<float>(a->floats().begin(), a->floats().end()));
}

FailureOr<std::optional<TensorData>>
NodeContext::tensorAttr(llvm::StringRef attr) {
  const AttributeProto *a = findAttribute(attr);
  if (!a)
    return std::optional<TensorData>();
  if (!hasType(*a, AttributeProto::TENSOR, a->has_t()))
    return emitError() << "attribute '" << attr << "' must be a tensor";
  FailureOr<TensorData> data = tensors.read(
      a->t(), location, describe() + ": attribute '" + attr.str() + "'");
  if (failed(data))
    return failure();
  return std::optional<TensorData>(std::move(*data));
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

static std::optional<hetg::ConstantValues> readConstantValue(Value value) {
  Attribute attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  return hetg::readConstant(attr);
}

std::optional<llvm::SmallVector<int64_t>>
NodeContext::constantInts(Value value) {
  std::optional<hetg::ConstantValues> constant = readConstantValue(value);
  if (!constant || constant->isFloat)
    return std::nullopt;
  return llvm::SmallVector<int64_t>(constant->ints.begin(),
                                    constant->ints.end());
}

std::optional<llvm::SmallVector<double>>
NodeContext::constantFloats(Value value) {
  std::optional<hetg::ConstantValues> constant = readConstantValue(value);
  if (!constant)
    return std::nullopt;
  llvm::SmallVector<double> out;
  for (int64_t i = 0; i < constant->size(); ++i)
    out.push_back(constant->asDouble(i));
  return out;
}

FailureOr<llvm::SmallVector<int64_t>>
NodeContext::requireConstantInts(unsigned index, llvm::StringRef role,
                                 llvm::StringRef why) {
  Value value = input(index);
  if (!value)
    return emitError() << "input " << index << " (" << role << ") is missing";
  Type element = typeOf(value).getElementType();
  if (!element.isSignlessInteger(64) && !element.isSignlessInteger(32))
    return emitError() << "input " << index << " (" << role
                       << ") must hold int64 values, not " << element;
  std::optional<llvm::SmallVector<int64_t>> ints = constantInts(value);
  if (!ints)
    return emitError() << "input " << index << " (" << role
                       << ") must be a constant (an initializer, a Constant "
                       << "node, or shape arithmetic on static shapes): hetc "
                       << why;
  return *ints;
}

Value NodeContext::constant(ElementsAttr value) {
  return hetg::ConstantOp::create(b, location, value);
}

Value NodeContext::i64Constant(llvm::ArrayRef<int64_t> elements) {
  auto type = RankedTensorType::get({int64_t(elements.size())}, b.getI64Type());
  return constant(DenseElementsAttr::get(type, elements));
}

Value NodeContext::scalarConstant(Type elementType, double value) {
  auto type = RankedTensorType::get({}, elementType);
  if (auto floatType = llvm::dyn_cast<FloatType>(elementType))
    return constant(DenseElementsAttr::get(
        type, b.getFloatAttr(floatType, value).getValue()));
  unsigned width = elementType.getIntOrFloatBitWidth();
  return constant(DenseElementsAttr::get(
      type, llvm::APInt(width, static_cast<uint64_t>(int64_t(value)),
                        /*isSigned=*/true, /*implicitTrunc=*/true)));
}

//===----------------------------------------------------------------------===//
// Building ops
//===----------------------------------------------------------------------===//

LogicalResult NodeContext::checkOperands(const OperationState &state) {
  for (auto [index, operand] : llvm::enumerate(state.operands))
    if (!operand)
      return emitError() << "lacks an input that " << state.name
                         << " needs (operand #" << index
                         << " is an empty input name)";
  return success();
}

LogicalResult NodeContext::reportFailure(
    llvm::StringRef opName,
    llvm::function_ref<LogicalResult(std::optional<Location>)> fn) {
  std::string message;
  LogicalResult result = success();
  {
    ScopedDiagnosticHandler capture(b.getContext(), [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error && message.empty())
        message = diag.str();
      return success();
    });
    result = fn(location);
  }
  if (succeeded(result))
    return success();
  if (message.empty())
    message = "invalid operands or attributes";
  return emitError() << "cannot build " << opName << ": " << message;
}

FailureOr<Value> NodeContext::finish(OperationState &state) {
  Operation *op = b.create(state);
  if (failed(reportFailure(
          op->getName().getStringRef(),
          [&](std::optional<Location>) { return mlir::verify(op); }))) {
    op->erase();
    return failure();
  }
  llvm::SmallVector<Value, 1> folded;
  if (succeeded(b.tryFold(op, folded)) && !folded.empty()) {
    op->erase();
    return folded.front();
  }
  return op->getResult(0);
}

} // namespace hetc::onnximport
