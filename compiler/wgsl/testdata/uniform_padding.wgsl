// waverig WGSL: entry point main (Compute)

struct Consts_uniform {
  a: array<vec4<f32>, 4>,
  b: array<vec4<f32>, 2>,
  @size(12) n: u32,
}

var<private> tid: vec3<u32>;
@group(0) @binding(1) var<uniform> C: Consts_uniform;
@group(0) @binding(0) var<storage, read_write> Out: array<f32>;

fn main_body() {
  Out[tid.x] = (C.a[(tid.x % C.n)].x + C.b[1u].xy.y);
}

@compute @workgroup_size(4, 1, 1)
fn main(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
) {
  tid = tid_in;
  main_body();
}
