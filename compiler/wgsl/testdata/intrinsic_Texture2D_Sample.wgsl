diagnostic(off, derivative_uniformity);
// waverig WGSL: entry point Texture2D_Sample (Pixel)

// Stage outputs of Texture2D_Sample.
struct Texture2D_Sample_Output {
  @location(0) u_target: vec4<f32>,
}

var<private> pos: vec4<f32>;
var<private> u_target: vec4<f32>;
@group(0) @binding(1) var tex: texture_2d<f32>;
@group(0) @binding(2) var samp: sampler;
@group(0) @binding(0) var<storage, read_write> Out: array<vec4<f32>>;

fn Texture2D_Sample_body() {
  u_target = vec4<f32>(1f, 1f, 1f, 1f);
  Out[u32(pos.x)] = textureSample(tex, samp, vec2<f32>(f32(u32(pos.x)), f32(u32(pos.x))));
}

@fragment
fn Texture2D_Sample(
  @builtin(position) pos_in: vec4<f32>,
) -> Texture2D_Sample_Output {
  pos = pos_in;
  Texture2D_Sample_body();
  return Texture2D_Sample_Output(u_target);
}
