#version 450
// Reflection fixture: "used" is only reached through a function call,
// "unused" is declared but never touched, "counter" is a uniform.
layout(local_size_x = 8, local_size_y = 2) in;

layout(set = 0, binding = 0) buffer Used { uint used[]; };
layout(set = 0, binding = 1) buffer Unused { uint unused[]; };
layout(set = 2, binding = 5) uniform Counter { uint base; } counter;

void bump(uint i) { used[i] += counter.base; }

void main() { bump(gl_LocalInvocationIndex); }
