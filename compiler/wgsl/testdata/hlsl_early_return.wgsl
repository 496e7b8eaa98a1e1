// waverig WGSL: entry point main (Compute)

@group(0) @binding(0) var<storage, read_write> Out: array<u32>;
var<workgroup> g: array<u32, 64>;
var<private> id: vec3<u32>;
var<private> gi: u32;

fn main_impl(id_1: vec3<u32>, gi_1: u32) {
  var s: u32;
  var wr_active: bool = true;
  if wr_active {
    if (gi_1 >= 40u) {
      wr_active = false;
    }
  }
  if wr_active {
    g[gi_1] = (gi_1 * 3u);
  }
  workgroupBarrier();
  s = 1u;
  loop {
    if (!(s < 4u)) {
      break;
    }
    if wr_active {
      if (Out[gi_1] == 12345u) {
        wr_active = false;
      }
    }
    if wr_active {
      g[gi_1] = (g[gi_1] + s);
    }
    workgroupBarrier();
    continuing {
      s = (s + 1u);
    }
  }
  if wr_active {
    Out[gi_1] = g[(gi_1 ^ 1u)];
  }
}

fn main_body() {
  main_impl(id, gi);
}

@compute @workgroup_size(64, 1, 1)
fn main(
  @builtin(global_invocation_id) id_in: vec3<u32>,
  @builtin(local_invocation_index) gi_in: u32,
) {
  id = id_in;
  gi = gi_in;
  main_body();
}
