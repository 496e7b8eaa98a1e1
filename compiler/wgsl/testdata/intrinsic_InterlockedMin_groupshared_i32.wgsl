// waverig WGSL: entry point main (Compute)

var<private> tid: vec3<u32>;
var<workgroup> counters: array<atomic<i32>, 4>;
@group(0) @binding(0) var<storage, read_write> Out: array<i32>;

fn main_body() {
  atomicMin(&counters[1u], i32(tid.x));
  Out[tid.x] = atomicLoad(&counters[1u]);
}

@compute @workgroup_size(64, 1, 1)
fn main(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
) {
  tid = tid_in;
  main_body();
}
