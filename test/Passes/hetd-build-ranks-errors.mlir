// RUN: hetc-opt %s --split-input-file --hetd-build-ranks --verify-diagnostics
// RUN: hetc-opt %S/Inputs/two-stages.mlir --hetd-build-ranks="plan=%S/Inputs/two-stages.json" | FileCheck %s --check-prefix=VALID
// RUN: not hetc-opt %S/Inputs/two-stages.mlir --hetd-build-ranks="plan=%S/Inputs/two-stages.json optimizer=adam" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not hetc-opt %S/Inputs/two-stages.mlir --hetd-build-ranks="plan=%S/Inputs/two-stages.json lr=-1" 2>&1 | FileCheck %s --check-prefix=HYPER
// RUN: not hetc-opt %S/Inputs/two-stages.mlir --hetd-build-ranks="plan=%S/Inputs/two-stages.json beta1=1.0" 2>&1 | FileCheck %s --check-prefix=HYPER
// RUN: not hetc-opt %S/Inputs/two-stages.mlir --hetd-build-ranks="plan=%S/Inputs/does-not-exist.json" 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not hetc-opt %S/Inputs/two-stages.mlir --hetd-build-ranks="plan=%S/Inputs/bad-plan-unknown-key.json" 2>&1 | FileCheck %s --check-prefix=KEY
// RUN: not hetc-opt %S/Inputs/two-stages.mlir --hetd-build-ranks="plan=%S/Inputs/bad-plan-no-stages.json" 2>&1 | FileCheck %s --check-prefix=NOSTAGES
// RUN: not hetc-opt %S/Inputs/two-stages.mlir --hetd-build-ranks="plan=%S/Inputs/bad-plan-samples.json" 2>&1 | FileCheck %s --check-prefix=SAMPLES
// RUN: not hetc-opt %S/Inputs/two-stages.mlir --hetd-build-ranks="plan=%S/Inputs/bad-plan-one-stage.json" 2>&1 | FileCheck %s --check-prefix=ONESTAGE
// RUN: not hetc-opt %S/Inputs/two-stages.mlir --hetd-build-ranks="plan=%S/Inputs/bad-plan-three-stages.json" 2>&1 | FileCheck %s --check-prefix=THREESTAGES

// Inputs/two-stages.mlir holds the stage functions of a two-stage pipeline;
// two-stages.json is a plan for them, the bad-plan-*.json files are not.

// VALID-LABEL: func.func @rank0(
// VALID-LABEL: func.func @rank1(

// UNKNOWN: error: unknown optimizer 'adam'; expected adamw or sgd
// HYPER: error: the optimizer needs lr, weight-decay, eps and clip-norm >= 0 and betas in [0, 1)
// NOFILE: error: cannot read plan file '{{.*}}does-not-exist.json': {{.*}}
// KEY: error: {{.*}}bad-plan-unknown-key.json: plan: unknown key "schedul" (the keys here are "global_batch", "schedule", "sharding", "stages")
// NOSTAGES: error: the plan has no stages
// SAMPLES: error: stage 1: samples [0, 1) are owned by both replica 0 (b) and replica 1 (c)
// SAMPLES-NEXT: stage 1: samples [1, 2) belong to no replica: the replicas of a stage must split samples 0..1 between them
// ONESTAGE: two-stages.mlir:{{[0-9]+}}:{{[0-9]+}}: error: is a function of stage 1 but the plan has 1 stages
// ONESTAGE-NEXT: func.func @stage1_forward_mb2
// THREESTAGES: error: the plan has 3 stages but no function is of stage 2; cut the step into as many stages with hetd-partition-stages

// The splits below carry their plan as the module's hetd.plan: two stages,
// one replica each, one micro-batch of 2 samples, unless a split says
// otherwise.

// expected-error @+1 {{no plan: give the plan option or a hetd.plan module attribute}}
module {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

// expected-error @+1 {{plan: missing "stages"}}
module attributes {hetd.plan = "{}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

// Stage functions: a known phase, a stage of the plan, both phases.

module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  // expected-error @+1 {{has hetd.phase "sideways"; expected "forward" or "backward"}}
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "sideways", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
  // expected-error @+1 {{is a function of stage -1 but the plan has 2 stages}}
  func.func @stage_minus1_forward_mb2() attributes {hetd.stage = -1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    return
  }
}

// -----

module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
  // expected-error @+1 {{is a function of stage 2 but the plan has 2 stages}}
  func.func @stage2_forward_mb2() attributes {hetd.stage = 2 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    return
  }
}

// -----

// expected-error @+1 {{stage 1 with micro-batch 2 has only a forward function}}
module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
}

// -----

// expected-error @+1 {{stage 1 with micro-batch 2 has only a backward function}}
module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

// Every stage of the plan has functions for its micro-batch size.

// expected-error @+1 {{no stage functions @stage1_forward_mb1 / _backward_mb1; run hetd-partition-stages on the step specialized to a micro-batch of 1}}
module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2], \"micro_batch\": 1}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

// Gradients are of globals of their type.

