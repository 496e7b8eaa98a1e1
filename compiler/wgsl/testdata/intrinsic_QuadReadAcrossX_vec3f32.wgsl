// waverig WGSL: entry point main (Compute)

var<private> tid: vec3<u32>;
@group(0) @binding(0) var<storage, read_write> Out: array<vec3<f32>>;

fn main_body() {
  Out[tid.x] = quadSwapX(vec3<f32>(f32(tid.x), f32(tid.x), f32(tid.x)));
}

@compute @workgroup_size(64, 1, 1)
fn main(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
) {
  tid = tid_in;
  main_body();
}
