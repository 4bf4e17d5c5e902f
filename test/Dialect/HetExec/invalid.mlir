// RUN: hetc-opt %s --split-input-file --verify-diagnostics

// Ids are positions.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  // expected-error @+1 {{'hetx.buffer' op has id 1 but is buffer 0 of the program; ids are positions}}
  %l = hetx.buffer 1 "loss" activation at 0 : memref<f32>
  hetx.return %l : memref<f32>
}

// -----

// Declarations come before launches.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  hetx.launch "zero"() -> (%l) : () -> (memref<f32>)
  // expected-error @+1 {{declares a buffer after the first launch; buffers come first}}
  %m = hetx.buffer 1 "m" activation at 64 : memref<f32>
  hetx.return %l : memref<f32>
}

// -----

// Buffers fit in the arena.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 100 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  // expected-error @+1 {{bytes [64, 128) do not fit in the arena of 100 bytes}}
  %m = hetx.buffer 1 "m" activation at 64 : memref<16xf32>
  hetx.return %l : memref<f32>
}

// -----

// Persistent buffers never share bytes.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  %w = hetx.buffer 1 "w" parameter at 64 init dense<0.0> : tensor<32xf32> : memref<32xf32>
  // expected-error @+1 {{bytes [128, 192) overlap those of persistent buffer 1 [64, 192)}}
  %m = hetx.buffer 2 "m" optimizer_state at 128 : memref<16xf32>
  hetx.return %l : memref<f32>
}

// -----

// Parameters and constants are loaded by name, so names are unique.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  %w = hetx.buffer 1 "w" parameter at 64 init dense<0.0> : tensor<f32> : memref<f32>
  // expected-error @+1 {{has the name 'w' of buffer 1; parameters and constants are loaded by name}}
  %c = hetx.buffer 2 "w" constant at 128 init dense<0.0> : tensor<f32> : memref<f32>
  hetx.return %l : memref<f32>
}

// -----

// Tokens and labels are samples of the program's range, one input per
// micro-batch.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 2 : i64, num_samples = 2 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  %x = hetx.buffer 1 "input_ids" input(tokens) at 64 first_sample 2 : memref<1x4xi64>
  // expected-error @+1 {{'hetx.buffer' op reads samples [3, 5), outside the program's samples [2, 4)}}
  %y = hetx.buffer 2 "input_ids" input(tokens) at 128 first_sample 3 : memref<2x4xi64>
  hetx.return %l : memref<f32>
}

// -----

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 2 : i64, num_samples = 2 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  // expected-error @+1 {{'hetx.buffer' op reads samples [0, 2), outside the program's samples [2, 4)}}
  %y = hetx.buffer 1 "labels" input(labels) at 64 : memref<2x4xi64>
  hetx.return %l : memref<f32>
}

// -----

// Only tokens and labels inputs, which own their bytes, have a first sample.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  // expected-error @+1 {{'hetx.buffer' op has a first_sample but is no tokens or labels input}}
  %x = hetx.buffer 1 "x" input(feed) at 64 first_sample 0 : memref<1x4xf32>
  hetx.return %l : memref<f32>
}

// -----

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  // expected-error @+1 {{'hetx.buffer' op has a first_sample but is no tokens or labels input}}
  %l = hetx.buffer 0 "loss" activation at 0 first_sample 0 : memref<f32>
  hetx.return %l : memref<f32>
}

// -----

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  // expected-error @+1 {{'hetx.buffer' op first_sample must be non-negative, got -1}}
  %x = hetx.buffer 1 "input_ids" input(tokens) at 64 first_sample -1 : memref<1x4xi64>
  hetx.return %l : memref<f32>
}

// -----

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 2 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  %x = hetx.buffer 1 "input_ids" input(tokens) at 64 first_sample 0 : memref<2x4xi64>
  // expected-error @+1 {{'hetx.buffer' op is an alias and cannot have a first_sample; the data loader fills the buffer it views}}
  %r = hetx.buffer 2 "slice.2" input(tokens) at 96 first_sample 1 alias %x : memref<2x4xi64> : memref<1x4xi64>
  hetx.return %l : memref<f32>
}

// -----

