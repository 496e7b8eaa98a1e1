// waverig WGSL: entry point CSSum (Compute)

@group(0) @binding(0) var<storage, read> Values: array<u32>;
@group(0) @binding(1) var<storage, read_write> Total: array<atomic<u32>>;
var<private> id: vec3<u32>;
var<private> wr_lane_index: u32;

fn CSSum_impl(id_1: vec3<u32>) {
  var waveTotal: u32;
  waveTotal = subgroupAdd(Values[id_1.x]);
  if (wr_lane_index == subgroupBroadcastFirst(wr_lane_index)) {
    atomicAdd(&Total[0u], waveTotal);
  }
}

fn CSSum_body() {
  CSSum_impl(id);
}

@compute @workgroup_size(64, 1, 1)
fn CSSum(
  @builtin(global_invocation_id) id_in: vec3<u32>,
  @builtin(subgroup_invocation_id) wr_subgroup_invocation_id: u32,
) {
  id = id_in;
  wr_lane_index = wr_subgroup_invocation_id;
  CSSum_body();
}
