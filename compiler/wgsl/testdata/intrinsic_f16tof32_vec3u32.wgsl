// waverig WGSL: entry point main (Compute)

var<private> tid: vec3<u32>;
@group(0) @binding(0) var<storage, read_write> Out: array<vec3<f32>>;

fn wr_f16tof32_vec3_u32(x: vec3<u32>) -> vec3<f32> {
  return vec3<f32>(unpack2x16float(x.x).x, unpack2x16float(x.y).x, unpack2x16float(x.z).x);
}

fn main_body() {
  Out[tid.x] = wr_f16tof32_vec3_u32(vec3<u32>(tid.x, tid.x, tid.x));
}

@compute @workgroup_size(64, 1, 1)
fn main(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
) {
  tid = tid_in;
  main_body();
}
