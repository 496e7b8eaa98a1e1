/* lib.h — the C face of glslang's C++ library for lib.go: one HLSL entry
 * point compiled to SPIR-V exactly as `glslangValidator -V -D -D<macro>=1
 * --target-env vulkan1.1 -S <stage> -e <entry> --hlsl-iomap --shift-*-binding`
 * compiles it (StandAlone.cpp's CompileAndLinkShaderUnits and SetMessageOptions
 * for those flags, glslang 12.0), without a process per kernel. */
#ifndef WAVERIG_GLSLANG_LIB_H
#define WAVERIG_GLSLANG_LIB_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* The result of one compile: words (ok) or nothing, and glslang's output as
 * glslangValidator prints it (the file name, then the shader's and the
 * program's info logs: errors and warnings). Freed with wr_glslang_free. */
typedef struct wr_glslang_result {
	int ok;
	uint32_t *words;
	size_t nwords;
	char *log;
} wr_glslang_result;

/* stage: glslangValidator's -S name (comp, frag, vert, task, mesh); preamble:
 * the -D macro definitions as glslangValidator writes them ("#define M 1\n");
 * shifts: the base binding of textures, UAVs, cbuffers and samplers. */
wr_glslang_result wr_glslang_compile(const char *text, const char *file_name, const char *entry,
                                     const char *stage, const char *preamble,
                                     unsigned shift_texture, unsigned shift_uav,
                                     unsigned shift_cbuffer, unsigned shift_sampler);
void wr_glslang_free(wr_glslang_result *r);
/* glslang's version, as "MAJOR.MINOR.PATCH". */
const char *wr_glslang_version(void);

#ifdef __cplusplus
}
#endif
#endif
