//===- CheckpointTensors.cpp ----------------------------------------------===//

#include "runtime/exec/CheckpointTensors.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

namespace hetc::runtime::exec {
namespace {

using hetc::package::NamedTensor;

struct Piece {
  int rank;
  int64_t begin, end;
  const NamedTensor *tensor;
};

// Whole: held by one rank (the lowest) as is. Sharded: the pieces.
struct TensorParts {
  const NamedTensor *whole = nullptr;
  int wholeRank = -1;
  std::vector<Piece> pieces;
};

bool parseIndex(const std::string &text, int64_t *value) {
  if (text.empty() || text.size() > 18 ||
      !std::all_of(text.begin(), text.end(),
                   [](unsigned char c) { return std::isdigit(c); }))
    return false;
  *value = std::stoll(text);
  return true;
}

// "NAME[begin:end]" -> NAME, begin, end.
bool parsePieceName(const std::string &name, std::string *base, int64_t *begin,
                    int64_t *end) {
  size_t open = name.rfind('[');
  if (name.empty() || name.back() != ']' || open == std::string::npos ||
      open == 0)
    return false;
  size_t colon = name.find(':', open);
  if (colon == std::string::npos)
    return false;
  if (!parseIndex(name.substr(open + 1, colon - open - 1), begin) ||
      !parseIndex(name.substr(colon + 1, name.size() - colon - 2), end))
    return false;
  *base = name.substr(0, open);
  return true;
}

// The parameter P when `state` is "P.<suffix>", the longest such P.
const NamedTensor *
parameterOf(const std::string &state,
            const std::map<std::string, const NamedTensor *> &parameters) {
  for (size_t dot = state.rfind('.'); dot != std::string::npos && dot > 0;
       dot = state.rfind('.', dot - 1)) {
    auto it = parameters.find(state.substr(0, dot));
    if (it != parameters.end())
      return it->second;
  }
  return nullptr;
}

std::string range(int64_t begin, int64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

// `what` names the kind in messages ("parameter", "optimizer state");
// `wholeShape` is NAME's shape when the package gives it (else nullptr).
Status joinPieces(const char *what, const std::string &name,
                  std::vector<Piece> pieces,
                  const std::vector<int64_t> *wholeShape,
                  const std::map<std::string, const NamedTensor *> &parameters,
                  NamedTensor *state) {
  std::sort(pieces.begin(), pieces.end(), [](const Piece &a, const Piece &b) {
    return std::tie(a.begin, a.end, a.rank) < std::tie(b.begin, b.end, b.rank);
  });
  state->name = name;
  state->dtype = pieces[0].tensor->dtype;
  int64_t covered = 0;
  const Piece *previous = nullptr;
  for (const Piece &piece : pieces) {
    if (piece.tensor->dtype != state->dtype)
      return invalidArgument(what, " '", name, "' has ", state->dtype,
                             " pieces on rank ", pieces[0].rank, " and ",
                             piece.tensor->dtype, " pieces on rank ",
                             piece.rank);
    if (piece.begin == piece.end)
      continue;
    if (piece.begin > covered)
      return dataLoss(what, " '", name, "': no rank holds elements ",
                      range(covered, piece.begin));
    if (piece.begin < covered)
      return dataLoss(what, " '", name, "': elements ",
                      range(piece.begin, std::min(covered, piece.end)),
                      " are held by rank ", previous->rank, " and rank ",
                      piece.rank);
    const std::vector<uint8_t> &data = piece.tensor->data;
    state->data.insert(state->data.end(), data.begin(), data.end());
    covered = piece.end;
    previous = &piece;
  }
  const NamedTensor *parameter =
      wholeShape ? nullptr : parameterOf(name, parameters);
  if (!wholeShape && !parameter) {
    state->shape = {covered};
    return okStatus();
  }
  const std::vector<int64_t> &shape =
      wholeShape ? *wholeShape : parameter->shape;
  std::string source = wholeShape ? std::string("the package")
                                  : "parameter '" + parameter->name + "'";
  int64_t numel = numElements(shape);
  if (covered < numel)
    return dataLoss(what, " '", name, "': no rank holds elements ",
                    range(covered, numel), " (", source, " gives it ", numel,
                    " elements)");
  if (covered > numel)
    return dataLoss(what, " '", name, "' has pieces up to element ", covered,
                    " but ", source, " gives it ", numel, " elements");
  state->shape = shape;
  return okStatus();
}

} // namespace

Status takeRankTensors(const RankExecutor &executor, RankTensors *tensors) {
  tensors->rank = executor.rank();
  HETC_RETURN_IF_ERROR(
      executor.snapshot(hetc::pkg::PARAMETER, &tensors->parameters));
  HETC_RETURN_IF_ERROR(
      executor.snapshot(hetc::pkg::OPTIMIZER_STATE, &tensors->optimizerState));
  tensors->wholeShapes = wholeShapesOf(executor.program());
  return okStatus();
}

std::map<std::string, std::vector<int64_t>>
wholeShapesOf(const hetc::pkg::Program &program) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const hetc::pkg::Buffer &buffer : program.buffers())
    if (buffer.whole_shape_size() > 0)
      shapes[buffer.name()].assign(buffer.whole_shape().begin(),
                                   buffer.whole_shape().end());
  return shapes;
}

