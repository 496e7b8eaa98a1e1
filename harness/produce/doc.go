// Package produce has one job: turning one entry point of an HLSL source into
// a module the rig can run — SPIR-V for Vulkan, WGSL for WebGPU — with the
// binding of each of its HLSL registers. Every compiler the rig runs is a
// Compiler: waverig's own (OursCompiler), glslang (GlslangCompiler) and any
// program that follows the calling convention of docs/compilers.md
// (CommandCompiler, named on a command line as cmd:NAME=PATH). ParseCompilers
// checks a -compilers list; FromSpec turns each of its specs into a Compiler.
//
// A Compiler is a pure function of its Source: it keeps no state between
// calls. The compile cache (each kernel × compiler × target compiled once)
// and the spirv-val policy stay in the rig (harness/pass/compile.go), because both
// are the rig's decisions, not a compiler's: the cache key holds what the rig
// varies (stage, SPIR-V extensions), the cache is shared by runs, draws,
// listings and repro bundles, every module passes the linked validator
// before a driver sees it, and `waverig exec` compiles a case once,
// uncached, through these same compilers.
package produce
