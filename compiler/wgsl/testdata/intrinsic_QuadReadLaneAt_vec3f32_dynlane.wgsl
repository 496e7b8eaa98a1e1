// waverig WGSL: entry point main (Compute)

var<private> tid: vec3<u32>;
@group(0) @binding(0) var<storage, read_write> Out: array<vec3<f32>>;

// QuadReadLaneAt with a variable lane: quadBroadcast takes only constant lanes.
fn wr_quad_read_lane_at_vec3_f32(x: vec3<f32>, lane: u32) -> vec3<f32> {
  let l = lane & 3u;
  let a = quadBroadcast(x, 0u);
  let b = quadBroadcast(x, 1u);
  let c = quadBroadcast(x, 2u);
  let d = quadBroadcast(x, 3u);
  return select(select(select(a, b, l == 1u), c, l == 2u), d, l == 3u);
}

fn main_body() {
  Out[tid.x] = wr_quad_read_lane_at_vec3_f32(vec3<f32>(f32(tid.x), f32(tid.x), f32(tid.x)), (tid.x & 3u));
}

@compute @workgroup_size(64, 1, 1)
fn main(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
) {
  tid = tid_in;
  main_body();
}