namespace {

/// Joins one kind of tensor over the ranks (see assembleCheckpoint).
Status assembleKind(const char *what, const std::vector<RankTensors> &ranks,
                    std::vector<NamedTensor> RankTensors::*member,
                    const std::map<std::string, const NamedTensor *> &parameters,
                    std::vector<NamedTensor> *joined) {
  std::map<std::string, TensorParts> tensors;
  std::map<std::string, const std::vector<int64_t> *> wholeShapes;
  std::vector<std::string> order;
  for (const RankTensors &rank : ranks) {
    for (const NamedTensor &tensor : rank.*member) {
      std::string name;
      int64_t begin, end;
      bool isPiece = parsePieceName(tensor.name, &name, &begin, &end);
      if (!isPiece)
        name = tensor.name;
      auto [it, inserted] = tensors.try_emplace(name);
      if (inserted)
        order.push_back(name);
      TensorParts &parts = it->second;
      if (!isPiece) {
        if (!parts.whole) {
          parts.whole = &tensor;
          parts.wholeRank = rank.rank;
        }
        continue;
      }
      if (begin > end || tensor.shape != std::vector<int64_t>{end - begin})
        return invalidArgument(what, " piece '", tensor.name, "' on rank ",
                               rank.rank, " has shape ",
                               shapeToString(tensor.shape),
                               "; a piece [begin:end] is 1-D with end - begin "
                               "elements");
      parts.pieces.push_back({rank.rank, begin, end, &tensor});
      if (auto shape = rank.wholeShapes.find(tensor.name);
          shape != rank.wholeShapes.end())
        wholeShapes[name] = &shape->second;
    }
  }
  for (const std::string &name : order) {
    const TensorParts &parts = tensors[name];
    if (parts.whole && !parts.pieces.empty())
      return invalidArgument(what, " '", name, "' is held whole by rank ",
                             parts.wholeRank, " and in pieces by rank ",
                             parts.pieces[0].rank);
    NamedTensor tensor;
    if (parts.whole)
      tensor = *parts.whole;
    else
      HETC_RETURN_IF_ERROR(joinPieces(what, name, parts.pieces,
                                      wholeShapes.count(name)
                                          ? wholeShapes[name]
                                          : nullptr,
                                      parameters, &tensor));
    joined->push_back(std::move(tensor));
  }
  return okStatus();
}

} // namespace

Status assembleCheckpoint(const std::vector<RankTensors> &ranks,
                          CheckpointTensors *checkpoint) {
  *checkpoint = CheckpointTensors();
  HETC_RETURN_IF_ERROR(assembleKind("parameter", ranks,
                                    &RankTensors::parameters, {},
                                    &checkpoint->parameters));
  std::map<std::string, const NamedTensor *> parameters;
  for (const NamedTensor &tensor : checkpoint->parameters)
    parameters.emplace(tensor.name, &tensor);
  return assembleKind("optimizer state", ranks, &RankTensors::optimizerState,
                      parameters, &checkpoint->optimizerState);
}

Status checkpointBytes(
    const std::map<std::string, const NamedTensor *> &tensors,
    const hetc::pkg::Buffer &buffer, std::vector<uint8_t> *bytes) {
  std::string dtype = packageDTypeName(buffer.dtype());
  std::vector<int64_t> shape(buffer.shape().begin(), buffer.shape().end());
  auto type = [](const std::string &dtype, const std::vector<int64_t> &shape) {
    std::string text = dtype + "[";
    for (size_t i = 0; i < shape.size(); ++i)
      text += (i ? "," : "") + std::to_string(shape[i]);
    return text + "]";
  };
  auto whole = tensors.find(buffer.name());
  if (whole != tensors.end()) {
    const NamedTensor &tensor = *whole->second;
    if (tensor.dtype != dtype || tensor.shape != shape)
      return invalidArgument("the checkpoint's '", tensor.name, "' is ",
                             type(tensor.dtype, tensor.shape),
                             " but the package's is ", type(dtype, shape));
    *bytes = tensor.data;
    return okStatus();
  }
  std::string base = buffer.name();
  int64_t begin = 0, end = 0;
  bool piece = parsePieceName(buffer.name(), &base, &begin, &end);
  auto found = piece ? tensors.find(base) : tensors.end();
  if (found == tensors.end())
    return notFound("the checkpoint has no tensor '", base,
                    "' (it was saved from another model or optimizer)");
  const NamedTensor &tensor = *found->second;
  int64_t numel = numElements(tensor.shape);
  if (tensor.dtype != dtype || begin < 0 || end > numel ||
      end - begin != numElements(shape))
    return invalidArgument("the checkpoint's '", tensor.name, "' is ",
                           type(tensor.dtype, tensor.shape),
                           "; the package's piece '", buffer.name(),
                           "' needs ", dtype, " elements [", begin, ", ", end,
                           ")");
  size_t width = static_cast<size_t>(hetc::package::safetensorsDTypeSize(dtype));
  bytes->assign(tensor.data.begin() + begin * width,
                tensor.data.begin() + end * width);
  return okStatus();
}

} // namespace hetc::runtime::exec
