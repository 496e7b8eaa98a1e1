// waverig WGSL: entry point main (Compute)

struct Mats_colmajor {
  cm: mat3x2<f32>,
  rm: mat2x3<f32>,
}

var<private> tid: vec3<u32>;
@group(0) @binding(0) var<storage, read_write> M: Mats_colmajor;
@group(0) @binding(1) var<storage, read_write> Out: array<vec3<f32>>;

// Component-wise * on mat2x3<f32> (WGSL's matrix * is the matrix product).
fn wr_mat_mul_mat2x3_f32(a: mat2x3<f32>, b: mat2x3<f32>) -> mat2x3<f32> {
  return mat2x3<f32>(a[0] * b[0], a[1] * b[1]);
}

fn wr_mat_select_mat2x3_f32(f: mat2x3<f32>, t: mat2x3<f32>, c: bool) -> mat2x3<f32> {
  return mat2x3<f32>(select(f[0], t[0], c), select(f[1], t[1], c));
}

// Component-wise / on mat2x3<f32> (WGSL's matrix * is the matrix product).
fn wr_mat_div_mat2x3_f32(a: mat2x3<f32>, b: mat2x3<f32>) -> mat2x3<f32> {
  return mat2x3<f32>(a[0] / b[0], a[1] / b[1]);
}

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
  m = wr_mat_mul_mat2x3_f32(m, M.rm);
  m = (m * (-1f));
  m = wr_mat_select_mat2x3_f32(transpose(M.cm), m, (tid.x > 2u));
  M.rm = wr_mat_div_mat2x3_f32(m, M.rm);
}

@compute @workgroup_size(1, 1, 1)
fn main(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
) {
  tid = tid_in;
  main_body();
}