module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  // expected-error @+1 {{result #0 is the gradient of @missing, which is not an ml_program.global of its type 'tensor<2xf32>'}}
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @missing}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  // expected-error @+1 {{result #1 is the gradient of @w1, which is not an ml_program.global of its type 'tensor<3xf32>'}}
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<3xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<3xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<3xf32>
  }
}

// -----

// Arguments: what the schedule receives, its stage function takes.

module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  // expected-error @+1 {{stage 1 receives an activation but @stage1_forward_mb2 takes none}}
  func.func @stage1_forward_mb2() -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  // expected-error @+1 {{stage 0 receives a gradient but @stage0_backward_mb2 takes none}}
  func.func @stage0_backward_mb2() -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  // expected-error @+1 {{argument #0 (hetd.role = "boundary") must be a tensor whose dimension 0 is the samples, got 'tensor<f32>'}}
  func.func @stage1_forward_mb2(%x: tensor<f32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  // expected-error @+1 {{takes an activation (hetd.role = "boundary") but stage 0 receives none for rank 0's micro-batch 0}}
  func.func @stage0_forward_mb2(%in: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  // expected-error @+1 {{takes a gradient (hetd.role = "boundary_grad") but stage 1 receives none for rank 1's micro-batch 0}}
  func.func @stage1_backward_mb2(%dl: tensor<f32> {hetd.role = "boundary_grad"}) -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  // expected-error @+1 {{argument #0 is saved value #0 but @stage1_forward_mb2 returns 0 saved values}}
  func.func @stage1_backward_mb2(%x: tensor<2x2xf32> {hetd.role = "saved"}) -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  // expected-error @+1 {{argument #1 is a saved value (hetd.role = "saved"), which only a backward takes}}
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}, %s: tensor<2x2xf32> {hetd.role = "saved"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    return %s : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  // expected-error @+1 {{argument #1 has a hetd.parameter that is not a symbol reference}}
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}, %w: tensor<2xf32> {hetd.parameter = "w0"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

// Parameters are arguments only when the plan shards them.

module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  // expected-error @+1 {{argument #1 is parameter @w0, which is not a sharded parameter of this stage}}
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}, %w: tensor<2xf32> {hetd.parameter = @w0}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  // expected-error @+1 {{argument #0 has no role hetd-build-ranks knows (input_ids, labels, boundary, boundary_grad, saved, parameter)}}
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> ) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

// Results: what the schedule sends, its stage function returns.

// expected-error @+1 {{rank 0 sends an activation of micro-batch 0 that its stage function does not produce}}
module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    return
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

// expected-error @+1 {{rank 1 sends a gradient of micro-batch 0 that its stage function does not produce}}
module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
}

// -----

// With "sharding": "full", a replica keeps its piece of the initial value.

module attributes {hetd.plan = "{\"sharding\": \"full\", \"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 1], \"micro_batch\": 1}, {\"device\": \"c\", \"samples\": [1, 2], \"micro_batch\": 1}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  // expected-error @+1 {{has no initial data to shard (were the weights elided?)}}
  ml_program.global private mutable @w0 : tensor<2xf32>
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @stage0_forward_mb1(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> (tensor<1x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 1 : i64} {
    %x = hetg.constant dense<1.0> : tensor<1x2xf32>
    return %x : tensor<1x2xf32>
  }
  func.func @stage0_backward_mb1(%dx: tensor<1x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 1 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}

// -----

// Optimizer state goes in new globals.

module attributes {hetd.plan = "{\"stages\": [{\"segments\": [0, 1], \"replicas\": [{\"device\": \"a\", \"samples\": [0, 2]}]}, {\"segments\": [1, 2], \"replicas\": [{\"device\": \"b\", \"samples\": [0, 2]}]}]}"} {
  ml_program.global private @w0(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  // expected-error @+1 {{cannot create optimizer state @w1.adam_m: the name is taken}}
  ml_program.global private @w1(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
  ml_program.global private @w1.adam_m(dense<1.0> : tensor<4xf32>) : tensor<4xf32>
  func.func @stage0_forward_mb2(%ids: tensor<2x2xi64> {hetg.name = "input_ids"}) -> (tensor<2x2xf32> {hetd.role = "boundary"}) attributes {hetd.stage = 0 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %x = hetg.constant dense<1.0> : tensor<2x2xf32>
    return %x : tensor<2x2xf32>
  }
  func.func @stage0_backward_mb2(%dx: tensor<2x2xf32> {hetd.role = "boundary_grad"}) -> (tensor<2xf32> {hetg.gradient_of = @w0}) attributes {hetd.stage = 0 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %g : tensor<2xf32>
  }
  func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
    %l = hetg.constant dense<1.0> : tensor<f32>
    return %l : tensor<f32>
  }
  func.func @stage1_backward_mb2() -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
    %dx = hetg.constant dense<1.0> : tensor<2x2xf32>
    %g = hetg.constant dense<1.0> : tensor<2xf32>
    return %dx, %g : tensor<2x2xf32>, tensor<2xf32>
  }
}
