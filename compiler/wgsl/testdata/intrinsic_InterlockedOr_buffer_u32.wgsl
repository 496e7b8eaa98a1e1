// waverig WGSL: entry point main (Compute)

var<private> tid: vec3<u32>;
@group(0) @binding(1) var<storage, read_write> Counters: array<atomic<u32>>;
@group(0) @binding(0) var<storage, read_write> Out: array<u32>;

fn main_body() {
  atomicOr(&Counters[0u], tid.x);
  Out[tid.x] = atomicLoad(&Counters[0u]);
}

@compute @workgroup_size(64, 1, 1)
fn main(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
) {
  tid = tid_in;
  main_body();
}
