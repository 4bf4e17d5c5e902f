//===- Passes.td - hetc passes -----------------------------*- tablegen -*-===//

#ifndef HETC_PASSES
#define HETC_PASSES

include "mlir/Pass/PassBase.td"

def HetgSpecialize : Pass<"hetg-specialize", "mlir::ModuleOp"> {
  let summary = "Fix batch and sequence length, then fold all shape arithmetic";
  let description = [{
    Gives every dynamic dimension of the function inputs a value — dimension 0
    is the batch, dimension 1 the sequence — then alternates result type
    inference and constant folding until every type is static. An input
    named `attention_mask` becomes a constant of ones (packed language-model
    training has no padding), so the masks built from it fold too. Shape
    computations (`hetg.shape`, `hetg.range`, `hetg.constant_of_shape`, the
    `dynamic_*` forms) fold into constants and static ops; any that remain
    are reported as errors.
  }];
  let options = [
    Option<"batch", "batch", "int64_t", /*default=*/"0",
           "Samples per batch for dimension 0 of dynamic inputs">,
    Option<"seq", "seq", "int64_t", /*default=*/"0",
           "Tokens per sample for dimension 1 of dynamic inputs">
  ];
  let dependentDialects = ["::hetc::hetg::HetGraphDialect"];
}

def HetgFuseNorms : Pass<"hetg-fuse-norms"> {
  let summary = "Fuse decomposed LayerNorm and RMSNorm into single ops";
  let description = [{
    Matches the elementwise chains that exporters emit for layer and RMS
    normalization (reduce_mean, sub, pow, add epsilon, sqrt, div or
    reciprocal-mul, scale, shift) and replaces them with `hetg.layer_norm`
    and `hetg.rms_norm`.
  }];
  let dependentDialects = ["::hetc::hetg::HetGraphDialect"];
}

def HetgFuseActivations : Pass<"hetg-fuse-activations"> {
  let summary = "Fuse erf-GELU, tanh-GELU and x*sigmoid(x) into single ops";
  let dependentDialects = ["::hetc::hetg::HetGraphDialect"];
}

def HetgFuseAttention : Pass<"hetg-fuse-attention"> {
  let summary = "Fuse the scaled dot-product chain into hetg.attention";
  let description = [{
    Matches `matmul(q, k^T)`, a scale (mul or div by a constant), an optional
    additive or `where` mask, `softmax` over the last axis and the matmul with
    `v`. A mask that is the causal triangle becomes the `causal` flag.
  }];
  let dependentDialects = ["::hetc::hetg::HetGraphDialect"];
}

def HetgFuseMatmulBias : Pass<"hetg-fuse-matmul-bias"> {
  let summary = "Fold a bias add after a matmul into the matmul";
  let dependentDialects = ["::hetc::hetg::HetGraphDialect"];
}

//===----------------------------------------------------------------------===//
// Training step
//===----------------------------------------------------------------------===//

def HetgUntieParameters : Pass<"hetg-untie-parameters", "mlir::ModuleOp"> {
  let summary = "Give every use site of a shared parameter its own copy";
  let description = [{
    ONNX has one initializer per tensor name, so an initializer read by
    several nodes is one tied parameter, and `hetg-autodiff` sums its
    gradients. Some exporters (`torch.onnx.export` in eval mode) also merge
    initializers that merely hold equal values (fresh LayerNorm weights,
    deep-copied layers), tying layers that were trained apart. This pass
    undoes every tie; run it before `hetg-autodiff` (`hetc compile
    --untie-weights` and `hetc import --untie-weights` run it right after
    the import).

    A **use site** is one op that takes a value loaded from the global as
    an operand: the importer emits one `ml_program.global_load_const` per
    initializer and feeds every consuming node from it, so each consuming
    op is one site. Several loads of one global are merged by this
    definition too (an op reading two loads of the same global, e.g.
    `hetg.mul(%w, %w)`, is one site). Dead loads are no site.

    For each float global with more than one site, in program order, the
    first site keeps `@name`; the k-th other site reads a new global
    `@name.k` (the next free `.k` suffix) that is a copy of the original:
    same type, initial value (the same `dense_resource` blob, so no bytes
    are copied in the IR), mutability, visibility and attributes, plus
    `hetg.untied_from = @name` so that checkpoints and tools can map the
    copies back (a global that already carries `hetg.untied_from` keeps
    it). The site gets its own `global_load_const` right before it; loads
    the pass leaves without users are erased. Globals with a single site,
    and non-float globals (inline shape data), are left alone.
  }];
  let dependentDialects = ["::mlir::ml_program::MLProgramDialect"];
}

