// RUN: hetc-opt %s --split-input-file --hetg-optimizer --verify-diagnostics
// RUN: not hetc-opt %s --split-input-file --hetg-optimizer=optimizer=adam 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not hetc-opt %s --split-input-file --hetg-optimizer="beta2=1.0" 2>&1 | FileCheck %s --check-prefix=HYPER

// UNKNOWN: unknown optimizer 'adam'; expected adamw or sgd
// HYPER: the optimizer needs lr, weight-decay, eps and clip-norm >= 0 and betas in [0, 1)

// expected-error @+1 {{no function returns gradients (hetg.gradient_of); run hetg-autodiff first}}
module {
  func.func @forward(%x: tensor<f32>) -> tensor<f32> {
    return %x : tensor<f32>
  }
}

// -----

ml_program.global private @p(dense<1.0> : tensor<2xf32>) : tensor<2xf32>

// expected-error @+1 {{hetg-optimizer needs the loss (0-D) as the first result}}
func.func @grad_first(%g: tensor<2xf32>) -> (tensor<2xf32> {hetg.gradient_of = @p}) {
  return %g : tensor<2xf32>
}

// -----

ml_program.global private @p(dense<1.0> : tensor<2xf32>) : tensor<2xf32>

// expected-error @+1 {{result #2 is not a gradient (hetg.gradient_of); hetg-optimizer expects the loss followed by gradients}}
func.func @extra_result(%l: tensor<f32>, %g: tensor<2xf32>) -> (tensor<f32>, tensor<2xf32> {hetg.gradient_of = @p}, tensor<2xf32>) {
  return %l, %g, %g : tensor<f32>, tensor<2xf32>, tensor<2xf32>
}

// -----

ml_program.global private @p(dense<1.0> : tensor<2xf32>) : tensor<2xf32>

// expected-error @+1 {{result #1 is not the only gradient of a global @p of its type}}
func.func @wrong_type(%l: tensor<f32>, %g: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32> {hetg.gradient_of = @p}) {
  return %l, %g : tensor<f32>, tensor<3xf32>
}

// -----

// expected-error @+1 {{cannot create optimizer state @p.adam_m: the name is taken}}
ml_program.global private @p(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
ml_program.global private @p.adam_m(dense<1.0> : tensor<2xf32>) : tensor<2xf32>

func.func @taken(%l: tensor<f32>, %g: tensor<2xf32>) -> (tensor<f32>, tensor<2xf32> {hetg.gradient_of = @p}) {
  return %l, %g : tensor<f32>, tensor<2xf32>
}

// -----

ml_program.global private @p(dense<1.0> : tensor<2xf32>) : tensor<2xf32>

func.func @one(%l: tensor<f32>, %g: tensor<2xf32>) -> (tensor<f32>, tensor<2xf32> {hetg.gradient_of = @p}) {
  return %l, %g : tensor<f32>, tensor<2xf32>
}
// expected-error @+1 {{hetg-optimizer updates the parameters of one training function; @one also returns gradients}}
func.func @two(%l: tensor<f32>, %g: tensor<2xf32>) -> (tensor<f32>, tensor<2xf32> {hetg.gradient_of = @p}) {
  return %l, %g : tensor<f32>, tensor<2xf32>
}
