//===- LearningRate.cpp - learning-rate schedules -------------------------===//

#include "runtime/base/LearningRate.h"

#include <utility>

namespace hetc::runtime {

bool parseLrScheduleKind(std::string_view name, LrScheduleKind *kind) {
  static constexpr std::pair<std::string_view, LrScheduleKind> kKinds[] = {
      {"constant", LrScheduleKind::kConstant},
      {"cosine", LrScheduleKind::kCosine},
      {"linear", LrScheduleKind::kLinear}};
  for (const auto &[text, value] : kKinds)
    if (name == text) {
      *kind = value;
      return true;
    }
  return false;
}

} // namespace hetc::runtime