// Inputs have a role; nothing else does.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  // expected-error @+1 {{must have a role (tokens, labels, feed or step) exactly when it is an input}}
  %x = hetx.buffer 1 "input_ids" input at 64 : memref<1x4xi64>
  hetx.return %l : memref<f32>
}

// -----

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  // expected-error @+1 {{must have a role (tokens, labels, feed or step) exactly when it is an input}}
  %x = hetx.buffer 1 "t" activation(labels) at 64 : memref<1x4xi64>
  hetx.return %l : memref<f32>
}

// -----

// Offsets of owning buffers are 64-byte aligned.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  // expected-error @+1 {{offset 72 is not a multiple of 64}}
  %x = hetx.buffer 1 "t" activation at 72 : memref<4xf32>
  hetx.return %l : memref<f32>
}

// -----

// Parameters and constants carry their initial value; nothing else does.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  // expected-error @+1 {{must have an initial value exactly when it is a parameter or a constant}}
  %w = hetx.buffer 1 "w" parameter at 64 : memref<4xf32>
  hetx.return %l : memref<f32>
}

// -----

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  // expected-error @+1 {{must have an initial value exactly when it is a parameter or a constant}}
  %t = hetx.buffer 1 "t" activation at 64 init dense<0.0> : tensor<4xf32> : memref<4xf32>
  hetx.return %l : memref<f32>
}

// -----

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  // expected-error @+1 {{initial value of type 'tensor<2x2xf32>' does not match the buffer type 'memref<4xf32>'}}
  %w = hetx.buffer 1 "w" parameter at 64 init dense<0.0> : tensor<2x2xf32> : memref<4xf32>
  hetx.return %l : memref<f32>
}

// -----

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  // expected-error @+1 {{must have a name: parameters and constants are loaded by name}}
  %w = hetx.buffer 1 "" constant at 64 init dense<0.0> : tensor<4xf32> : memref<4xf32>
  hetx.return %l : memref<f32>
}

// -----

// An alias views bytes of the buffer it aliases and has its kind.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  %t = hetx.buffer 1 "t" activation at 64 : memref<2x4xf32>
  // expected-error @+1 {{'hetx.buffer' op bytes [80, 112) lie outside those of buffer 1 [64, 96), which it aliases}}
  %a = hetx.buffer 2 "a" activation at 80 alias %t : memref<2x4xf32> : memref<8xf32>
  hetx.return %l : memref<f32>
}

// -----

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  %t = hetx.buffer 1 "t" activation at 64 : memref<2x4xf32>
  // expected-error @+1 {{'hetx.buffer' op bytes [60, 76) lie outside those of buffer 1 [64, 96), which it aliases}}
  %a = hetx.buffer 2 "a" activation at 60 alias %t : memref<2x4xf32> : memref<4xf32>
  hetx.return %l : memref<f32>
}

// -----

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  %w = hetx.buffer 1 "w" parameter at 64 init dense<0.0> : tensor<2x4xf32> : memref<2x4xf32>
  // expected-error @+1 {{is a activation buffer but aliases a parameter buffer}}
  %a = hetx.buffer 2 "a" activation at 64 alias %w : memref<2x4xf32> : memref<8xf32>
  hetx.return %l : memref<f32>
}

// -----

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  %t = hetx.buffer 1 "t" activation at 64 : memref<2x4xf32>
  %a = hetx.buffer 2 "a" activation at 64 alias %t : memref<2x4xf32> : memref<8xf32>
  // expected-error @+1 {{aliases buffer 2, which is itself an alias; alias the buffer that owns the bytes}}
  %b = hetx.buffer 3 "b" activation at 64 alias %a : memref<8xf32> : memref<4x2xf32>
  hetx.return %l : memref<f32>
}

// -----

// Kernels never write inputs or constants.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  %c = hetx.buffer 1 "c" constant at 64 init dense<0.0> : tensor<f32> : memref<f32>
  // expected-error @+1 {{writes buffer 1 ('c'), which is a constant and read-only}}
  hetx.launch "neg"(%l) -> (%c) : (memref<f32>) -> (memref<f32>)
  hetx.return %l : memref<f32>
}

// -----

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  %x = hetx.buffer 1 "x" input(tokens) at 64 : memref<1x4xi64>
  // expected-error @+1 {{writes buffer 1 ('x'), which is an input and read-only}}
  hetx.launch "zero"() -> (%x) : () -> (memref<1x4xi64>)
  hetx.return %l : memref<f32>
}

