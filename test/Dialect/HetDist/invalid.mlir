// RUN: hetc-opt %s --split-input-file --verify-diagnostics

// Sends: a non-empty range of rows of dimension 0.

func.func @empty_rows(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'hetd.send' op rows [2, 2) must be a non-empty range of dimension 0 of 'tensor<4x8xf32>'}}
  hetd.send %x rows [2, 2) to 1 tag 0 : tensor<4x8xf32>
  return
}

// -----

func.func @reversed_rows(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'hetd.send' op rows [3, 1) must be a non-empty range of dimension 0 of 'tensor<4x8xf32>'}}
  hetd.send %x rows [3, 1) to 1 tag 0 : tensor<4x8xf32>
  return
}

// -----

func.func @negative_rows(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'hetd.send' op rows [-1, 2) must be a non-empty range of dimension 0 of 'tensor<4x8xf32>'}}
  hetd.send %x rows [-1, 2) to 1 tag 0 : tensor<4x8xf32>
  return
}

// -----

func.func @negative_end(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'hetd.send' op rows [0, -1) must be a non-empty range of dimension 0 of 'tensor<4x8xf32>'}}
  hetd.send %x rows [0, -1) to 1 tag 0 : tensor<4x8xf32>
  return
}

// -----

func.func @rows_beyond_dim0(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'hetd.send' op rows [2, 5) must be a non-empty range of dimension 0 of 'tensor<4x8xf32>'}}
  hetd.send %x rows [2, 5) to 1 tag 0 : tensor<4x8xf32>
  return
}

// -----

func.func @send_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{'hetd.send' op cannot send rows of the 0-D 'tensor<f32>'}}
  hetd.send %x rows [0, 1) to 1 tag 0 : tensor<f32>
  return
}

// -----

func.func @send_dynamic(%x: tensor<?x8xf32>) {
  // expected-error @+1 {{'hetd.send' op operand #0 must be statically shaped tensor of floating-point or signless integer values, but got 'tensor<?x8xf32>'}}
  hetd.send %x rows [0, 1) to 1 tag 0 : tensor<?x8xf32>
  return
}

// -----

// Peers: a rank, and not the sender or receiver itself.

func.func @send_negative_peer(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'hetd.send' op peer must be a rank (>= 0), got -1}}
  hetd.send %x rows [0, 4) to -1 tag 0 : tensor<4x8xf32>
  return
}

// -----

