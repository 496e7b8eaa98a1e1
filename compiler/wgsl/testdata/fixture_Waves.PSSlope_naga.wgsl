diagnostic(off, derivative_uniformity);
// waverig WGSL: entry point PSSlope (Pixel)

// Stage outputs of PSSlope.
struct PSSlope_Output {
  @location(0) out: vec4<f32>,
}

@group(0) @binding(2) var Height: texture_2d<f32>;
@group(0) @binding(3) var Linear: sampler;
var<private> pos: vec4<f32>;
var<private> uv: vec2<f32>;
var<private> out: vec4<f32>;

fn PSSlope_impl(pos_1: vec4<f32>, uv_1: vec2<f32>) -> vec4<f32> {
  var h: f32;
  var dx: f32;
  var dy: f32;
  h = textureSample(Height, Linear, uv_1).x;
  dx = (quadSwapX(h) - h);
  dy = (quadSwapY(h) - h);
  return vec4<f32>(abs(dx), abs(dy), h, 1f);
}

fn PSSlope_body() {
  var result: vec4<f32>;
  result = PSSlope_impl(pos, uv);
  out = result;
}

@fragment
fn PSSlope(
  @builtin(position) pos_in: vec4<f32>,
  @location(0) uv_in: vec2<f32>,
) -> PSSlope_Output {
  pos = pos_in;
  uv = uv_in;
  PSSlope_body();
  return PSSlope_Output(out);
}
