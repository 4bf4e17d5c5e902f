// RUN: hetc-opt %s --split-input-file --hetd-schedule-collectives | FileCheck %s

// A gather moves to its first reader, after the slice and reshape that take
// its result apart moved to theirs; a reduce-scatter moves up to the op
// completing its input, with the flattening and concatenation building it.

// CHECK-LABEL: func.func @segments
// CHECK: %[[A:.*]] = hetg.neg %arg0
// CHECK-NEXT: %[[G:.*]] = hetd.all_gather %arg1 group [0, 1] counts [2, 2]
// CHECK-NEXT: %[[S:.*]] = hetg.slice %[[G]]
// CHECK-NEXT: %[[W:.*]] = hetg.reshape %[[S]] : tensor<4xf32> -> tensor<2x2xf32>
// CHECK-NEXT: %[[B:.*]] = hetg.matmul %[[A]], %[[W]]
// CHECK-NEXT: %[[F:.*]] = hetg.reshape %[[B]] : tensor<2x2xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = hetd.reduce_scatter %[[F]] group [0, 1] counts [2, 2]
// CHECK-NEXT: %[[C:.*]] = hetg.exp %[[B]]
// CHECK-NEXT: return %[[C]], %[[R]]
func.func @segments(%x: tensor<2x2xf32>, %mine: tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>) attributes {hetd.rank = 0 : i64} {
  %all = hetd.all_gather %mine group [0, 1] counts [2, 2] : tensor<2xf32> -> tensor<4xf32>
  %flat = hetg.slice %all <{starts = array<i64: 0>, ends = array<i64: 4>, steps = array<i64: 1>}> : tensor<4xf32>
  %w = hetg.reshape %flat : tensor<4xf32> -> tensor<2x2xf32>
  %a = hetg.neg %x : tensor<2x2xf32>
  %b = hetg.matmul %a, %w : tensor<2x2xf32>, tensor<2x2xf32>
  %c = hetg.exp %b : tensor<2x2xf32>
  %g = hetg.reshape %b : tensor<2x2xf32> -> tensor<4xf32>
  %shard = hetd.reduce_scatter %g group [0, 1] counts [2, 2] : tensor<4xf32> -> tensor<2xf32>
  return %c, %shard : tensor<2x2xf32>, tensor<2xf32>
}

// -----

// Collectives keep their order with every op crossing ranks: the gather
// passes the exp but stops at the send before its reader, the
// reduce-scatter passes the log but stops at the receive after its input.

// CHECK-LABEL: func.func @barriers
// CHECK: hetg.exp
// CHECK-NEXT: hetd.all_gather
// CHECK-NEXT: hetd.send
// CHECK-NEXT: hetg.neg
// CHECK-NEXT: hetd.recv
// CHECK-NEXT: hetd.reduce_scatter
// CHECK-NEXT: hetg.log
func.func @barriers(%x: tensor<4xf32>, %mine: tensor<2xf32>) -> (tensor<4xf32>, tensor<2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) attributes {hetd.rank = 0 : i64} {
  %all = hetd.all_gather %mine group [0, 1] counts [2, 2] : tensor<2xf32> -> tensor<4xf32>
  %e = hetg.exp %x : tensor<4xf32>
  hetd.send %x rows[0, 4) to 2 tag 0 : tensor<4xf32>
  %a = hetg.neg %all : tensor<4xf32>
  %y = hetd.recv from 2 tag 1 : tensor<4xf32>
  %l = hetg.log %x : tensor<4xf32>
  %shard = hetd.reduce_scatter %a group [0, 1] counts [2, 2] : tensor<4xf32> -> tensor<2xf32>
  return %a, %shard, %y, %e, %l : tensor<4xf32>, tensor<2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