def HetgAttachLoss : Pass<"hetg-attach-loss", "mlir::ModuleOp"> {
  let summary = "Make a function returning logits return the training loss";
  let description = [{
    For each function returning logits `[B, T, V]` (from `input_ids`
    `[B, T]`), appends an argument `labels` (i64 `[B, T]`, named with
    `hetg.name = "labels"`) and makes the function return the mean token
    cross-entropy over all `B * T` tokens instead: logits and labels are
    reshaped to `[B * T, V]` and `[B * T]` and fed to
    `hetg.cross_entropy` with mean reduction. A function that already
    returns a single 0-D float (a model that computes its own loss) is left
    as it is. Shapes must be static (run `hetg-specialize` first).

    With `tokens = N` the function is one micro-batch of a larger step:
    the loss is the token cross-entropy summed over the function's tokens
    and multiplied by `1 / N` (N = B * T of the global batch), so that the
    losses and gradients of all micro-batches add up to those of the mean
    over the global batch.

    With `keep-logits` the function returns the loss and then the logits
    (a forward-only step that reports both).
  }];
  let options = [
    Option<"tokens", "tokens", "int64_t", /*default=*/"0",
           "Tokens of the global batch the summed loss is divided by "
           "(0: this function's batch * seq, a plain mean)">,
    Option<"keepLogits", "keep-logits", "bool", /*default=*/"false",
           "Return the logits as a second result after the loss">
  ];
  let dependentDialects = ["::hetc::hetg::HetGraphDialect"];
}

def HetgMixedPrecision : Pass<"hetg-mixed-precision", "mlir::ModuleOp"> {
  let summary = "Compute the forward graph in bf16 or f16 with f32 master weights";
  let description = [{
    Runs on the forward graph with the loss attached, before
    `hetg-autodiff` (and after `hetg-segment` when precision is chosen per
    segment). Parameters stay f32 globals: they are the master copy the
    optimizer updates, with f32 optimizer state. Every float op computes
    in its segment's type instead:

    - an op in a bf16 or f16 segment that reads a parameter (an f32
      global) or a low-precision value computes in the segment's type: its
      f32 float operands are read through `hetg.cast` (one cast per value,
      type and segment, placed before the first reader; casts of constants
      fold), and its float results take the low type;
    - ops that read only f32 values stay f32 until they meet a
      low-precision value: masks built from constants, and the loss, since
      `hetg.cross_entropy` gives an f32 loss from bf16 or f16 logits;
    - a float-to-float `hetg.cast` in the graph casts to the segment's type;
    - an op in an f32 segment that reads a low-precision value (one coming
      from a segment of another type) reads it through a cast to f32;
    - a function result whose type changed is cast back, so the function's
      signature stays as it was.

    `hetg-autodiff` then builds the backward in the same types: each
    gradient has its value's type, and the gradient of a parameter's cast
    casts back, so the parameter gradients arrive in f32. Norm statistics,
    softmax and the log-sum-exp are computed in f32 inside the kernels.
    Where only AdamW's update reads such a widened gradient, the
    canonicalizer has the update read the bf16 or f16 gradient itself
    (`hetg.adamw ... grad T`, widened exactly in the update): one pass over
    every gradient fewer.

    `precision` is the type of every op; `segment-precision` gives one type
    per segment (`hetg.segment`, numbered from 0) and overrides it for the
    segments it lists, which is how a pipeline stage gets its own type.

    When any op computes in f16, whose range is too small for small
    gradients, the pass adds dynamic loss scaling (as
    torch.cuda.amp.GradScaler does) unless `loss-scale` is 0: the
    optimizer-state globals `@loss_scale` (f32 0-D, holding 0 until the
    first step ends, which reads as `loss-scale`) and
    `@loss_scale.good_steps` (i64 0-D), the settings on `@loss_scale` as
    `hetg.loss_scale = {initial, growth, backoff, interval, good_steps}`,
    and `hetg.loss_scale = @loss_scale` on the function, which makes
    `hetg-autodiff` seed the loss gradient with the scale. `hetg-optimizer`
    and `hetd-build-ranks` then divide the gradients by the scale, skip a
    step whose gradient norm is not finite (parameters, optimizer state
    and step counter keep their values) and halve the scale, and double it
    after `growth-interval` good steps in a row.

    A function that already returns gradients or stores globals is an
    error (run this pass before `hetg-autodiff`), and so is
    `segment-precision` on a function without `hetg-segment`'s segments or
    with fewer segments than it lists.
  }];
  let options = [
    Option<"precision", "precision", "std::string", /*default=*/"\"f32\"",
           "Compute type of the float ops: f32, bf16 or f16">,
    ListOption<"segmentPrecision", "segment-precision", "std::string",
               "Compute type per segment (f32, bf16 or f16), overriding "
               "`precision` for the segments listed">,
    Option<"lossScale", "loss-scale", "double", /*default=*/"65536.0",
           "Initial loss scale when any op computes in f16 (0: no loss "
           "scaling)">,
    Option<"growthInterval", "growth-interval", "int64_t",
           /*default=*/"2000",
           "Good steps in a row after which the loss scale doubles">
  ];
  let dependentDialects = ["::hetc::hetg::HetGraphDialect",
                           "::mlir::ml_program::MLProgramDialect"];
}

