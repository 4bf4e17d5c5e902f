// RUN: hetc-opt %s --split-input-file --verify-diagnostics --hetg-eval-step

// expected-error@below {{hetg-eval-step takes a module with one train step (a function that stores globals); it has 0}}
module {
  func.func @forward(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}

// -----

ml_program.global private mutable @w(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
// expected-error@below {{is a train step whose first result is not its loss (hetg.name = "loss"); run hetg-optimizer first}}
func.func @step(%x: tensor<2xf32>) -> tensor<2xf32> {
  ml_program.global_store @w = %x : tensor<2xf32>
  return %x : tensor<2xf32>
}
