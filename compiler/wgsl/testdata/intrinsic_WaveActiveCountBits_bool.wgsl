// waverig WGSL: entry point main (Compute)

var<private> tid: vec3<u32>;
@group(0) @binding(0) var<storage, read_write> Out: array<u32>;

// WaveActiveCountBits: WGSL has no ballot bit count; add the popcounts of the four words.
fn wr_count_ballot(b: vec4<u32>) -> u32 {
  return countOneBits(b.x) + countOneBits(b.y) + countOneBits(b.z) + countOneBits(b.w);
}

fn main_body() {
  Out[tid.x] = wr_count_ballot(subgroupBallot((tid.x > 1u)));
}

@compute @workgroup_size(64, 1, 1)
fn main(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
) {
  tid = tid_in;
  main_body();
}
