enable subgroups;
diagnostic(off, subgroup_uniformity);
// waverig WGSL: entry point CSSum (Compute)

@group(0) @binding(0) var<storage, read> Input: array<u32>;
@group(0) @binding(1) var<storage, read_write> Output: array<atomic<u32>>;
var<private> id: vec3<u32>;

fn CSSum_impl(id_1: vec3<u32>) {
  var sum: u32;
  sum = subgroupAdd(Input[id_1.x]);
  if subgroupElect() {
    atomicAdd(&Output[0i], sum);
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
