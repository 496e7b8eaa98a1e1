// Package msl is the compiler's Metal Shading Language 2.4 back end: it prints one
// entry point of an *ir.Module as MSL source plus the table of Metal argument
// indices a host needs to bind its resources. Amplification and mesh entry points
// are Metal 3 (MSL 3.0) object and mesh functions; mesh.go describes that lowering
// (the payload, DispatchMesh, and the gather of the per-field mesh outputs).
//
// # Representation choices (shared with the SPIR-V back end so buffer bytes agree)
//
// Matrices. HLSL floatRxC (R rows of C-vectors, ir.Matrix{Rows: R, Cols: C}) is the
// MSL type `floatRxC`, which Metal reads as R *columns* of C-vectors: an HLSL row is
// an MSL column, exactly as DXC maps HLSL rows onto SPIR-V matrix columns. So m[i]
// is HLSL row i in both, and mul() swaps its operands:
//
//	mul(v, M) -> M * v      mul(M, v) -> v * M      mul(A, B) -> B * A
//
// In memory an MSL matrix is stored column after column, i.e. HLSL row after row:
// row_major buffer matrices are declared `floatRxC` as they are. column_major ones
// (HLSL's default in cbuffers) are declared `floatCxR` and every whole-matrix load
// or store goes through transpose(); element accesses swap the two indices.
// Matrix and array strides must equal Metal's natural ones, otherwise E0705.
//
// Buffers. StructuredBuffer<T> / ByteAddressBuffer are `const device T*`, the RW
// forms `device T*`, cbuffers and push constants `constant S&`. Arguments are
// numbered deterministically: the entry point's reachable resources sorted by
// (Vulkan set, binding, name); buffers take [[buffer(0..)]], then the push-constant
// block, textures [[texture(0..)]], samplers [[sampler(0..)]]. Output.Arguments lists
// every one with its Vulkan set/binding (-1/-1 for push constants and the sizes
// table) so a host can map its descriptor layout onto Metal indices.
//
// Buffer sizes. Metal cannot query a buffer's length in a shader, so an entry that
// calls GetDimensions on a buffer takes one extra argument, always last among the
// buffers:
//
//	constant uint* _buffer_sizes [[buffer(K)]]
//
// where the host stores, at index i, the byte length of the buffer bound at
// [[buffer(i)]] (the same convention as SPIRV-Cross's buffer-size buffer).
// BufferGetDimensions (the runtime array's element count, as sema defines it for
// structured and byte-address buffers alike) is _buffer_sizes[i] / ArrayStride.
//
// Stage IO. Compute builtins become kernel parameters with their Metal attributes;
// pixel/vertex user inputs form a [[stage_in]] struct (user(locN) / attribute(N)),
// outputs a returned struct (color(N) / user(locN) / position). Module-scope state
// that Metal cannot keep at program scope (resources, statics, groupshared, stage
// IO, the simd-group builtins) is declared in the entry function and passed to the
// helper functions that use it as trailing parameters, by reference where HLSL may
// write it. WaveGetLaneCount/Index read `[[threads_per_simdgroup]]` /
// `[[thread_index_in_simdgroup]]`, which Metal has no vertex equivalent of (E0702).
//
// Control flow. ir.Loop with a continuing block prints as
//
//	for (bool _wr_cN = false;; _wr_cN = true) { if (_wr_cN) { continuing; if (breakIf) break; } body }
//
// so `continue` (which runs the for-increment and returns to the top) still runs the
// continuing block first. Names Metal or C++ reserve get a trailing underscore
// (an entry named main becomes main_; Output.EntryName says so).
package msl
