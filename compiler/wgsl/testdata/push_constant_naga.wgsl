// waverig WGSL: entry point main (Compute)

struct Params {
  scale: u32,
  bias: u32,
}

var<private> tid: vec3<u32>;
var<immediate> params: Params;
@group(0) @binding(0) var<storage, read_write> Out: array<u32>;

fn main_body() {
  Out[tid.x] = (params.scale + params.bias);
}

@compute @workgroup_size(8, 1, 1)
fn main(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
) {
  tid = tid_in;
  main_body();
}