def HetgAutodiff : Pass<"hetg-autodiff", "mlir::ModuleOp"> {
  let summary = "Reverse-mode gradients of the loss for every parameter";
  let description = [{
    Every function must return one 0-D float loss. Its trainable parameters
    are the float `ml_program.global`s it reads with
    `ml_program.global_load_const`; a global read by several loads is one
    (tied) parameter whose gradients add up. The ops between the parameters
    and the loss are walked in reverse and each builds its operand
    gradients through `DifferentiableOpInterface`; gradients reaching one
    value are summed with `hetg.add`. Only ops that depend on a parameter
    and lead to the loss get gradients.

    The function then returns the loss followed by one gradient per
    parameter, in the order of the globals in the module, each result
    marked `hetg.gradient_of = @global`. A parameter the loss does not
    depend on gets a zero gradient and a warning; an op on the way that is
    not differentiable is an error at that op.

    When `hetg-segment` ran first, every op built for the gradient of a
    forward op in segment N is marked `hetg.grad_segment = N`: the sums of
    gradients meeting at a value belong to the segment of the op whose
    gradient arrived last, and the loss's seed to the loss's segment.

    The loss gradient's seed is 1, or, on a function marked
    `hetg.loss_scale = @g` by `hetg-mixed-precision`, the loss scale held
    by global `@g`.
  }];
  let dependentDialects = ["::hetc::hetg::HetGraphDialect"];
}

// The update's options: those of hetg-optimizer and hetd-build-ranks.
defvar UpdateOptions = [
  Option<"optimizer", "optimizer", "std::string", /*default=*/"\"adamw\"",
         "adamw or sgd">,
  Option<"lr", "lr", "double", /*default=*/"1e-3",
         "Learning rate (the peak of a schedule)">,
  Option<"weightDecay", "weight-decay", "double", /*default=*/"0.0",
         "Weight decay for parameters of rank >= 2 (decoupled for adamw)">,
  Option<"beta1", "beta1", "double", /*default=*/"0.9",
         "AdamW decay of the gradient average">,
  Option<"beta2", "beta2", "double", /*default=*/"0.999",
         "AdamW decay of the squared gradient average">,
  Option<"eps", "eps", "double", /*default=*/"1e-8",
         "AdamW term added to the denominator">,
  Option<"clipNorm", "clip-norm", "double", /*default=*/"0.0",
         "Clip the global gradient norm to this value (0: no clipping)">,
  Option<"lrSchedule", "lr-schedule", "std::string",
         /*default=*/"\"constant\"",
         "Learning-rate schedule after the warmup: constant, cosine or "
         "linear (decay to min-lr at step decay-steps)">,
  Option<"warmupSteps", "warmup-steps", "int64_t", /*default=*/"0",
         "Steps of linear warmup">,
  Option<"decaySteps", "decay-steps", "int64_t", /*default=*/"0",
         "The step at which a cosine or linear decay reaches min-lr">,
  Option<"minLr", "min-lr", "double", /*default=*/"0.0",
         "The learning rate at the end of the decay">
];

