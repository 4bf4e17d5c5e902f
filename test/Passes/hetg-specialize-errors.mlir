// RUN: hetc-opt %s --split-input-file --hetg-specialize="batch=2 seq=4" --verify-diagnostics -o /dev/null

// What hetg-specialize cannot do is an error at the input or op responsible.

// expected-error @+1 {{input 'x' has dynamic dimension 2; only dimension 0 (batch) and 1 (sequence) can be specialized}}
func.func @dynamic_hidden_dim(%x: tensor<?x4x?xf32> {hetg.name = "x"}) -> tensor<?x4x?xf32> {
  return %x : tensor<?x4x?xf32>
}

// -----

func.func @data_dependent_shape(%x: tensor<?x4xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  // expected-error @+1 {{still has dynamic shapes after specialization: its shape depends on something other than the batch and sequence length}}
  %y = hetg.dynamic_reshape %x, %s : tensor<?x4xf32>, tensor<2xi64>
  return %y : tensor<?x?xf32>
}

// -----

// expected-error @+1 {{input 'input_ids' has a static sequence length of 16 but seq=4 was asked; export the model with that axis dynamic}}
func.func @static_sequence(%x: tensor<?x16xi64> {hetg.name = "input_ids"}) -> tensor<?x16xi64> {
  return %x : tensor<?x16xi64>
}
