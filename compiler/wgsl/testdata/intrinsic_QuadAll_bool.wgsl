// waverig WGSL: entry point main (Compute)

var<private> tid: vec3<u32>;
@group(0) @binding(0) var<storage, read_write> Out: array<u32>;

// QuadAll: the predicate as u32, combined with its three quad swaps.
fn wr_quad_all(x: bool) -> bool {
  let v = select(0u, 1u, x);
  return (v & quadSwapX(v) & quadSwapY(v) & quadSwapDiagonal(v)) != 0u;
}

fn main_body() {
  Out[tid.x] = u32(wr_quad_all((tid.x > 1u)));
}

@compute @workgroup_size(64, 1, 1)
fn main(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
) {
  tid = tid_in;
  main_body();
}
