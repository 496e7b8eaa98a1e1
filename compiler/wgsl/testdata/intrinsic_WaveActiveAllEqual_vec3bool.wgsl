// waverig WGSL: entry point main (Compute)

var<private> tid: vec3<u32>;
@group(0) @binding(0) var<storage, read_write> Out: array<vec3<u32>>;

// WaveActiveAllEqual: per component, subgroupAll(x == subgroupBroadcastFirst(x)).
fn wr_all_equal_vec3_bool(x: vec3<bool>) -> vec3<bool> {
  let v = select(vec3<u32>(0u), vec3<u32>(1u), x);
  let first = subgroupBroadcastFirst(v);
  return vec3<bool>(subgroupAll(v.x == first.x), subgroupAll(v.y == first.y), subgroupAll(v.z == first.z));
}

fn main_body() {
  Out[tid.x] = vec3<u32>(wr_all_equal_vec3_bool(vec3<bool>((tid.x > 1u), (tid.x > 1u), (tid.x > 1u))));
}

@compute @workgroup_size(64, 1, 1)
fn main(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
) {
  tid = tid_in;
  main_body();
}
