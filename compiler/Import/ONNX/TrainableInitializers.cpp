//===- TrainableInitializers.cpp - which initializers are parameters ------===//

#include "compiler/Import/ONNX/TrainableInitializers.h"

#include "compiler/Import/ONNX/ONNXImporter.h"
#include "support/BoundedJSON.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

#include <onnx/onnx_pb.h>

using namespace mlir;

namespace hetc::onnximport {

namespace {

bool matchesAny(llvm::ArrayRef<llvm::GlobPattern> patterns,
                llvm::StringRef name) {
  return llvm::any_of(patterns, [&](const llvm::GlobPattern &pattern) {
    return pattern.match(name);
  });
}

/// Up to three initializer names closest to `pattern` by edit distance.
std::string nearNames(const onnx::GraphProto &graph, llvm::StringRef pattern) {
  std::vector<std::pair<unsigned, std::string>> ranked;
  for (const onnx::TensorProto &tensor : graph.initializer())
    ranked.push_back({pattern.edit_distance(tensor.name()), tensor.name()});
  llvm::stable_sort(ranked, llvm::less_first());
  ranked.resize(std::min<size_t>(ranked.size(), 3));
  return llvm::join(llvm::map_range(ranked,
                                    [](const auto &entry) {
                                      return "'" + entry.second + "'";
                                    }),
                    ", ");
}

/// Compiles `texts`; each must match some initializer of `graph`.
LogicalResult compilePatterns(const onnx::GraphProto &graph,
                              llvm::ArrayRef<std::string> texts,
                              llvm::StringRef flag, Location loc,
                              std::vector<llvm::GlobPattern> &patterns) {
  for (const std::string &text : texts) {
    llvm::Expected<llvm::GlobPattern> pattern = llvm::GlobPattern::create(text);
    if (!pattern)
      return emitError(loc) << flag << " '" << text << "' is not a valid glob: "
                            << llvm::toString(pattern.takeError());
    bool matched = llvm::any_of(graph.initializer(),
                                [&](const onnx::TensorProto &tensor) {
                                  return pattern->match(tensor.name());
                                });
    if (!matched)
      return emitError(loc)
             << flag << " '" << text << "' matches no initializer of the "
             << "model; the nearest names are " << nearNames(graph, text)
             << " (`hetc inspect` of a package or `hetc import` lists them)";
    patterns.push_back(std::move(*pattern));
  }
  return success();
}

/// The names listed under kBuffersMetadataKey: a JSON array of strings.
LogicalResult readBufferList(const onnx::ModelProto &model, Location loc,
                             llvm::StringMap<bool> &buffers) {
  for (const onnx::StringStringEntryProto &entry : model.metadata_props()) {
    if (entry.key() != kBuffersMetadataKey)
      continue;
    llvm::Expected<llvm::json::Value> parsed = parseBoundedJSON(entry.value());
    const llvm::json::Array *names = parsed ? parsed->getAsArray() : nullptr;
    if (!parsed)
      llvm::consumeError(parsed.takeError());
    bool valid = names && llvm::all_of(*names, [](const llvm::json::Value &v) {
                   return v.getAsString().has_value();
                 });
    if (!valid)
      return emitError(loc)
             << "metadata '" << kBuffersMetadataKey
             << "' must be a JSON array of initializer names, e.g. "
             << "[\"rotary_emb.inv_freq\"]";
    for (const llvm::json::Value &name : *names)
      buffers[*name.getAsString()] = true;
  }
  return success();
}

} // namespace

FailureOr<TrainableInitializers>
TrainableInitializers::create(const onnx::ModelProto &model,
                              llvm::ArrayRef<std::string> freeze,
                              llvm::ArrayRef<std::string> train, Location loc) {
  TrainableInitializers selection;
  if (failed(compilePatterns(model.graph(), freeze, "--freeze", loc,
                             selection.freeze)) ||
      failed(compilePatterns(model.graph(), train, "--train", loc,
                             selection.train)) ||
      failed(readBufferList(model, loc, selection.buffers)))
    return failure();
  return selection;
}

std::optional<std::string>
TrainableInitializers::frozenReason(llvm::StringRef name) const {
  // Explicit globs win over the export's buffer list.
  if (matchesAny(freeze, name))
    return std::string("matched by --freeze");
  if (!train.empty())
    return matchesAny(train, name)
               ? std::nullopt
               : std::optional<std::string>("not matched by --train");
  if (buffers.contains(name))
    return "a buffer (metadata '" + kBuffersMetadataKey.str() + "')";
  return std::nullopt;
}

} // namespace hetc::onnximport
