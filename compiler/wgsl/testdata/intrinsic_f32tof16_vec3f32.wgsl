// waverig WGSL: entry point main (Compute)

var<private> tid: vec3<u32>;
@group(0) @binding(0) var<storage, read_write> Out: array<vec3<u32>>;

fn wr_f32tof16_vec3_f32(x: vec3<f32>) -> vec3<u32> {
  return vec3<u32>(pack2x16float(vec2<f32>(x.x, 0.0)), pack2x16float(vec2<f32>(x.y, 0.0)), pack2x16float(vec2<f32>(x.z, 0.0)));
}

fn main_body() {
  Out[tid.x] = wr_f32tof16_vec3_f32(vec3<f32>(f32(tid.x), f32(tid.x), f32(tid.x)));
}

@compute @workgroup_size(64, 1, 1)
fn main(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
) {
  tid = tid_in;
  main_body();
}
