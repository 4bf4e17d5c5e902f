// RUN: hetc-opt %s --canonicalize --split-input-file | FileCheck %s

// Folders evaluate ops on constants; dynamic forms become static.

// CHECK-LABEL: func.func @fold_integer_arithmetic
func.func @fold_integer_arithmetic() -> (tensor<2x3xi64>, tensor<3xi64>, tensor<3xi1>, tensor<2xi64>) {
  %a = hetg.constant dense<[[10], [20]]> : tensor<2x1xi64>
  %b = hetg.constant dense<[1, 2, 3]> : tensor<3xi64>
  %two = hetg.constant dense<2> : tensor<i64>
  // CHECK-DAG: hetg.constant dense<{{\[\[}}11, 12, 13], [21, 22, 23]]> : tensor<2x3xi64>
  %sum = hetg.add %a, %b : tensor<2x1xi64>, tensor<3xi64>
  // Integer division truncates toward zero.
  // CHECK-DAG: hetg.constant dense<[-1, -4, 0]> : tensor<3xi64>
  %n = hetg.constant dense<[-3, -9, 1]> : tensor<3xi64>
  %q = hetg.div %n, %two : tensor<3xi64>, tensor<i64>
  // CHECK-DAG: hetg.constant dense<[false, true, false]> : tensor<3xi1>
  %e = hetg.equal %b, %two : tensor<3xi64>, tensor<i64>
  %m = hetg.mul %b, %two : tensor<3xi64>, tensor<i64>
  %s = hetg.sub %m, %b : tensor<3xi64>, tensor<3xi64>
  // CHECK-DAG: hetg.constant dense<[2, 3]> : tensor<2xi64>
  %r = hetg.slice %s <{starts = array<i64: 1>, ends = array<i64: 9223372036854775807>, steps = array<i64: 1>}> : tensor<3xi64>
  return %sum, %q, %e, %r : tensor<2x3xi64>, tensor<3xi64>, tensor<3xi1>, tensor<2xi64>
}

// -----

// CHECK-LABEL: func.func @no_fold_integer_division_by_zero
func.func @no_fold_integer_division_by_zero() -> tensor<1xi64> {
  %a = hetg.constant dense<[4]> : tensor<1xi64>
  %z = hetg.constant dense<[0]> : tensor<1xi64>
  // CHECK: hetg.div
  %q = hetg.div %a, %z : tensor<1xi64>, tensor<1xi64>
  return %q : tensor<1xi64>
}

// -----