func.func @recv_negative_peer() -> tensor<4x8xf32> {
  // expected-error @+1 {{'hetd.recv' op peer must be a rank (>= 0), got -2}}
  %y = hetd.recv from -2 tag 0 : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @send_to_self(%x: tensor<4x8xf32>) attributes {hetd.rank = 1 : i64} {
  // expected-error @+1 {{'hetd.send' op peer 1 is the rank itself}}
  hetd.send %x rows [0, 4) to 1 tag 0 : tensor<4x8xf32>
  return
}

// -----

func.func @recv_from_self() -> tensor<4x8xf32> attributes {hetd.rank = 0 : i64} {
  // expected-error @+1 {{'hetd.recv' op peer 0 is the rank itself}}
  %y = hetd.recv from 0 tag 0 : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @recv_dynamic() -> tensor<?xf32> {
  // expected-error @+1 {{'hetd.recv' op result #0 must be statically shaped tensor of floating-point or signless integer values, but got 'tensor<?xf32>'}}
  %y = hetd.recv from 1 tag 0 : tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// Groups: distinct ranks in increasing order, including the enclosing rank.

func.func @empty_group(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hetd.all_reduce' op group must not be empty}}
  %s = hetd.all_reduce %x group [] : tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

func.func @unsorted_group(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hetd.all_reduce' op group must list distinct ranks (>= 0) in increasing order}}
  %s = hetd.all_reduce %x group [0, 2, 1] : tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

func.func @duplicate_member(%g: tensor<4xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'hetd.reduce_scatter' op group must list distinct ranks (>= 0) in increasing order}}
  %s = hetd.reduce_scatter %g group [1, 1] counts [2, 2] : tensor<4xf32> -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

func.func @negative_member(%s: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hetd.all_gather' op group must list distinct ranks (>= 0) in increasing order}}
  %g = hetd.all_gather %s group [-1, 0] counts [2, 2] : tensor<2xf32> -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @all_reduce_without_rank(%x: tensor<4xf32>) -> tensor<4xf32> attributes {hetd.rank = 3 : i64} {
  // expected-error @+1 {{'hetd.all_reduce' op group does not contain rank 3}}
  %s = hetd.all_reduce %x group [0, 1, 2] : tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

func.func @reduce_scatter_without_rank(%g: tensor<4xf32>) -> tensor<2xf32> attributes {hetd.rank = 0 : i64} {
  // expected-error @+1 {{'hetd.reduce_scatter' op group does not contain rank 0}}
  %s = hetd.reduce_scatter %g group [1, 2] counts [2, 2] : tensor<4xf32> -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

func.func @all_gather_without_rank(%s: tensor<2xf32>) -> tensor<4xf32> attributes {hetd.rank = 5 : i64} {
  // expected-error @+1 {{'hetd.all_gather' op group does not contain rank 5}}
  %g = hetd.all_gather %s group [1, 2] counts [2, 2] : tensor<2xf32> -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// Counts: one per member, >= 0, summing to the full tensor.

func.func @too_few_counts(%g: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hetd.reduce_scatter' op has 1 counts for a group of 2}}
  %s = hetd.reduce_scatter %g group [0, 1] counts [4] : tensor<4xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}

// -----

func.func @too_many_counts(%s: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'hetd.all_gather' op has 3 counts for a group of 2}}
  %g = hetd.all_gather %s group [0, 1] counts [2, 1, 1] : tensor<2xf32> -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

func.func @negative_count(%g: tensor<4xf32>) -> tensor<6xf32> {
  // expected-error @+1 {{'hetd.reduce_scatter' op counts must be >= 0}}
  %s = hetd.reduce_scatter %g group [0, 1] counts [6, -2] : tensor<4xf32> -> tensor<6xf32>
  return %s : tensor<6xf32>
}

// -----

func.func @reduce_scatter_counts_short(%g: tensor<10xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'hetd.reduce_scatter' op counts sum to 9 but the full tensor has 10 elements}}
  %s = hetd.reduce_scatter %g group [0, 1] counts [6, 3] : tensor<10xf32> -> tensor<3xf32>
  return %s : tensor<3xf32>
}

// -----

func.func @all_gather_counts_long(%s: tensor<3xf32>) -> tensor<10xf32> {
  // expected-error @+1 {{'hetd.all_gather' op counts sum to 11 but the full tensor has 10 elements}}
  %g = hetd.all_gather %s group [0, 1] counts [8, 3] : tensor<3xf32> -> tensor<10xf32>
  return %g : tensor<10xf32>
}

// -----

// In a rank function, the shard is the rank's count.

func.func @reduce_scatter_wrong_shard(%g: tensor<10xf32>) -> tensor<7xf32> attributes {hetd.rank = 2 : i64} {
  // expected-error @+1 {{'hetd.reduce_scatter' op result has 7 elements but this rank's count is 3}}
  %s = hetd.reduce_scatter %g group [1, 2] counts [7, 3] : tensor<10xf32> -> tensor<7xf32>
  return %s : tensor<7xf32>
}

// -----

func.func @all_gather_wrong_shard(%s: tensor<3xf32>) -> tensor<10xf32> attributes {hetd.rank = 1 : i64} {
  // expected-error @+1 {{'hetd.all_gather' op input has 3 elements but this rank's count is 7}}
  %g = hetd.all_gather %s group [1, 2] counts [7, 3] : tensor<3xf32> -> tensor<10xf32>
  return %g : tensor<10xf32>
}

// -----

// Element types.

func.func @reduce_scatter_element_types(%g: tensor<4xf32>) -> tensor<2xf64> {
  // expected-error @+1 {{'hetd.reduce_scatter' op input and result element types differ}}
  %s = hetd.reduce_scatter %g group [0, 1] counts [2, 2] : tensor<4xf32> -> tensor<2xf64>
  return %s : tensor<2xf64>
}

// -----

func.func @all_gather_element_types(%s: tensor<2xf64>) -> tensor<4xf32> {
  // expected-error @+1 {{'hetd.all_gather' op input and result element types differ}}
  %g = hetd.all_gather %s group [0, 1] counts [2, 2] : tensor<2xf64> -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// Collectives sum f32 or f64; reduce_scatter and all_gather work on flat
// tensors.

func.func @all_reduce_integers(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'hetd.all_reduce' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %s = hetd.all_reduce %x group [0, 1] : tensor<4xi32>
  return %s : tensor<4xi32>
}

// -----

func.func @all_reduce_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  // expected-error @+1 {{'hetd.all_reduce' op operand #0 must be statically shaped tensor of 32-bit float or 64-bit float values, but got 'tensor<4xf16>'}}
  %s = hetd.all_reduce %x group [0, 1] : tensor<4xf16>
  return %s : tensor<4xf16>
}

// -----

func.func @all_reduce_result_type(%x: tensor<4xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'hetd.all_reduce' op failed to verify that all of {input, result} have same type}}
  %s = "hetd.all_reduce"(%x) <{group = array<i64: 0, 1>}> : (tensor<4xf32>) -> tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}

// -----

func.func @reduce_scatter_not_flat(%g: tensor<2x2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'hetd.reduce_scatter' op operand #0 must be 1D tensor of 32-bit float or 64-bit float values, but got 'tensor<2x2xf32>'}}
  %s = hetd.reduce_scatter %g group [0, 1] counts [2, 2] : tensor<2x2xf32> -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

func.func @all_gather_integers(%s: tensor<2xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'hetd.all_gather' op operand #0 must be 1D tensor of 32-bit float or 64-bit float values, but got 'tensor<2xi64>'}}
  %g = hetd.all_gather %s group [0, 1] counts [2, 2] : tensor<2xi64> -> tensor<4xi64>
  return %g : tensor<4xi64>
}