def HetgOptimizer : Pass<"hetg-optimizer", "mlir::ModuleOp"> {
  let summary = "Update the parameters from the gradients the function returns";
  let description = [{
    Consumes the `hetg.gradient_of` results `hetg-autodiff` produced: the
    parameter globals become mutable and are read with
    `ml_program.global_load`, the update is computed with `hetg.sgd` or
    `hetg.adamw` (torch.optim semantics) and written back with
    `ml_program.global_store`, and the function returns only the loss.

    AdamW keeps its running averages in zero-initialized globals
    `@<param>.adam_m` and `@<param>.adam_v` and the step count in
    `@optimizer.step` (0-D i64, incremented before the update, so the first
    step is 1); each state global carries `hetg.state_of = @<param>`.
    Weight decay applies only to parameters of rank >= 2. With
    `clip-norm > 0` the gradients are first scaled by
    `min(1, clip-norm / (global_norm + 1e-6))`, as
    torch.nn.utils.clip_grad_norm_ does.

    With a learning-rate schedule (`lr-schedule` other than constant, or
    `warmup-steps > 0`), the function takes one more argument, `step`
    (0-D i64, marked `hetg.step_index`: the 0-based index of the step,
    written by the runtime before each step), and every update takes
    `hetg.lr_schedule`'s factor of it as `lr_factor`: nanoGPT's `get_lr`,
    linear warmup over `warmup-steps`, then constant or a cosine or linear
    decay to `min-lr` at step `decay-steps`, constant after.

    With the loss scaling of `hetg-mixed-precision` (a global marked
    `hetg.loss_scale`), the gradients are first multiplied by 1 / scale;
    a step whose gradient norm is not finite stores the old values of the
    parameters, the optimizer state and the step counter
    (`hetg.where(finite, new, old)`, finite being `norm - norm == 0`),
    and the scale and its good-step count are updated as
    torch.cuda.amp.GradScaler does.
  }];
  let options = UpdateOptions;
  let dependentDialects = ["::hetc::hetg::HetGraphDialect",
                           "::mlir::ml_program::MLProgramDialect"];
}

def HetgEvalStep : Pass<"hetg-eval-step", "mlir::ModuleOp"> {
  let summary = "Add the forward-only copy of a train step, for validation";
  let description = [{
    Takes a module with one train step (the function that stores globals,
    its loss as the first result: after `hetg-optimizer`) and adds
    `@<step>_eval`, marked `hetd.eval`, right after it: the step without
    its `ml_program.global_store`s, returning only the loss, with every op
    that no longer reaches the loss erased (the backward pass, clipping,
    the optimizer, loss-scale bookkeeping) and the step-index argument
    dropped when only the learning rate read it. On the same weights and
    batch it computes the loss the train step reports, through the same
    ops. `hetx-lower-to-program` lowers it to `@rank0_eval`, in the arena
    of the step's program. Distributed steps get theirs from
    `hetd-build-ranks` (its `eval` option).
  }];
  let dependentDialects = ["::hetc::hetd::HetDistDialect"];
}

//===----------------------------------------------------------------------===//
// Profiling
//===----------------------------------------------------------------------===//

