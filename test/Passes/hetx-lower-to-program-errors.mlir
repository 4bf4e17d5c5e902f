// RUN: hetc-opt %s --split-input-file --hetx-lower-to-program --verify-diagnostics

// An op the lowering cannot turn into a launch is an error at that op.
module {
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    // expected-error @+1 {{'tensor.empty' op cannot be lowered into a hetx program; only hetg ops, ml_program global accesses and func.return can}}
    %e = tensor.empty() : tensor<f32>
    return %e : tensor<f32>
  }
}

// -----

// One train-step function per module.
module {
  // expected-note @+1 {{the first function is here}}
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
  // expected-error @+1 {{'func.func' op is a second function; hetx-lower-to-program lowers a module holding one train-step function}}
  func.func @other() {
    return
  }
}

// -----

// Labels without tokens are no train step.
module {
  // expected-error @+1 {{'func.func' op has labels but no argument named input_ids (hetg.name); a train step reads its tokens from one}}
  func.func @main(%labels: tensor<1x2xi64> {hetg.name = "labels"}) -> tensor<f32> {
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
}

// -----

// Shapes must be static.
module {
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}, %x: tensor<?x2xf32> {hetg.name = "labels"}) -> tensor<f32> {
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
}
// expected-error @-5 {{argument 1 ('labels') has type 'tensor<?x2xf32>'; a program needs static ranked tensors (run hetg-simplify with the batch and sequence length first)}}

// -----

// The step returns its scalar f32 loss and nothing else.
module {
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> (tensor<f32>, tensor<f32>) {
    %c = hetg.constant dense<1.0> : tensor<f32>
    // expected-error @+1 {{'func.return' op returns 2 values; a train step returns only its scalar loss}}
    return %c, %c : tensor<f32>, tensor<f32>
  }
}

// -----

module {
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<2xf32> {
    %c = hetg.constant dense<1.0> : tensor<2xf32>
    // expected-error @+1 {{'func.return' op returns 'tensor<2xf32>'; a train step returns its loss as tensor<f32>}}
    return %c : tensor<2xf32>
  }
}

// -----

// Each global is stored at most once per step.
module {
  ml_program.global private mutable @w(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %w = ml_program.global_load @w : tensor<2xf32>
    %a = hetg.neg %w : tensor<2xf32>
    // expected-note @+1 {{the first store is here}}
    ml_program.global_store @w = %a : tensor<2xf32>
    // expected-error @+1 {{'ml_program.global_store' op stores @w a second time in one step; a program updates each global once}}
    ml_program.global_store @w = %w : tensor<2xf32>
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
}

// -----

// Mutable integer globals are optimizer state, which starts at zero.
module {
  // expected-error @+1 {{'ml_program.global' op is mutable and starts at a non-zero splat or integer value; trained parameters are float tensors with data and optimizer state starts at zero}}
  ml_program.global private mutable @count(dense<[1, 2]> : tensor<2xi64>) : tensor<2xi64>
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
}

// -----

module {
  // expected-error @+1 {{'ml_program.global' op is optimizer state (hetg.state_of) but does not start at zero}}
  ml_program.global private mutable @m(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32> {hetg.state_of = @w}
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    %c = hetg.constant dense<1.0> : tensor<f32>
    return %c : tensor<f32>
  }
}

// -----

// Element types without a package dtype are rejected.
module {
  func.func @main(%ids: tensor<1x2xi64> {hetg.name = "input_ids"}) -> tensor<f32> {
    // expected-error @+1 {{the constant has element type 'i16', which no package dtype holds}}
    %c = hetg.constant dense<1> : tensor<2xi16>
    %d = hetg.constant dense<1.0> : tensor<f32>
    return %d : tensor<f32>
  }
}