// -----

// A launch's segment comes with its pass.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  // expected-error @+1 {{needs a segment and a phase together, or neither}}
  hetx.launch "mul"(%l, %l) -> (%l) {segment = 2 : i64} : (memref<f32>, memref<f32>) -> (memref<f32>)
  hetx.return %l : memref<f32>
}

// -----

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  // expected-error @+1 {{segment must be >= 0, got -1}}
  hetx.launch "mul"(%l, %l) -> (%l) segment -1 forward : (memref<f32>, memref<f32>) -> (memref<f32>)
  hetx.return %l : memref<f32>
}

// -----

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  // expected-error @+1 {{must name a kernel}}
  hetx.launch ""(%l) -> (%l) : (memref<f32>) -> (memref<f32>)
  hetx.return %l : memref<f32>
}

// -----

// The loss is a 0-D f32 buffer.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<2xf32>
  // expected-error @+1 {{operand #0 must be 0D memref of 32-bit float values}}
  hetx.return %l : memref<2xf32>
}

// -----

// Buffers are row-major.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 1024 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  // expected-error @+1 {{must have a row-major memref type without a memory space}}
  %t = hetx.buffer 1 "t" activation at 64 : memref<2x4xf32, strided<[1, 2]>>
  hetx.return %l : memref<f32>
}

// -----

// Program attributes are non-negative.

// expected-error @+1 {{'hetx.program' op arena_bytes and host_arena_bytes must be non-negative, got -1 and 0}}
hetx.program @p attributes {rank = 0 : i32, arena_bytes = -1 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  hetx.return %l : memref<f32>
}

// -----

// expected-error @+1 {{'hetx.program' op stage and replica must be non-negative, got stage 0, replica -1}}
hetx.program @p attributes {rank = 0 : i32, replica = -1 : i32, arena_bytes = 4 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
  hetx.return %l : memref<f32>
}

// -----

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 4 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  // expected-error @+1 {{block with no terminator}}
  %l = hetx.buffer 0 "loss" activation at 0 : memref<f32>
}

// -----

// Buffers live in programs.

// expected-error @+1 {{expects parent op 'hetx.program'}}
%l = hetx.buffer 0 "loss" activation at 0 : memref<f32>

// -----

// Only optimizer state and activations live on the host.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 64 : i64, host_arena_bytes = 64 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  // expected-error @+1 {{is a host buffer but a parameter; only optimizer state and activations live on the host}}
  %w = hetx.buffer 0 "w" parameter host at 0 init dense<1.0> : tensor<4xf32> : memref<4xf32>
  hetx.return
}

// -----

// Host buffers fit in the host arena.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 64 : i64, host_arena_bytes = 32 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  // expected-error @+1 {{bytes [0, 64) do not fit in the host arena of 32 bytes}}
  %m = hetx.buffer 0 "m" optimizer_state host at 0 : memref<16xf32>
  hetx.return
}

// -----

// A view lies where the buffer it views does.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 64 : i64, host_arena_bytes = 64 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %m = hetx.buffer 0 "m" optimizer_state host at 0 : memref<16xf32>
  // expected-error @+1 {{lies on the device but aliases buffer 0, which does not}}
  %v = hetx.buffer 1 "v" optimizer_state at 0 alias %m : memref<16xf32> : memref<4x4xf32>
  hetx.return
}

// -----

// Only a copy moves bytes between the host and the device.

hetx.program @p attributes {rank = 0 : i32, arena_bytes = 64 : i64, host_arena_bytes = 64 : i64, first_sample = 0 : i64, num_samples = 1 : i64} {
  %m = hetx.buffer 0 "m" optimizer_state host at 0 : memref<16xf32>
  %a = hetx.buffer 1 "a" activation at 0 : memref<16xf32>
  hetx.launch "copy"(%a) -> (%m) : (memref<16xf32>) -> (memref<16xf32>)
  // expected-error @+1 {{mixes host and device buffers; only a copy moves bytes between them}}
  hetx.launch "neg"(%a) -> (%m) : (memref<16xf32>) -> (memref<16xf32>)
  hetx.return
}