// CHECK-LABEL: func.func @fold_float_math
func.func @fold_float_math() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = hetg.constant dense<[4.0, 9.0]> : tensor<2xf32>
  // CHECK-DAG: hetg.constant dense<[2.000000e+00, 3.000000e+00]> : tensor<2xf32>
  %s = hetg.sqrt %a : tensor<2xf32>
  // CHECK-DAG: hetg.constant dense<[2.500000e-01, 0.111111112]> : tensor<2xf32>
  %r = hetg.reciprocal %a : tensor<2xf32>
  %x = hetg.constant dense<[0.0, 1.0]> : tensor<2xf32>
  // gelu(1) = 0.5 * (1 + erf(1/sqrt(2))) = 0.841344...
  // CHECK-DAG: hetg.constant dense<[0.000000e+00, 0.84134{{[0-9]+}}]> : tensor<2xf32>
  %g = hetg.gelu %x : tensor<2xf32>
  // CHECK-DAG: hetg.constant dense<[0.000000e+00, 8.41192{{[0-9]*}}e-01]> : tensor<2xf32>
  %t = hetg.gelu %x <{approximate = #hetg<gelu_approximation tanh>}> : tensor<2xf32>
  return %s, %r, %g, %t : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @fold_where_and_cast
func.func @fold_where_and_cast() -> (tensor<2x2xf32>, tensor<3xi64>, tensor<3xf32>) {
  %c = hetg.constant dense<[[true, false], [true, true]]> : tensor<2x2xi1>
  %z = hetg.constant dense<0.0> : tensor<f32>
  %n = hetg.constant dense<0xFF800000> : tensor<f32>
  // CHECK-DAG: hetg.constant dense<{{\[\[}}0.000000e+00, 0xFF800000], [0.000000e+00, 0.000000e+00]]> : tensor<2x2xf32>
  %w = hetg.where %c, %z, %n : tensor<2x2xi1>, tensor<f32>, tensor<f32>
  // Float to integer truncates toward zero.
  // CHECK-DAG: hetg.constant dense<[1, -1, 2]> : tensor<3xi64>
  %f = hetg.constant dense<[1.7, -1.5, 2.0]> : tensor<3xf32>
  %i = hetg.cast %f to i64 : tensor<3xf32>
  // CHECK-DAG: hetg.constant dense<[1.000000e+00, -1.000000e+00, 2.000000e+00]> : tensor<3xf32>
  %b = hetg.cast %i to f32 : tensor<3xi64>
  return %w, %i, %b : tensor<2x2xf32>, tensor<3xi64>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @cast_to_same_type_is_identity
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
func.func @cast_to_same_type_is_identity(%x: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK-NOT: hetg.cast
  // CHECK: return %[[X]]
  %y = hetg.cast %x to f32 : tensor<3xf32>
  return %y : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @fold_transposes
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @fold_transposes(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<3x2xi64>) {
  %a = hetg.transpose %x [1, 0, 2] : tensor<2x3x4xf32>
  %b = hetg.transpose %a [1, 0, 2] : tensor<3x2x4xf32>
  // CHECK: hetg.constant dense<{{\[\[}}1, 4], [2, 5], [3, 6]]> : tensor<3x2xi64>
  // CHECK: %[[T:.*]] = hetg.transpose %[[X]] [2, 0, 1] : tensor<2x3x4xf32>
  %c = hetg.transpose %x [0, 2, 1] : tensor<2x3x4xf32>
  %d = hetg.transpose %c [1, 0, 2] : tensor<2x4x3xf32>
  %k = hetg.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %kt = hetg.transpose %k [1, 0] : tensor<2x3xi64>
  // CHECK: return %[[X]], %[[T]]
  return %b, %d, %kt : tensor<2x3x4xf32>, tensor<4x2x3xf32>, tensor<3x2xi64>
}

// -----

// CHECK-LABEL: func.func @fold_reshapes
// CHECK-SAME: (%[[X:.*]]: tensor<2x6xf32>)
func.func @fold_reshapes(%x: tensor<2x6xf32>) -> (tensor<12xf32>, tensor<2x2xi64>) {
  // CHECK: hetg.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi64>
  // CHECK: %[[R:.*]] = hetg.reshape %[[X]] : tensor<2x6xf32> -> tensor<12xf32>
  %a = hetg.reshape %x : tensor<2x6xf32> -> tensor<3x4xf32>
  %b = hetg.reshape %a : tensor<3x4xf32> -> tensor<12xf32>
  %k = hetg.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %kr = hetg.reshape %k : tensor<4xi64> -> tensor<2x2xi64>
  // CHECK: return %[[R]]
  return %b, %kr : tensor<12xf32>, tensor<2x2xi64>
}

// -----

// CHECK-LABEL: func.func @fold_data_movement
func.func @fold_data_movement() -> (tensor<2x3xi64>, tensor<4xi64>, tensor<2x2xf32>, tensor<1x2xi64>) {
  %k = hetg.constant dense<[1, 2, 3]> : tensor<3xi64>
  // CHECK-DAG: hetg.constant dense<{{\[\[}}1, 2, 3], [1, 2, 3]]> : tensor<2x3xi64>
  %b = hetg.broadcast %k : tensor<3xi64> -> tensor<2x3xi64>
  %one = hetg.constant dense<[7]> : tensor<1xi64>
  // CHECK-DAG: hetg.constant dense<[7, 1, 2, 3]> : tensor<4xi64>
  %c = hetg.concat %one, %k <{axis = 0 : i64}> : tensor<1xi64>, tensor<3xi64>
  %t = hetg.constant dense<[[0.5, 1.5], [2.5, 3.5], [4.5, 5.5]]> : tensor<3x2xf32>
  %ids = hetg.constant dense<[2, -3]> : tensor<2xi64>
  // CHECK-DAG: hetg.constant dense<{{\[\[}}4.500000e+00, 5.500000e+00], [5.000000e-01, 1.500000e+00]]> : tensor<2x2xf32>
  %g = hetg.gather %t[%ids] <{axis = 0 : i64}> : tensor<3x2xf32>, tensor<2xi64>
  %m = hetg.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi64>
  // CHECK-DAG: hetg.constant dense<{{\[\[}}6, 8]]> : tensor<1x2xi64>
  %s = hetg.slice %m <{starts = array<i64: -1, 1>, ends = array<i64: 2, 100>, steps = array<i64: 1, 2>}> : tensor<2x4xi64>
  return %b, %c, %g, %s : tensor<2x3xi64>, tensor<4xi64>, tensor<2x2xf32>, tensor<1x2xi64>
}

// -----

// CHECK-LABEL: func.func @no_fold_gather_out_of_range
func.func @no_fold_gather_out_of_range() -> tensor<1xi64> {
  %t = hetg.constant dense<[1, 2]> : tensor<2xi64>
  %ids = hetg.constant dense<[2]> : tensor<1xi64>
  // CHECK: hetg.gather
  %g = hetg.gather %t[%ids] <{axis = 0 : i64}> : tensor<2xi64>, tensor<1xi64>
  return %g : tensor<1xi64>
}

// -----

// CHECK-LABEL: func.func @fold_shape_computation
func.func @fold_shape_computation(%x: tensor<?x16x64xf32>) -> (tensor<2xi64>, tensor<4xi64>, tensor<2x3xf32>, tensor<3x3xf32>) {
  // Only the static part of a partially dynamic shape folds.
  // CHECK-DAG: hetg.constant dense<[16, 64]> : tensor<2xi64>
  %s = hetg.shape %x <{start = 1 : i64, end = 3 : i64}> : tensor<?x16x64xf32>
  %start = hetg.constant dense<1> : tensor<i64>
  %limit = hetg.constant dense<9> : tensor<i64>
  %delta = hetg.constant dense<2> : tensor<i64>
  // CHECK-DAG: hetg.constant dense<[1, 3, 5, 7]> : tensor<4xi64>
  %r = hetg.range %start, %limit, %delta : tensor<i64>, tensor<i64>, tensor<i64>
  %shape = hetg.constant dense<[2, 3]> : tensor<2xi64>
  // CHECK-DAG: hetg.constant dense<1.000000e+00> : tensor<2x3xf32>
  %f = hetg.constant_of_shape %shape <{value = dense<1.0> : tensor<1xf32>}> : tensor<2xi64>
  %ones = hetg.constant dense<1.0> : tensor<3x3xf32>
  // CHECK-DAG: hetg.constant dense<{{\[\[}}1.000000e+00, 0.000000e+00, 0.000000e+00], [1.000000e+00, 1.000000e+00, 0.000000e+00], [1.000000e+00, 1.000000e+00, 1.000000e+00]]> : tensor<3x3xf32>
  %tril = hetg.trilu %ones <{k = 0 : i64, upper = false}> : tensor<3x3xf32>
  return %s, %r, %f, %tril : tensor<2xi64>, tensor<4xi64>, tensor<2x3xf32>, tensor<3x3xf32>
}

// -----

// CHECK-LABEL: func.func @no_fold_dynamic_dimension
func.func @no_fold_dynamic_dimension(%x: tensor<?x16xf32>) -> tensor<1xi64> {
  // CHECK: hetg.shape %{{.*}} <{end = 1 : i64, start = 0 : i64}>
  %b = hetg.shape %x <{start = 0 : i64, end = 1 : i64}> : tensor<?x16xf32>
  return %b : tensor<1xi64>
}

// -----

// CHECK-LABEL: func.func @dynamic_forms_become_static
// CHECK-SAME: (%[[X:.*]]: tensor<2x16x64xf32>, %[[I:.*]]: tensor<1x16xi64>)
func.func @dynamic_forms_become_static(%x: tensor<2x16x64xf32>, %ids: tensor<1x16xi64>)
    -> (tensor<2x16x4x16xf32>, tensor<2x16xi64>, tensor<2x8x64xf32>) {
  %shape = hetg.constant dense<[0, 0, 4, -1]> : tensor<4xi64>
  // CHECK: hetg.reshape %[[X]] : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
  %r = hetg.dynamic_reshape %x, %shape : tensor<2x16x64xf32>, tensor<4xi64>
  %bshape = hetg.constant dense<[2, 1]> : tensor<2xi64>
  // CHECK: hetg.broadcast %[[I]] : tensor<1x16xi64> -> tensor<2x16xi64>
  %b = hetg.dynamic_broadcast %ids, %bshape : tensor<1x16xi64>, tensor<2xi64>
  %starts = hetg.constant dense<[0]> : tensor<1xi64>
  %ends = hetg.constant dense<[8]> : tensor<1xi64>
  // CHECK: hetg.slice %[[X]] <{ends = array<i64: 9223372036854775807, 8, 9223372036854775807>, starts = array<i64: 0, 0, 0>, steps = array<i64: 1, 1, 1>}>
  %s = hetg.dynamic_slice %x, %starts, %ends <{axes = array<i64: 1>, steps = array<i64: 1>}> : tensor<2x16x64xf32>, tensor<1xi64>, tensor<1xi64>
  return %r, %b, %s : tensor<2x16x4x16xf32>, tensor<2x16xi64>, tensor<2x8x64xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_absorbs_transposes
// CHECK-SAME: (%[[X:.*]]: tensor<2x16x64xf32>, %[[W:.*]]: tensor<256x64xf32>, %[[A:.*]]: tensor<2x16x8xf32>, %[[V:.*]]: tensor<4x8xf32>)
func.func @matmul_absorbs_transposes(%x: tensor<2x16x64xf32>, %w: tensor<256x64xf32>,
                                     %a: tensor<2x16x8xf32>, %v: tensor<4x8xf32>)
    -> (tensor<2x16x256xf32>, tensor<2x8x64xf32>, tensor<16x2x4xf32>) {
  // CHECK: hetg.matmul %[[X]], %[[W]] <{transpose_rhs}>
  %wt = hetg.transpose %w [1, 0] : tensor<256x64xf32>
  %y = hetg.matmul %x, %wt : tensor<2x16x64xf32>, tensor<64x256xf32>
  // CHECK: hetg.matmul %[[A]], %[[X]] <{transpose_lhs}>
  %at = hetg.transpose %a [0, 2, 1] : tensor<2x16x8xf32>
  %z = hetg.matmul %at, %x : tensor<2x8x16xf32>, tensor<2x16x64xf32>
  // A permutation that moves batch dimensions stays a transpose.
  // CHECK: %[[P:.*]] = hetg.transpose %[[A]] [1, 0, 2]
  // CHECK: hetg.matmul %[[P]], %[[V]] <{transpose_rhs}>
  %p = hetg.transpose %a [1, 0, 2] : tensor<2x16x8xf32>
  %q = hetg.matmul %p, %v <{transpose_rhs}> : tensor<16x2x8xf32>, tensor<4x8xf32>
  return %y, %z, %q : tensor<2x16x256xf32>, tensor<2x8x64xf32>, tensor<16x2x4xf32>
}

// -----

// Integer folds wrap as the kernels do (no undefined overflow): INT64_MIN
// divided by -1, negated, plus -1 and times 2.
// CHECK-LABEL: func.func @integer_overflow
// CHECK-DAG: hetg.constant dense<[-9223372036854775808, -5]> : tensor<2xi64>
// CHECK-DAG: hetg.constant dense<[9223372036854775807, 4]> : tensor<2xi64>
// CHECK-DAG: hetg.constant dense<[0, 10]> : tensor<2xi64>
// CHECK-NOT: hetg.div
// CHECK-NOT: hetg.neg
func.func @integer_overflow() -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) {
  %a = hetg.constant dense<[-9223372036854775808, 5]> : tensor<2xi64>
  %m = hetg.constant dense<[-1, -1]> : tensor<2xi64>
  %two = hetg.constant dense<[2, 2]> : tensor<2xi64>
  %d = hetg.div %a, %m : tensor<2xi64>, tensor<2xi64>
  %n = hetg.neg %a : tensor<2xi64>
  %s = hetg.add %a, %m : tensor<2xi64>, tensor<2xi64>
  %p = hetg.mul %a, %two : tensor<2xi64>, tensor<2xi64>
  return %d, %n, %s, %p : tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>
}

// -----

// The gradient of a fused QKV projection read by three slices: the sum of
// their slice_grads is one concatenation, in column order whatever the
// order of the adds.
// CHECK-LABEL: func.func @qkv_gradient_is_a_concat
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x8xf32>, %[[K:.*]]: tensor<2x4x8xf32>, %[[V:.*]]: tensor<2x4x8xf32>)
func.func @qkv_gradient_is_a_concat(%dq: tensor<2x4x8xf32>, %dk: tensor<2x4x8xf32>, %dv: tensor<2x4x8xf32>) -> tensor<2x4x24xf32> {
  // CHECK-NEXT: %[[C:.*]] = hetg.concat %[[Q]], %[[K]], %[[V]] <{axis = 2 : i64}>
  // CHECK-NEXT: return %[[C]]
  %q = hetg.slice_grad %dq <{starts = array<i64: 0, 0, 0>, ends = array<i64: 2, 4, 8>, steps = array<i64: 1, 1, 1>}> : tensor<2x4x8xf32> -> tensor<2x4x24xf32>
  %k = hetg.slice_grad %dk <{starts = array<i64: 0, 0, 8>, ends = array<i64: 2, 4, 16>, steps = array<i64: 1, 1, 1>}> : tensor<2x4x8xf32> -> tensor<2x4x24xf32>
  %v = hetg.slice_grad %dv <{starts = array<i64: 0, 0, -8>, ends = array<i64: 9223372036854775807, 4, 9223372036854775807>, steps = array<i64: 1, 1, 1>}> : tensor<2x4x8xf32> -> tensor<2x4x24xf32>
  %vk = hetg.add %v, %k : tensor<2x4x24xf32>, tensor<2x4x24xf32>
  %sum = hetg.add %q, %vk : tensor<2x4x24xf32>, tensor<2x4x24xf32>
  return %sum : tensor<2x4x24xf32>
}

// -----

// Pieces that leave a gap, overlap, differ in two dimensions or are taken
// with steps stay sums.
// CHECK-LABEL: func.func @slice_grads_that_stay_sums
func.func @slice_grads_that_stay_sums(%a: tensor<4x2xf32>, %b: tensor<4x2xf32>, %c: tensor<2x2xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK-NOT: hetg.concat
  // CHECK-COUNT-3: hetg.add
  %g0 = hetg.slice_grad %a <{starts = array<i64: 0, 0>, ends = array<i64: 4, 2>, steps = array<i64: 1, 1>}> : tensor<4x2xf32> -> tensor<4x8xf32>
  %g1 = hetg.slice_grad %b <{starts = array<i64: 0, 3>, ends = array<i64: 4, 5>, steps = array<i64: 1, 1>}> : tensor<4x2xf32> -> tensor<4x8xf32>
  %gap = hetg.add %g0, %g1 : tensor<4x8xf32>, tensor<4x8xf32>
  %g2 = hetg.slice_grad %a <{starts = array<i64: 0, 0>, ends = array<i64: 4, 4>, steps = array<i64: 1, 2>}> : tensor<4x2xf32> -> tensor<4x8xf32>
  %g3 = hetg.slice_grad %b <{starts = array<i64: 0, 4>, ends = array<i64: 4, 6>, steps = array<i64: 1, 1>}> : tensor<4x2xf32> -> tensor<4x8xf32>
  %steps = hetg.add %g2, %g3 : tensor<4x8xf32>, tensor<4x8xf32>
  %g4 = hetg.slice_grad %c <{starts = array<i64: 0, 0>, ends = array<i64: 2, 2>, steps = array<i64: 1, 1>}> : tensor<2x2xf32> -> tensor<4x8xf32>
  %g5 = hetg.slice_grad %c <{starts = array<i64: 2, 2>, ends = array<i64: 4, 4>, steps = array<i64: 1, 1>}> : tensor<2x2xf32> -> tensor<4x8xf32>
  %diagonal = hetg.add %g4, %g5 : tensor<4x8xf32>, tensor<4x8xf32>
  return %gap, %steps, %diagonal : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// The backward reads the forward's result and row log-sum-exps instead of
// computing them again; a forward whose lse nothing reads drops it.
// CHECK-LABEL: func.func @attention_backward_reads_its_forward
func.func @attention_backward_reads_its_forward(%q: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x4xf32>, %dy: tensor<2x8x4xf32>) -> (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>) {
  // CHECK: %[[O:.*]], %[[LSE:.*]] = hetg.attention %{{.*}} <{causal, scale = 5.000000e-01 : f32, with_lse}>
  // CHECK: hetg.attention_grad {{.*}} forward %[[O]], %[[LSE]] : tensor<2x8x4xf32>, tensor<2x8xf32>
  %o = hetg.attention %q, %k, %v <{causal, scale = 5.0e-01 : f32}> : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>
  %dq, %dk, %dv = hetg.attention_grad %q, %k, %v, %dy <{causal, scale = 5.0e-01 : f32}> : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>
  // Another scale is another attention: computed again.
  // CHECK: hetg.attention_grad
  // CHECK-NOT: forward
  // CHECK-SAME: scale = 2.500000e-01
  %dq2, %dk2, %dv2 = hetg.attention_grad %q, %k, %v, %dy <{causal, scale = 2.5e-01 : f32}> : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>
  return %o, %dq, %dk, %dv, %dq2 : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>
}

// -----

// CHECK-LABEL: func.func @unread_lse_is_dropped
func.func @unread_lse_is_dropped(%q: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  // CHECK: hetg.attention %{{.*}} <{scale = 5.000000e-01 : f32}>
  %o, %lse = hetg.attention %q, %q, %q <{scale = 5.0e-01 : f32, with_lse}> : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>
  return %o : tensor<2x8x4xf32>
}

// -----

// A bf16 gradient widened only for the update is read as it is; a widened
// gradient something else reads too, and a narrowing, stay.
// CHECK-LABEL: func.func @gradient_read_unwidened
func.func @gradient_read_unwidened(%p: tensor<4xf32>, %g16: tensor<4xbf16>, %m: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<i64>, %g64: tensor<4xf64>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK-NEXT: hetg.adamw %arg0, %arg1, {{.*}} : tensor<4xf32> grad tensor<4xbf16>, tensor<i64>
  // CHECK-NEXT: %[[SHARED:.*]] = hetg.cast %arg1 to f32 : tensor<4xbf16>
  // CHECK-NEXT: hetg.adamw %arg0, %[[SHARED]], {{.*}} : tensor<4xf32>, tensor<i64>
  // CHECK-NEXT: %[[NARROWED:.*]] = hetg.cast %arg5 to f32 : tensor<4xf64>
  // CHECK-NEXT: hetg.adamw %{{.*}}, %[[NARROWED]], {{.*}} : tensor<4xf32>, tensor<i64>
  %g = hetg.cast %g16 to f32 : tensor<4xbf16>
  %p1, %m1, %v1 = hetg.adamw %p, %g, %m, %v, %t <{lr = 1.0e-3 : f64}> : tensor<4xf32>, tensor<i64>
  %shared = hetg.cast %g16 to f32 : tensor<4xbf16>
  %p2, %m2, %v2 = hetg.adamw %p, %shared, %m1, %v1, %t <{lr = 1.0e-3 : f64}> : tensor<4xf32>, tensor<i64>
  %narrowed = hetg.cast %g64 to f32 : tensor<4xf64>
  %p3, %m3, %v3 = hetg.adamw %p2, %narrowed, %m2, %v2, %t <{lr = 1.0e-3 : f64}> : tensor<4xf32>, tensor<i64>
  return %p3, %m3, %v3, %shared : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
