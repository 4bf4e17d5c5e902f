//===- EvalProgramCheck.cpp -----------------------------------------------===//

#include "runtime/exec/EvalProgramCheck.h"

#include "runtime/exec/Arena.h"
#include "runtime/exec/ProgramCheck.h"

#include <algorithm>
#include <map>

namespace hetc::runtime::exec {
namespace {

using hetc::pkg::Buffer;
using hetc::pkg::Program;

/// What a training step keeps for the next one.
bool keepsState(const Buffer &buffer) {
  return buffer.kind() == hetc::pkg::PARAMETER ||
         buffer.kind() == hetc::pkg::OPTIMIZER_STATE ||
         buffer.kind() == hetc::pkg::CONSTANT;
}

bool sameBuffer(const Buffer &a, const Buffer &b) {
  return a.kind() == b.kind() && a.offset() == b.offset() &&
         a.dtype() == b.dtype() &&
         std::equal(a.shape().begin(), a.shape().end(), b.shape().begin(),
                    b.shape().end());
}

/// The training program's kept buffers in the device's arena, by name and
/// by bytes.
class KeptState {
public:
  explicit KeptState(const Program &train) {
    for (const Buffer &buffer : train.buffers())
      if (buffer.alias_of() < 0 && !buffer.host() && keepsState(buffer) &&
          bufferBytes(buffer) > 0) {
        byName_.emplace(buffer.name(), &buffer);
        byOffset_.push_back(&buffer);
      }
    // Persistent buffers never share bytes: sorted by offset, their ends
    // are sorted too.
    std::sort(byOffset_.begin(), byOffset_.end(),
              [](const Buffer *a, const Buffer *b) {
                return a->offset() < b->offset();
              });
  }

  const Buffer *named(const std::string &name) const {
    auto it = byName_.find(name);
    return it == byName_.end() ? nullptr : it->second;
  }

  /// A kept buffer sharing a byte with [begin, end), if any.
  const Buffer *overlapping(int64_t begin, int64_t end) const {
    auto it = std::lower_bound(byOffset_.begin(), byOffset_.end(), begin,
                               [](const Buffer *buffer, int64_t at) {
                                 return buffer->offset() + bufferBytes(*buffer) <=
                                        at;
                               });
    return it != byOffset_.end() && (*it)->offset() < end ? *it : nullptr;
  }

private:
  std::map<std::string, const Buffer *> byName_;
  std::vector<const Buffer *> byOffset_;
};

} // namespace

Status validateEvalProgram(const hetc::pkg::Manifest &manifest, int rank,
                           const Program &train, const Program &eval,
                           const KernelRegistry &registry) {
  HETC_RETURN_IF_ERROR(validateProgramBody(manifest, rank, eval, registry));
  if (train.loss_buffer() >= 0 && eval.loss_buffer() < 0)
    return invalidArgument("the evaluation computes no loss but the "
                           "training step of rank ", rank, " does");
  KeptState kept(train);
  for (const Buffer &buffer : eval.buffers()) {
    if (buffer.host())
      return invalidArgument(describeBuffer(buffer),
                             " of the evaluation "
                             "lies on the host; an evaluation runs on the "
                             "device alone");
    if (buffer.alias_of() >= 0 || bufferBytes(buffer) == 0)
      continue;
    if (keepsState(buffer)) {
      const Buffer *trained = kept.named(buffer.name());
      if ((trained && sameBuffer(*trained, buffer)) ||
          (buffer.kind() == hetc::pkg::CONSTANT &&
           buffer.offset() >= train.arena_bytes()))
        continue;
      return invalidArgument(
          describeBuffer(buffer), " of the evaluation is not the training "
          "program's buffer of that name, kind, type and offset",
          buffer.kind() == hetc::pkg::CONSTANT
              ? " (nor a constant of its own past the training arena)"
              : "");
    }
    int64_t begin = buffer.offset(), end = begin + bufferBytes(buffer);
    if (const Buffer *clash = kept.overlapping(begin, end))
      return invalidArgument(describeBuffer(buffer), " of the evaluation "
                             "shares bytes with the training program's ",
                             describeBuffer(*clash),
                             ", which an evaluation must leave as it is");
  }
  for (int i = 0; i < eval.instructions_size(); ++i)
    for (int id : eval.instructions(i).results()) {
      const Buffer &buffer = eval.buffers(id);
      const Buffer &owner =
          buffer.alias_of() >= 0 ? eval.buffers(buffer.alias_of()) : buffer;
      if (keepsState(owner))
        return invalidArgument(
            describeInstruction(i, eval.instructions(i)), " writes ",
            describeBuffer(owner), "; an evaluation changes nothing the "
            "training step keeps");
    }
  return okStatus();
}

} // namespace hetc::runtime::exec
