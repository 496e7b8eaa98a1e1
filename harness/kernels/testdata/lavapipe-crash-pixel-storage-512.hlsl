// lavapipe 22.3.6 (LLVM 15) at LP_NATIVE_VECTOR_WIDTH=512 (wave size 16): the process dies
// with SIGSEGV (inside LLVM, EarlyCSE) while the fragment shader is compiled. At 128 and 256
// the same pipeline builds and runs. Not waverig's SPIR-V alone: the GLSL equivalent compiled
// by glslangValidator (a storage buffer written with a constant index, vulkan1.1 or 1.2)
// crashes the same way, as does an unused storage buffer listed in a SPIR-V 1.5 entry point;
// some shapes (a store at an index computed from gl_FragCoord, SPIR-V 1.3) survive.
// Repro: waverig compile -target spirv -stage pixel -entry main -auto-bindings -o out THIS.hlsl,
// then draw one full-screen triangle with it (any vertex shader) into an RGBA32_UINT target.
RWStructuredBuffer<uint4> rec : register(u0);

uint4 main() : SV_Target
{
    rec[0] = uint4(1, 2, 3, 4);
    return uint4(7, 7, 7, 9);
}
