// waverig WGSL: entry point main (Compute)

var<private> tid: vec3<u32>;
@group(0) @binding(1) var<storage, read_write> Counters: array<atomic<u32>>;
@group(0) @binding(0) var<storage, read_write> Out: array<u32>;

fn main_body() {
  var original: u32;
  let wr_cmp1 = tid.x;
  let wr_value2 = tid.x;
  var wr_original3: u32;
  loop {
    let wr_cas4 = atomicCompareExchangeWeak(&Counters[0u], wr_cmp1, wr_value2);
    if wr_cas4.exchanged || wr_cas4.old_value != wr_cmp1 {
      wr_original3 = wr_cas4.old_value;
      break;
    }
  }
  original = wr_original3;
  Out[tid.x] = atomicLoad(&Counters[0u]);
  Out[0u] = original;
}

@compute @workgroup_size(64, 1, 1)
fn main(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
) {
  tid = tid_in;
  main_body();
}
