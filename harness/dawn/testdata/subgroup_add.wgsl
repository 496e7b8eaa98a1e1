enable subgroups;
diagnostic(off, subgroup_uniformity);
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) i: u32, @builtin(subgroup_size) n: u32) {
  var v = 0u;
  if (i % 2u == 0u) { v = subgroupAdd(i); }
  out[2u * i] = v;
  out[2u * i + 1u] = n;
}