def HetgSegment : Pass<"hetg-segment", "mlir::ModuleOp"> {
  let summary = "Cut the forward graph into a chain of segments and profile them";
  let description = [{
    Runs on the static, fused forward graph with the loss attached (after
    `hetg-simplify` and `hetg-attach-loss`). An *activation* is a value
    computed from both the inputs and the parameters; values computed from
    the parameters alone (a transposed weight) or the inputs alone (a mask
    from the token ids) are not, since any stage can recompute them. A
    **cut** is a non-scalar activation that, right after the op producing
    it, is the only live activation while more activation ops follow: all data from the
    inputs to the loss flows through it (the residual stream after each
    residual add of a transformer). The cuts split the function into a
    chain of segments:

    - every op gets `hetg.segment = N`: activation ops the segment open at
      their position, other ops the segment of their first user;
    - the op producing a cut value gets `hetg.cut = <result number>`;
    - the function gets `hetg.batch` (dimension 0 of `input_ids`) and
      `hetg.segments`, one dictionary per segment:
      - `ops`: hetg ops in the segment;
      - `parameters`, `parameter_bytes`: elements and bytes of the float
        globals first read in the segment (a tied weight counts once, in
        the first segment that reads it);
      - `forward_flops`, `forward_bytes`: `CostOpInterface::flops` and
        `bytesMoved` summed over the segment, for the whole batch;
      - `backward_flops`, `backward_bytes`: the same over the gradient ops
        `hetg-autodiff` builds for the segment's ops (it runs on a clone of
        the function; each gradient op is charged to the segment of the
        forward op it differentiates), for the whole batch;
      - `saved_activation_bytes_per_sample`: per-sample forward values the
        segment's gradient ops read (its own activations and its incoming
        boundary; a reshape shares its input's storage), divided by the
        batch;
      - `boundary_bytes_per_sample`: the size of the cut value leaving the
        segment divided by the batch (0 for the last);
      - `recompute`: whether the segment's activations are to be recomputed
        in the backward pass instead of saved (the `recompute` option).
        `hetg-recompute` acts on it after `hetg-autodiff`; the
        saved-activation numbers do not depend on it;
      - `kinds`: the four FLOP and byte figures above split by op kind (the
        op's name without its dialect, `matmul`, `attention_grad`, ..., the
        name of the launches that run it), one dictionary per kind with any
        FLOPs or bytes, with `forward_ops` and `backward_ops`: how many ops
        of the kind a forward or backward call runs (launches, whatever
        the batch);
    - where float globals are read in several segments (a tied embedding
      and LM head), the function gets `hetg.shared_parameters`, one
      dictionary per such global: `name`, `elements`, `bytes` and
      `segments`, the segments reading it in increasing order (stages
      holding several of them each keep a whole copy).
  }];
  let options = [
    ListOption<"recompute", "recompute", "int64_t",
               "Segments marked for activation recomputation (carried out by "
               "hetg-recompute after hetg-autodiff)">,
    Option<"recomputeAll", "recompute-all", "bool", /*default=*/"false",
           "Mark every segment for recomputation">
  ];
  let dependentDialects = ["::hetc::hetg::HetGraphDialect",
                           "::mlir::ml_program::MLProgramDialect"];
}

