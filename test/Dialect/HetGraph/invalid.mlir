// RUN: hetc-opt %s --split-input-file --verify-diagnostics

// Every hetg verifier and type inference message.


func.func @case0(%a: tensor<3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'hetg.add' operand shapes [3], [4] do not broadcast: dimension 0 is 3 in one operand and 4 in the other; they do not broadcast}}
  %r = hetg.add %a, %b : tensor<3xf32>, tensor<4xf32>
  return
}

// -----

func.func @case1(%a: tensor<3xf32>, %b: tensor<3xf16>) {
  // expected-error @+1 {{'hetg.mul' operands have different element types 'f32' and 'f16'}}
  %r = hetg.mul %a, %b : tensor<3xf32>, tensor<3xf16>
  return
}

// -----

func.func @case2(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xi64>) {
  // expected-error @+1 {{'hetg.where' branches have different element types}}
  %r = hetg.where %c, %a, %b : tensor<3xi1>, tensor<3xf32>, tensor<3xi64>
  return
}

// -----

func.func @case3(%a: tensor<3xf32>) {
  // expected-error @+1 {{'hetg.matmul' operands must have rank >= 2}}
  %r = hetg.matmul %a, %a : tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @case4(%a: tensor<3x4xf32>, %b: tensor<4x5xf16>) {
  // expected-error @+1 {{'hetg.matmul' operands have different element types}}
  %r = hetg.matmul %a, %b : tensor<3x4xf32>, tensor<4x5xf16>
  return
}

// -----

func.func @case5(%a: tensor<3x4xf32>, %b: tensor<5x6xf32>) {
  // expected-error @+1 {{'hetg.matmul' contraction sizes differ: 4 vs 5}}
  %r = hetg.matmul %a, %b : tensor<3x4xf32>, tensor<5x6xf32>
  return
}

// -----

func.func @case6(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // expected-error @+1 {{'hetg.matmul' batch dimensions do not broadcast: dimension 0 is 2 in one operand and 3 in the other; they do not broadcast}}
  %r = hetg.matmul %a, %b : tensor<2x3x4xf32>, tensor<3x4x5xf32>
  return
}

// -----

func.func @case7(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'hetg.matmul' bias must be 1-D with 5 elements, got [4]}}
  %r = hetg.matmul %a, %b bias %c : tensor<4xf32> : tensor<3x4xf32>, tensor<4x5xf32>
  return
}

// -----

func.func @case8(%a: tensor<3x4xf32>) {
  // expected-error @+1 {{'hetg.transpose' permutation [0x0] is not a permutation of 2 dimensions}}
  %r = hetg.transpose %a [0, 0] : tensor<3x4xf32>
  return
}

// -----

