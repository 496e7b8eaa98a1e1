// waverig WGSL: entry point main (Compute)

var<private> tid: vec3<u32>;
@group(0) @binding(0) var<storage, read_write> Out: array<i32>;

fn wr_f32_from_bits(b: u32) -> f32 {
  return bitcast<f32>(b);
}

fn u_select(loop_in: i32, u_var: ptr<function, i32>, u_wr_x: ptr<function, i32>) -> i32 {
  var u_loop: i32 = loop_in;
  u_loop = (u_loop << (u32((*u_wr_x)) & 31u));
  (*u_var) = (u_loop >> 1u);
  (*u_wr_x) = ((*u_wr_x) % (-7i));
  return select((*u_var), u_loop, ((u_loop > 0i) && ((*u_var) < i32(-2147483647i - 1i))));
}

fn main_body() {
  var tmp: i32;
  var u_let: i32;
  var r: i32;
  u_let = 3i;
  r = u_select(i32(tid.x), &tmp, &u_let);
  switch i32(tid.x) {
    case 0i: {
      r = 10i;
      r = (r + 1i);
      break;
    }
    case 1i, 2i: {
      r = (r + 1i);
      break;
    }
    case (-3i): {
      break;
    }
    default: {}
  }
  loop {
    r = (r - 1i);
    if (r < 0i) {
      continue;
    }
    continuing {
      break if (r < 5i);
    }
  }
  Out[tid.x] = (r + (tmp + u_let));
  Out[1u] = select(i32((wr_f32_from_bits(2143289344u) != wr_f32_from_bits(2143289344u))), 1i, (vec2<bool>(true, false) | vec2<bool>(false, false)).y);
  Out[2u] = i32((-0.0f));
}

@compute @workgroup_size(8, 1, 1)
fn main(
  @builtin(global_invocation_id) tid_in: vec3<u32>,
) {
  tid = tid_in;
  main_body();
}
