// waverig WGSL: entry point main (Compute)

var<private> tid: vec3<u32>;
@group(0) @binding(1) var tex: texture_storage_2d<rgba32float, write>;

fn main_body() {
  textureStore(tex, vec2<i32>(i32(tid.x), i32(tid.x)), vec4<f32>(f32(tid.x), f32(tid.x), f32(tid.x), f32(tid.x)));
}

@compute @workgroup_size(64, 1, 1)
fn main(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
) {
  tid = tid_in;
  main_body();
}
