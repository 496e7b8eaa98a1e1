// waverig WGSL: entry point main (Compute)

var<private> tid: vec3<u32>;
@group(0) @binding(0) var<storage, read_write> Out: array<u32>;
var<private> wr_lane_index: u32;

fn main_body() {
  Out[tid.x] = wr_lane_index;
}

@compute @workgroup_size(64, 1, 1)
fn main(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
  @builtin(subgroup_invocation_id) wr_subgroup_invocation_id: u32,
) {
  tid = tid_in;
  wr_lane_index = wr_subgroup_invocation_id;
  main_body();
}