def HetgRecompute : Pass<"hetg-recompute", "mlir::ModuleOp"> {
  let summary = "Recompute the activations of flagged segments in the backward pass";
  let description = [{
    Runs after `hetg-autodiff` on a function that `hetg-segment` annotated
    before differentiation: forward ops carry `hetg.segment = N` and the
    function's `hetg.segments` profile marks some segments
    `recompute = true`. Ops without `hetg.segment` (other than the
    terminator) are backward ops.

    Backward ops are visited in program order. Where one reads a value
    produced in a recompute segment and differentiates an op of that same
    segment (`hetg.grad_segment`; the cut leaving the segment, read by the
    next segment's backward, stays saved), the producer is cloned right
    before that backward op, together with the chain of its operands produced in
    the same segment; the chain stops at block arguments, parameter and
    global loads, `hetg.constant`s and values of other segments (the
    segment's boundary input, which stays saved). A value is cloned once:
    later backward users reuse the clone, which dominates them. Clones
    carry `hetg.recomputed = N` instead of `hetg.segment`, so CSE does not
    fold them back into the forward originals. The backward users then read
    the clones and the forward values die inside the forward pass, so the
    memory planner frees them early: memory is traded for the forward
    FLOPs of the recomputed ops. Segments not flagged are left untouched;
    a function without `hetg.segments` is left as it is.
  }];
  let dependentDialects = ["::hetc::hetg::HetGraphDialect",
                           "::mlir::ml_program::MLProgramDialect"];
}

//===----------------------------------------------------------------------===//
// Distribution
//===----------------------------------------------------------------------===//

def HetdPartitionStages : Pass<"hetd-partition-stages", "mlir::ModuleOp"> {
  let summary = "Cut a differentiated step into per-stage forward and backward functions";
  let description = [{
    Runs on a module whose one function is a micro-batch's training step
    after `hetg-segment` and `hetg-autodiff` (it returns the loss and the
    parameter gradients; forward ops carry `hetg.segment`, gradient ops
    `hetg.grad_segment`, recomputed ops `hetg.recomputed`). `stage-starts`
    lists the first segment of every stage but the first, in increasing
    order; stage `s` owns the segments from its start to the next one.

    Each stage gets `@stage<s>_forward_mb<m>` and `@stage<s>_backward_mb<m>`
    (`m`: the micro-batch, dimension 0 of `input_ids`), marked `hetd.stage`,
    `hetd.phase` and `hetd.micro_batch`, holding the stage's forward and
    backward ops in program order:

    - the forward takes the activation entering the stage (the cut value
      leaving the previous stage) and returns the one leaving it, or the
      loss in the last stage, followed by the values its backward reads
      (results marked `hetd.role = "saved"`);
    - the backward takes those saved values and the gradient of the
      activation leaving the stage, and returns the gradient of the one
      entering it, followed by the gradients of the stage's parameters
      (`hetg.gradient_of`); a stage whose backward passes a later stage's
      gradient back unchanged (the backward of an add) relays it: it
      receives it and returns it as its own;
    - `input_ids` and `labels` are arguments of whichever functions read
      them; values computed from the parameters alone or the inputs alone
      (a transposed weight, a mask) are recomputed by each function that
      reads them instead of being passed.

    A parameter read by several stages (an embedding tied to the LM head)
    is loaded by each of them, and each of their backwards returns its
    partial gradient: the adds joining the partials are not built, the
    ranks sum them across stages. Any other value crossing stages is an
    error naming both stages.
  }];
  let options = [
    ListOption<"stageStarts", "stage-starts", "int64_t",
               "The first segment of each stage after the first">
  ];
  let dependentDialects = ["::hetc::hetd::HetDistDialect"];
}

def HetdMicroBatchSteps : Pass<"hetd-micro-batch-steps", "mlir::ModuleOp"> {
  let summary = "Build and partition one training step per micro-batch size of a plan";
  let description = [{
    Runs on an imported model (one hetg function over `ml_program`
    globals). The plan is the JSON file of the `plan` option, else the
    module's `hetd.plan` attribute, else plain data parallelism over
    `devices` replicas. A plan's replicas process micro-batches of their
    own sizes, so for each size a copy of the model (in a nested module)
    goes through the gradient-step pipeline: `hetg-simplify` to the
    micro-batch, `hetg-attach-loss` as a share of the mean over the global
    batch, `hetg-segment` (recomputing the segments of `recompute` and of
    the plan's `recompute` stages), `hetg-mixed-precision` as the stages'
    precisions say, `hetg-autodiff` and `hetg-recompute`; then
    `hetd-partition-stages` at the plan's stage starts. The stage functions
    of every size replace the model's function.

    The first step's segments check the plan (a data-parallel plan gets its
    segment range from them); the plan is then stored as `hetd.plan` for
    `hetd-build-ranks`. Stages that name no precision compute in
    `precision`.
  }];
  let options = [
    Option<"planFile", "plan", "std::string", /*default=*/"",
           "Plan JSON file (default: the module's hetd.plan attribute, else "
           "data parallelism over `devices`)">,
    Option<"devices", "devices", "int64_t", /*default=*/"1",
           "Replicas of plain data parallelism, without a plan">,
    Option<"globalBatch", "global-batch", "int64_t", /*default=*/"0",
           "Samples per training step">,
    Option<"seq", "seq", "int64_t", /*default=*/"0", "Tokens per sample">,
    ListOption<"recompute", "recompute", "int64_t",
               "Segments recomputed in the backward pass, besides those of "
               "the plan's recompute stages">,
    Option<"recomputeAll", "recompute-all", "bool", /*default=*/"false",
           "Recompute every segment">,
    Option<"precision", "precision", "std::string", /*default=*/"\"f32\"",
           "What stages without their own precision compute in: f32, bf16 "
           "or f16">
  ];
  let dependentDialects = ["::hetc::hetd::HetDistDialect",
                           "::hetc::hetg::HetGraphDialect",
                           "::mlir::ml_program::MLProgramDialect"];
}

def HetdBuildRanks : Pass<"hetd-build-ranks", "mlir::ModuleOp"> {
  let summary = "Write one function per rank that runs the plan's schedule";
  let description = [{
    Runs after `hetd-partition-stages` produced the stage functions of every
    micro-batch size the plan uses. The plan is the JSON file of the `plan`
    option, else the module's `hetd.plan` string attribute
    (docs/plan-format.md). Its global schedule (planner/Schedule.h) gives
    every rank an op list, which becomes `@rank<N>` (marked `hetd.rank`,
    `hetd.stage`, `hetd.replica`, `hetd.device`, `hetd.samples`):

    - one `input_ids` / `labels` argument pair per micro-batch that the
      stage reads, marked `hetd.first_sample`;
    - per schedule op, in order: `hetd.recv` of an activation or gradient
      slice (tag: 2 * first sample + 1 for gradients), a `func.call` of the
      stage's forward or backward (the pieces of a micro-batch joined with
      `hetg.concat`), `hetd.send` of rows of a result;
    - the parameter gradients summed over the rank's micro-batches;
    - with one replica, the update of every parameter; with several, the
      gradients flattened into one vector, `hetd.reduce_scatter` onto the
      replicas' shards (counts from the shard fractions), the update of the
      rank's pieces of the parameters (AdamW state `@<p>.adam_m[a:b]` for
      flat elements [a, b) of parameter p), and `hetd.all_gather` of the
      updated pieces back into every parameter;
    - with `"sharding": "full"` (FSDP-style), the parameters stay sharded:
      a replica keeps only its pieces (`@<p>[a:b]`, initialized from the
      parameter's data), all-gathers the stage's parameters before each
      forward and backward call (the stage functions take them as
      arguments marked `hetd.parameter`) and reduce-scatters each
      micro-batch's gradients onto the shards after its backward; both go
      one group of parameters at a time, the runs of consecutive
      parameters that one segment reads first (in the order the call
      reads them: backwards for a backward), which
      `hetd-schedule-collectives` then moves next to their segment;
    - with `offload_optimizer` on a stage, its AdamW state globals are
      marked `hetd.host` and each piece is updated on host copies
      (`hetd.to_host`) of the parameter piece, its summed gradient and the
      step, the new piece coming back with `hetd.to_device` (a tied
      parameter's update stays on the device);
    - with `clip-norm`, or with the loss scaling of
      `hetg-mixed-precision`, the squared norms of every rank's gradient
      pieces summed over all ranks with `hetd.all_reduce`: every rank
      clips by the same norm and skips the same overflowing steps
      (unscaling and skipping as in `hetg-optimizer`);
    - the sum of the rank's micro-batch losses, returned as `loss`, on the
      last stage's ranks.

    With `eval`, each rank also gets `@rank<N>_eval` (marked `hetd.eval`
    besides the rank attributes): the schedule's forward ops alone (the
    receives and sends of activations, the forward calls, the gathers of
    sharded parameters), no gradients and no update, returning the loss
    on the last stage's ranks. It computes the validation loss of a batch
    with the plan's layout; `hetx-lower-to-program` places it in the arena
    of `@rank<N>`.

    Stage functions become private, so `inline` and `symbol-dce` leave only
    the rank functions. Optimizer options are those of `hetg-optimizer`.
  }];
  let options = !listconcat([
    Option<"planFile", "plan", "std::string", /*default=*/"",
           "Plan JSON file (default: the module's hetd.plan attribute)">,
    Option<"evaluation", "eval", "bool", /*default=*/"false",
           "Also write each rank's forward-only copy @rank<N>_eval">
  ], UpdateOptions);
  let dependentDialects = ["::hetc::hetd::HetDistDialect",
                           "::hetc::hetg::HetGraphDialect",
                           "::mlir::ml_program::MLProgramDialect"];
}

def HetdScheduleCollectives : Pass<"hetd-schedule-collectives",
                                   "mlir::func::FuncOp"> {
  let summary = "Move gathers to their first use and reduce-scatters to their last input";
  let description = [{
    Runs on the rank functions once the stage calls are inlined. Each
    `hetd.all_gather` moves down to just before the first op that reads
    its result, through the slices and reshapes that take the result
    apart (which move to their own first readers first), and each
    `hetd.reduce_scatter` moves up to just after its input is complete,
    with the flattening reshapes and the concatenation that build that
    input. Neither moves past another op that crosses ranks, so every
    rank keeps its order of communication. Under full sharding this places
    a parameter group's gather right before the segment that reads it and
    its gradients' reduce-scatter right after the segment that computes
    them: the memory plan then frees a gathered group after its segment
    and a segment's full gradients as soon as their shard is taken.
  }];
  let dependentDialects = ["::hetc::hetd::HetDistDialect"];
}

def HetxLowerToProgram : Pass<"hetx-lower-to-program", "mlir::ModuleOp"> {
  let summary = "Lower rank functions, or one train step, to hetx.programs";
  let description = [{
    Takes a module of static `hetg` functions over `ml_program` globals and
    replaces them with `hetx.program`s. When functions are marked
    `hetd.rank = N`, each becomes `hetx.program @rank<N>`, in rank order,
    with `stage`, `replica`, `device` and the sample range of its
    `hetd.stage`, `hetd.replica`, `hetd.device` and `hetd.samples`; every
    other function is an error (run the inliner and `symbol-dce` first).
    Otherwise the module holds one function, which becomes `@rank0`.
    A function marked `hetd.eval` (from `hetg-eval-step` or
    `hetd-build-ranks`'s `eval`) is the evaluation copy of the function of
    its rank (`hetd.rank`; the single function without ranks) and becomes
    `hetx.program @rank<N>_eval` (attribute `eval`) right after that
    function's program, laid out in its arena: the globals it references
    at the training program's offsets (a constant of its own past that
    arena), its inputs and activations after the training program's
    parameters, state and constants.

    - every `hetg` op becomes a `hetx.launch` whose kernel is the op name
      without `hetg.` and whose params are the op's inherent attributes;
      `hetg.reshape`, and a `hetg.slice` whose result is one contiguous
      byte range of its input (rows of dimension 0, a range of a flat
      tensor), become views (alias buffers at an offset in the bytes they
      view); `hetg.constant` becomes a `constant` buffer holding the value;
    - `hetd` communication becomes the `send` (of a view of the rows sent),
      `recv`, `all_reduce` (in place, on a copy unless the reduced value is
      an activation nothing else reads), `reduce_scatter` and `all_gather`
      kernels, with params `peer` and `tag`, or `group` and `counts`;
    - the globals a program's function references become its buffers (all
      of them for a single function): immutable float globals and mutable
      ones with data are `parameter` buffers named by the global (the ONNX
      initializer name); mutable globals without a value or starting at
      zero are `optimizer_state`; immutable integer globals are
      `constant`s;
    - the arguments named (`hetg.name`) `input_ids` and `labels` are `input`
      buffers with role `tokens` and `labels`; a rank function has one pair
      per micro-batch (or only labels, or none), each with the
      `first_sample` of its `hetd.first_sample`, and returns its 0-D f32
      `loss` or nothing; a single train step returns the loss;
    - a `global_store` makes the launch producing the value write the
      global's buffer directly when nothing reads the old value afterwards
      (in-place update), else it becomes a `copy` launch; a load whose value
      (or a view of it) is read after the global is stored copies the old
      value first.

    Activations live from their first to their last launch; the memory
    planner packs them (largest first, best fit, 64-byte aligned) after the
    persistent buffers, and `arena_bytes` is the peak. Host buffers (the
    `hetd.host` state and the `hetd.to_host` copies) get an arena of their
    own, `host_arena_bytes`; a host activation lives on until the next
    launch that computes on the host, because the runtime copies the next
    piece of an offloaded update to the host while the host updates this
    one. Any op that is not a
    `hetg` op, `hetd` communication, a global access or `func.return` is an
    error at that op.
  }];
  let dependentDialects = ["::hetc::hetx::HetExecDialect"];
}

#endif // HETC_PASSES
