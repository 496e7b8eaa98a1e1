// waverig WGSL: entry point Reduce (Compute)

var<private> tid: vec3<u32>;
@group(0) @binding(0) var<storage, read_write> Out: array<u32>;
var<workgroup> u_shared: array<u32, 64>;

fn Reduce_body() {
  var i: u32;
  var wr_active: bool = true;
  if wr_active {
    if (tid.x >= 48u) {
      wr_active = false;
    }
  }
  if wr_active {
    u_shared[tid.x] = tid.x;
  }
  workgroupBarrier();
  if wr_active {
    Out[tid.x] = u_shared[(tid.x ^ 1u)];
  }
  i = 0u;
  loop {
    if (i >= 4u) {
      break;
    }
    if wr_active {
      if (Out[tid.x] == i) {
        wr_active = false;
      }
    }
    if wr_active {
      u_shared[tid.x] = (u_shared[tid.x] + i);
    }
    workgroupBarrier();
    continuing {
      i = (i + 1u);
    }
  }
  if wr_active {
    Out[tid.x] = u_shared[tid.x];
  }
}

@compute @workgroup_size(64, 1, 1)
fn Reduce(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
) {
  tid = tid_in;
  Reduce_body();
}
