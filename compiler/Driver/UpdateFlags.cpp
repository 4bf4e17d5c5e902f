//===- UpdateFlags.cpp - the optimizer and schedule flags -----------------===//

#include "compiler/Driver/UpdateFlags.h"

namespace cl = llvm::cl;

namespace hetc::driver {

namespace {
llvm::StringRef scheduleName(LrScheduleFlag schedule) {
  switch (schedule) {
  case LrScheduleFlag::constant: return "constant";
  case LrScheduleFlag::cosine: return "cosine";
  case LrScheduleFlag::linear: return "linear";
  }
  return "";
}
} // namespace

UpdateFlags::UpdateFlags(cl::SubCommand &subcommand, cl::OptionCategory &category)
    : optimizer("optimizer", cl::sub(subcommand), cl::cat(category),
                cl::init(OptimizerFlag::adamw), optimizerFlagValues(),
                cl::desc("Parameter update, with torch.optim semantics "
                         "(default adamw)")),
      lr("lr", cl::sub(subcommand), cl::cat(category), cl::value_desc("X"),
         cl::init(1e-3),
         cl::desc("Learning rate, the peak of a schedule (default 1e-3)")),
      weightDecay("weight-decay", cl::sub(subcommand), cl::cat(category),
                  cl::value_desc("W"), cl::init(0.0),
                  cl::desc("Weight decay of parameters of rank >= 2 "
                           "(default 0)")),
      beta1("beta1", cl::sub(subcommand), cl::cat(category), cl::init(0.9),
            cl::desc("AdamW beta1 (default 0.9)")),
      beta2("beta2", cl::sub(subcommand), cl::cat(category), cl::init(0.999),
            cl::desc("AdamW beta2 (default 0.999)")),
      eps("eps", cl::sub(subcommand), cl::cat(category), cl::init(1e-8),
          cl::desc("AdamW epsilon (default 1e-8)")),
      clipNorm("clip-norm", cl::sub(subcommand), cl::cat(category),
               cl::init(0.0),
               cl::desc("Clip the global gradient norm to this value "
                        "(default 0: off)")),
      schedule(
          "lr-schedule", cl::sub(subcommand), cl::cat(category),
          cl::init(LrScheduleFlag::constant),
          cl::values(clEnumValN(LrScheduleFlag::constant, "constant",
                                "lr after the warmup"),
                     clEnumValN(LrScheduleFlag::cosine, "cosine",
                                "cosine decay to --min-lr at --decay-steps"),
                     clEnumValN(LrScheduleFlag::linear, "linear",
                                "linear decay to --min-lr at --decay-steps")),
          cl::desc("Learning rate over the steps, as nanoGPT's get_lr: "
                   "linear warmup, then constant or a decay, constant "
                   "after (default constant)")),
      warmupSteps("warmup-steps", cl::sub(subcommand), cl::cat(category),
                  cl::value_desc("W"), cl::init(0),
                  cl::desc("Steps of linear warmup: step i (from 0) uses "
                           "lr * (i + 1) / (W + 1) (default 0)")),
      decaySteps("decay-steps", cl::sub(subcommand), cl::cat(category),
                 cl::value_desc("D"), cl::init(0),
                 cl::desc("The step at which a cosine or linear decay "
                          "reaches --min-lr (D > W)")),
      minLr("min-lr", cl::sub(subcommand), cl::cat(category),
            cl::value_desc("X"), cl::init(0.0),
            cl::desc("The learning rate at the end of the decay and after "
                     "(default 0)")) {}

std::optional<std::string> UpdateFlags::problem() const {
  if (!(lr > 0))
    return "--lr must be positive (got " + std::to_string(lr.getValue()) + ")";
  if (weightDecay < 0 || clipNorm < 0 || eps <= 0 || beta1 < 0 ||
      beta1 >= 1 || beta2 < 0 || beta2 >= 1)
    return std::string("--weight-decay and --clip-norm must be >= 0, --eps > "
                       "0, and --beta1/--beta2 in [0, 1)");
  if (warmupSteps < 0 || !(minLr >= 0) || minLr > lr)
    return std::string("--warmup-steps must be >= 0 and --min-lr in [0, lr]");
  bool decays = schedule != LrScheduleFlag::constant;
  if (decays && decaySteps <= warmupSteps)
    return "--lr-schedule " + scheduleName(schedule).str() +
           " needs --decay-steps greater than --warmup-steps (got " +
           std::to_string(decaySteps.getValue()) + " and " +
           std::to_string(warmupSteps.getValue()) + ")";
  if (!decays && (decaySteps.getNumOccurrences() || minLr.getNumOccurrences()))
    return std::string("--decay-steps and --min-lr need --lr-schedule "
                       "cosine or linear");
  return std::nullopt;
}

void UpdateFlags::applyTo(CompilePipelineOptions &options) const {
  options.optimizer = optimizerName(optimizer).str();
  options.lr = lr.getValue();
  options.weightDecay = weightDecay.getValue();
  options.beta1 = beta1.getValue();
  options.beta2 = beta2.getValue();
  options.eps = eps.getValue();
  options.clipNorm = clipNorm.getValue();
  options.lrSchedule = scheduleName(schedule).str();
  options.warmupSteps = warmupSteps.getValue();
  options.decaySteps = decaySteps.getValue();
  options.minLr = minLr.getValue();
}

package::OptimizerSettings UpdateFlags::manifestSettings() const {
  package::OptimizerSettings settings;
  settings.kind = optimizerName(optimizer).str();
  settings.lr = lr;
  settings.weightDecay = weightDecay;
  settings.beta1 = beta1;
  settings.beta2 = beta2;
  settings.eps = eps;
  settings.clipNorm = clipNorm;
  settings.lrSchedule = scheduleName(schedule).str();
  settings.warmupSteps = warmupSteps;
  settings.decaySteps = decaySteps;
  settings.minLr = minLr;
  return settings;
}

} // namespace hetc::driver
