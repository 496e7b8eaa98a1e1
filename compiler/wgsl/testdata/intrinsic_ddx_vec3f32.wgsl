diagnostic(off, derivative_uniformity);
// waverig WGSL: entry point ddx_vec3f32 (Pixel)

// Stage outputs of ddx_vec3f32.
struct ddx_vec3f32_Output {
  @location(0) u_target: vec4<f32>,
}

var<private> pos: vec4<f32>;
var<private> u_target: vec4<f32>;
@group(0) @binding(0) var<storage, read_write> Out: array<vec3<f32>>;

fn ddx_vec3f32_body() {
  u_target = vec4<f32>(1f, 1f, 1f, 1f);
  Out[u32(pos.x)] = dpdx(vec3<f32>(f32(u32(pos.x)), f32(u32(pos.x)), f32(u32(pos.x))));
}

@fragment
fn ddx_vec3f32(
  @builtin(position) pos_in: vec4<f32>,
) -> ddx_vec3f32_Output {
  pos = pos_in;
  ddx_vec3f32_body();
  return ddx_vec3f32_Output(u_target);
}
