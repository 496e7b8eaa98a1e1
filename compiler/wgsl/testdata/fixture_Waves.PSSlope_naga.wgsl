// waverig WGSL: entry point PSSlope (Pixel)

// Stage outputs of PSSlope.
struct PSSlope_Output {
  @location(0) out: vec4<f32>,
}

var<private> pos: vec4<f32>;
var<private> uv: vec2<f32>;
var<private> out: vec4<f32>;

fn PSSlope_impl(pos_1: vec4<f32>, uv_1: vec2<f32>) -> vec4<f32> {
  var dx: f32;
  var dy: f32;
  dx = (quadSwapX(uv_1.x) - uv_1.x);
  dy = (quadSwapY(uv_1.y) - uv_1.y);
  return vec4<f32>(dx, dy, 0f, 1f);
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
