diagnostic(off, derivative_uniformity);
// waverig WGSL: entry point ddx_f32 (Pixel)

// Stage outputs of ddx_f32.
struct ddx_f32_Output {
  @location(0) u_target: vec4<f32>,
}

var<private> pos: vec4<f32>;
var<private> u_target: vec4<f32>;
@group(0) @binding(0) var<storage, read_write> Out: array<f32>;

fn ddx_f32_body() {
  u_target = vec4<f32>(1f, 1f, 1f, 1f);
  Out[u32(pos.x)] = dpdx(f32(u32(pos.x)));
}

@fragment
fn ddx_f32(
  @builtin(position) pos_in: vec4<f32>,
) -> ddx_f32_Output {
  pos = pos_in;
  ddx_f32_body();
  return ddx_f32_Output(u_target);
}
