// Stage functions as hetd-partition-stages writes them, for a two-stage
// pipeline with micro-batches of 2 (run with two-stages.json). Only the
// signatures and attributes matter to hetd-build-ranks, so the bodies are
// constants.

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

func.func @stage1_forward_mb2(%x: tensor<2x2xf32> {hetd.role = "boundary"}) -> (tensor<f32> {hetg.name = "loss"}, tensor<2x2xf32> {hetd.role = "saved"}) attributes {hetd.stage = 1 : i64, hetd.phase = "forward", hetd.micro_batch = 2 : i64} {
  %l = hetg.constant dense<1.0> : tensor<f32>
  return %l, %x : tensor<f32>, tensor<2x2xf32>
}

func.func @stage1_backward_mb2(%x: tensor<2x2xf32> {hetd.role = "saved"}) -> (tensor<2x2xf32> {hetd.role = "boundary_grad"}, tensor<2xf32> {hetg.gradient_of = @w1}) attributes {hetd.stage = 1 : i64, hetd.phase = "backward", hetd.micro_batch = 2 : i64} {
  %g = hetg.constant dense<1.0> : tensor<2xf32>
  return %x, %g : tensor<2x2xf32>, tensor<2xf32>
}
