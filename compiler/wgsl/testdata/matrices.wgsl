// waverig WGSL: entry point main (Compute)

struct Mats_colmajor {
  cm: mat3x2<f32>,
  rm: mat2x3<f32>,
}

var<private> tid: vec3<u32>;
@group(0) @binding(0) var<storage, read_write> M: Mats_colmajor;
@group(0) @binding(1) var<storage, read_write> Out: array<vec3<f32>>;

fn main_body() {
  var m: mat2x3<f32>;
  m = transpose(M.cm);
  Out[0u] = (transpose(M.cm) * vec2<f32>(f32(tid.x), f32(tid.x)));
  Out[1u] = (M.rm * vec2<f32>(f32(tid.x), f32(tid.x)));
  Out[2u] = vec3<f32>(M.cm[0][1u], M.cm[1][1u], M.cm[2][1u]);
  Out[3u] = M.rm[1u];
  let wr_row1 = vec3<f32>(f32(tid.x), f32(tid.x), f32(tid.x));
  M.cm[0][0u] = wr_row1[0];
  M.cm[1][0u] = wr_row1[1];
  M.cm[2][0u] = wr_row1[2];
  M.cm[2u][1u] = 7f;
  M.rm = m;
}

@compute @workgroup_size(4, 1, 1)
fn main(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
) {
  tid = tid_in;
  main_body();
}
