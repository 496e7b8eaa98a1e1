// waverig WGSL: entry point VSMain (Vertex)

// Stage outputs of VSMain.
struct VSMain_Output {
  @builtin(position) opos: vec4<f32>,
  @location(1) @interpolate(flat) oid: i32,
}

var<private> vid: u32;
var<private> position: vec3<f32>;
var<private> opos: vec4<f32>;
var<private> oid: i32;

fn VSMain_body() {
  opos = vec4<f32>(position, 1f);
  oid = i32(vid);
}

@vertex
fn VSMain(
  @builtin(vertex_index) vid_in: u32,
  @location(0) position_in: vec3<f32>,
) -> VSMain_Output {
  vid = vid_in;
  position = position_in;
  VSMain_body();
  return VSMain_Output(opos, oid);
}
