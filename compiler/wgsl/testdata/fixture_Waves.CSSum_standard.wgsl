enable subgroups;
diagnostic(off, subgroup_uniformity);
// waverig WGSL: entry point CSSum (Compute)

@group(0) @binding(0) var<storage, read> Values: array<u32>;
@group(0) @binding(1) var<storage, read_write> Total: array<atomic<u32>>;
var<private> id: vec3<u32>;

fn CSSum_impl(id_1: vec3<u32>) {
  var waveTotal: u32;
  waveTotal = subgroupAdd(Values[id_1.x]);
  if subgroupElect() {
    atomicAdd(&Total[0u], waveTotal);
  }
}

fn CSSum_body() {
  CSSum_impl(id);
}

@compute @workgroup_size(64, 1, 1)
fn CSSum(
  @builtin(global_invocation_id) id_in: vec3<u32>,
) {
  id = id_in;
  CSSum_body();
}
