// waverig WGSL: entry point PSMain (Pixel)

// Stage outputs of PSMain.
struct PSMain_Output {
  @location(0) color: vec4<f32>,
}

var<private> pos: vec4<f32>;
var<private> uv: vec2<f32>;
var<private> id: u32;
var<private> color: vec4<f32>;
var<private> wr_lane_index: u32;

fn PSMain_body() {
  color = vec4<f32>(quadSwapX(pos.x), quadSwapY(uv.y), f32(id), f32(wr_lane_index));
}

@fragment
fn PSMain(
  @builtin(position) pos_in: vec4<f32>,
  @location(0) uv_in: vec2<f32>,
  @location(1) @interpolate(flat) id_in: u32,
  @builtin(subgroup_invocation_id) wr_subgroup_invocation_id: u32,
) -> PSMain_Output {
  pos = pos_in;
  uv = uv_in;
  id = id_in;
  wr_lane_index = wr_subgroup_invocation_id;
  PSMain_body();
  return PSMain_Output(color);
}