func.func @case9(%a: tensor<?x4xf32>) {
  // expected-error @+1 {{'hetg.reshape' op needs static shapes; use hetg.dynamic_reshape for dynamic ones}}
  %r = hetg.reshape %a : tensor<?x4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @case10(%a: tensor<3x4xf32>) {
  // expected-error @+1 {{'hetg.reshape' op cannot change the element type}}
  %r = hetg.reshape %a : tensor<3x4xf32> -> tensor<12xf16>
  return
}

// -----

func.func @case11(%a: tensor<3x4xf32>) {
  // expected-error @+1 {{'hetg.reshape' op cannot reshape 12 elements into 13}}
  %r = hetg.reshape %a : tensor<3x4xf32> -> tensor<13xf32>
  return
}

// -----

func.func @case12(%a: tensor<3x4xf32>, %s: tensor<?xi64>) {
  // expected-error @+1 {{'hetg.dynamic_reshape' needs a shape operand of static length}}
  %r = hetg.dynamic_reshape %a, %s : tensor<3x4xf32>, tensor<?xi64>
  return
}

// -----

func.func @case13(%a: tensor<3x4xf32>) {
  %s = hetg.constant dense<[5, -1]> : tensor<2xi64>
  // expected-error @+1 {{'hetg.dynamic_reshape' cannot reshape 12 elements into a shape whose known part holds 5}}
  %r = hetg.dynamic_reshape %a, %s : tensor<3x4xf32>, tensor<2xi64>
  return
}

// -----

func.func @case14(%a: tensor<3x4xf32>) {
  %s = hetg.constant dense<[-1, -1]> : tensor<2xi64>
  // expected-error @+1 {{'hetg.dynamic_reshape' shape has more than one -1 entry}}
  %r = hetg.dynamic_reshape %a, %s : tensor<3x4xf32>, tensor<2xi64>
  return
}

// -----

func.func @case15(%a: tensor<3x4xf32>) {
  %s = hetg.constant dense<[1, 12, 0]> : tensor<3xi64>
  // expected-error @+1 {{'hetg.dynamic_reshape' shape entry 2 is 0 but the input has only 2 dimensions}}
  %r = hetg.dynamic_reshape %a, %s : tensor<3x4xf32>, tensor<3xi64>
  return
}

// -----

func.func @case16(%a: tensor<3x4xf32>) {
  %s = hetg.constant dense<[-2, 6]> : tensor<2xi64>
  // expected-error @+1 {{'hetg.dynamic_reshape' shape entry 0 is -2; entries are >= -1}}
  %r = hetg.dynamic_reshape %a, %s : tensor<3x4xf32>, tensor<2xi64>
  return
}

// -----

func.func @case17(%a: tensor<?x4xf32>) {
  // expected-error @+1 {{'hetg.broadcast' op needs static shapes; use hetg.dynamic_broadcast for dynamic ones}}
  %r = hetg.broadcast %a : tensor<?x4xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @case18(%a: tensor<3x4xf32>) {
  // expected-error @+1 {{'hetg.broadcast' op cannot broadcast [3x4] to [2x4]}}
  %r = hetg.broadcast %a : tensor<3x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @case19(%a: tensor<3x4xf32>, %s: tensor<?xi64>) {
  // expected-error @+1 {{'hetg.dynamic_broadcast' needs a shape operand of static length}}
  %r = hetg.dynamic_broadcast %a, %s : tensor<3x4xf32>, tensor<?xi64>
  return
}

// -----

func.func @case20(%a: tensor<3x4xf32>) {
  %s = hetg.constant dense<[5, 4]> : tensor<2xi64>
  // expected-error @+1 {{'hetg.dynamic_broadcast' dimension 0 is 3 in one operand and 5 in the other; they do not broadcast}}
  %r = hetg.dynamic_broadcast %a, %s : tensor<3x4xf32>, tensor<2xi64>
  return
}

// -----

func.func @case21(%a: tensor<3x4xf32>) {
  // expected-error @+1 {{'hetg.slice' needs one start, end and step per dimension (2)}}
  %r = hetg.slice %a <{starts = array<i64: 0>, ends = array<i64: 1>, steps = array<i64: 1>}> : tensor<3x4xf32>
  return
}

// -----

func.func @case22(%a: tensor<3xf32>) {
  // expected-error @+1 {{'hetg.slice' steps must be positive, got 0 for dimension 0}}
  %r = hetg.slice %a <{starts = array<i64: 0>, ends = array<i64: 1>, steps = array<i64: 0>}> : tensor<3xf32>
  return
}

// -----

func.func @case23(%a: tensor<3xf32>, %s: tensor<2xi64>) {
  // expected-error @+1 {{'hetg.dynamic_slice' needs as many starts, ends and steps as axes}}
  %r = hetg.dynamic_slice %a, %s, %s <{axes = array<i64: 0>, steps = array<i64: 1>}> : tensor<3xf32>, tensor<2xi64>, tensor<2xi64>
  return
}

// -----

func.func @case24(%a: tensor<3xf32>, %s: tensor<1xi64>) {
  // expected-error @+1 {{'hetg.dynamic_slice' axis 1 or step 1 is invalid}}
  %r = hetg.dynamic_slice %a, %s, %s <{axes = array<i64: 1>, steps = array<i64: 1>}> : tensor<3xf32>, tensor<1xi64>, tensor<1xi64>
  return
}

// -----

func.func @case25(%a: tensor<3xf32>) {
  // expected-error @+1 {{'hetg.concat' axis 1 is out of range}}
  %r = hetg.concat %a, %a <{axis = 1 : i64}> : tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @case26(%a: tensor<3xf32>, %b: tensor<3x1xf32>) {
  // expected-error @+1 {{'hetg.concat' inputs differ in rank or element type}}
  %r = hetg.concat %a, %b <{axis = 0 : i64}> : tensor<3xf32>, tensor<3x1xf32>
  return
}

// -----

func.func @case27(%a: tensor<3x2xf32>, %b: tensor<3x1xf32>) {
  // expected-error @+1 {{'hetg.concat' inputs differ in dimension 1 (2 vs 1)}}
  %r = hetg.concat %a, %b <{axis = 0 : i64}> : tensor<3x2xf32>, tensor<3x1xf32>
  return
}

// -----

func.func @case28(%a: tensor<3x2xf32>, %i: tensor<4xi64>) {
  // expected-error @+1 {{'hetg.gather' axis 2 is out of range}}
  %r = hetg.gather %a[%i] <{axis = 2 : i64}> : tensor<3x2xf32>, tensor<4xi64>
  return
}

// -----

func.func @case29(%a: tensor<3x2xf32>) {
  // expected-error @+1 {{'hetg.reduce_sum' axes [1x1] must be distinct dimensions in [0, 2)}}
  %r = hetg.reduce_sum %a <{axes = array<i64: 1, 1>}> : tensor<3x2xf32>
  return
}

// -----

func.func @case30(%a: tensor<3x2xf32>) {
  // expected-error @+1 {{'hetg.reduce_mean' axes [2] must be distinct dimensions in [0, 2)}}
  %r = hetg.reduce_mean %a <{axes = array<i64: 2>}> : tensor<3x2xf32>
  return
}

// -----

func.func @case31(%a: tensor<3x2xf32>) {
  // expected-error @+1 {{'hetg.softmax' op axis 2 is out of range for rank 2}}
  %r = hetg.softmax %a <{axis = 2 : i64}> : tensor<3x2xf32>
  return
}

// -----

func.func @case32(%a: tensor<3x2xf32>) {
  // expected-error @+1 {{'hetg.log_softmax' op axis -1 is out of range for rank 2}}
  %r = hetg.log_softmax %a <{axis = -1 : i64}> : tensor<3x2xf32>
  return
}

// -----

func.func @case33(%a: tensor<3x2xf32>) {
  // expected-error @+1 {{'hetg.layer_norm' op axis 2 is out of range for rank 2}}
  %r = hetg.layer_norm %a <{axis = 2 : i64, epsilon = 1.0e-5 : f32}> : tensor<3x2xf32>
  return
}

// -----

func.func @case34(%a: tensor<3x2xf32>, %w: tensor<3xf32>) {
  // expected-error @+1 {{'hetg.layer_norm' op scale has shape [3] but the normalized dimensions are [2]}}
  %r = hetg.layer_norm %a scale %w : tensor<3xf32> <{axis = 1 : i64, epsilon = 1.0e-5 : f32}> : tensor<3x2xf32>
  return
}

// -----

func.func @case35(%a: tensor<3x2xf32>, %w: tensor<3x2xf32>) {
  // expected-error @+1 {{'hetg.layer_norm' op bias has shape [3x2] but the normalized dimensions are [2]}}
  %r = hetg.layer_norm %a bias %w : tensor<3x2xf32> <{axis = 1 : i64, epsilon = 1.0e-5 : f32}> : tensor<3x2xf32>
  return
}

// -----

func.func @case36(%a: tensor<f32>) {
  // expected-error @+1 {{'hetg.rms_norm' op needs an input of rank >= 1}}
  %r = hetg.rms_norm %a <{epsilon = 1.0e-5 : f32}> : tensor<f32>
  return
}

// -----

func.func @case37(%a: tensor<3x2xf32>, %w: tensor<3xf32>) {
  // expected-error @+1 {{'hetg.rms_norm' op scale has shape [3] but the normalized dimensions are [2]}}
  %r = hetg.rms_norm %a scale %w : tensor<3xf32> <{epsilon = 1.0e-5 : f32}> : tensor<3x2xf32>
  return
}

// -----

func.func @case38(%q: tensor<4x8xf32>, %k: tensor<2x4x8xf32>) {
  // expected-error @+1 {{'hetg.attention' query, key and value must have one rank >= 2}}
  %r = hetg.attention %q, %k, %k <{scale = 1.0 : f32}> : tensor<4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>
  return
}

// -----

func.func @case39(%q: tensor<4x8xf32>, %k: tensor<4x4xf32>) {
  // expected-error @+1 {{'hetg.attention' query and key head sizes differ}}
  %r = hetg.attention %q, %k, %k <{scale = 1.0 : f32}> : tensor<4x8xf32>, tensor<4x4xf32>, tensor<4x4xf32>
  return
}

// -----

func.func @case40(%q: tensor<4x8xf32>, %v: tensor<5x8xf32>) {
  // expected-error @+1 {{'hetg.attention' key and value lengths differ}}
  %r = hetg.attention %q, %q, %v <{scale = 1.0 : f32}> : tensor<4x8xf32>, tensor<4x8xf32>, tensor<5x8xf32>
  return
}

// -----

func.func @case41(%l: tensor<4x8xf32>, %y: tensor<4x8xi64>) {
  // expected-error @+1 {{'hetg.cross_entropy' needs logits [N, C, d...] and labels [N, d...]}}
  %r = hetg.cross_entropy %l, %y <{reduction = #hetg<loss_reduction mean>}> : tensor<4x8xf32>, tensor<4x8xi64>
  return
}

// -----

func.func @case42(%a: tensor<3x2xf32>) {
  // expected-error @+1 {{'hetg.shape' needs 0 <= start <= end <= rank (2), got [1, 3)}}
  %r = hetg.shape %a <{start = 1 : i64, end = 3 : i64}> : tensor<3x2xf32>
  return
}

// -----

func.func @case43(%a: tensor<i64>, %b: tensor<i32>) {
  // expected-error @+1 {{'hetg.range' operands have different element types}}
  %r = hetg.range %a, %b, %a : tensor<i64>, tensor<i32>, tensor<i64>
  return
}

// -----

func.func @case44(%a: tensor<i64>) {
  %z = hetg.constant dense<0> : tensor<i64>
  // expected-error @+1 {{'hetg.range' delta is zero}}
  %r = hetg.range %z, %z, %z : tensor<i64>, tensor<i64>, tensor<i64>
  return
}

// -----

func.func @case45(%s: tensor<?xi64>) {
  // expected-error @+1 {{'hetg.constant_of_shape' needs a shape operand of static length}}
  %r = hetg.constant_of_shape %s <{value = dense<0.0> : tensor<1xf32>}> : tensor<?xi64>
  return
}

// -----

func.func @case46(%s: tensor<2xi64>) {
  // expected-error @+1 {{'hetg.constant_of_shape' op value must hold exactly one element}}
  %r = hetg.constant_of_shape %s <{value = dense<0.0> : tensor<2xf32>}> : tensor<2xi64>
  return
}

// -----

func.func @case47(%a: tensor<3xf32>) {
  // expected-error @+1 {{'hetg.trilu' op needs an input of rank >= 2}}
  %r = hetg.trilu %a <{k = 0 : i64, upper = false}> : tensor<3xf32>
  return
}

// -----

func.func @scatter_nd_depth(%a: tensor<3x2xf32>, %i: tensor<4x3xi64>, %u: tensor<4xf32>) {
  // expected-error @+1 {{'hetg.scatter_nd' indices 'tensor<4x3xi64>' must end in a dimension of at most the rank of the data 'tensor<3x2xf32>'}}
  %r = hetg.scatter_nd %a[%i], %u <{reduction = #hetg<scatter_reduction none>}> : tensor<3x2xf32>, tensor<4x3xi64>, tensor<4xf32>
  return
}

// -----

func.func @scatter_nd_updates(%a: tensor<3x2xf32>, %i: tensor<4x1xi64>, %u: tensor<4x3xf32>) {
  // expected-error @+1 {{'hetg.scatter_nd' updates 'tensor<4x3xf32>' must have shape [4x2] (indices[:-1] + data[k:])}}
  %r = hetg.scatter_nd %a[%i], %u <{reduction = #hetg<scatter_reduction add>}> : tensor<3x2xf32>, tensor<4x1xi64>, tensor<4x3xf32>
  return
}

// -----

func.func @scatter_nd_element_type(%a: tensor<3x2xf32>, %i: tensor<4x1xi64>, %u: tensor<4x2xi64>) {
  // expected-error @+1 {{'hetg.scatter_nd' updates 'tensor<4x2xi64>' and data 'tensor<3x2xf32>' differ in element type}}
  %r = hetg.scatter_nd %a[%i], %u <{reduction = #hetg<scatter_reduction none>}> : tensor<3x2xf32>, tensor<4x1xi64>, tensor<4x2xi64>
  return
}
