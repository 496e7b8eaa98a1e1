enable subgroups;
diagnostic(off, subgroup_uniformity);
// waverig WGSL: entry point CSSum (Compute)

var<private> tid: vec3<u32>;
@group(0) @binding(0) var<storage, read> In: array<u32>;
@group(0) @binding(1) var<storage, read_write> Out: array<u32>;
@group(0) @binding(2) var<storage, read_write> Count: array<u32>;
var<private> wr_lane_index: u32;
var<private> wr_lane_count: u32;

fn CSSum_body() {
  Out[tid.x] = subgroupAdd(In[tid.x]);
  if subgroupElect() {
    Count[(tid.x / wr_lane_count)] = wr_lane_count;
    Count[63u] = wr_lane_index;
  }
}

@compute @workgroup_size(64, 1, 1)
fn CSSum(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
  @builtin(subgroup_invocation_id) wr_subgroup_invocation_id: u32,
  @builtin(subgroup_size) wr_subgroup_size: u32,
) {
  tid = tid_in;
  wr_lane_index = wr_subgroup_invocation_id;
  wr_lane_count = wr_subgroup_size;
  CSSum_body();
}
