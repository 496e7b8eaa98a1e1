// lib.cpp — see lib.h. glslang is thread-safe for compiles on different
// threads once InitializeProcess has run (each TShader and TProgram here is
// the calling thread's own); the rig compiles on several goroutines, each a
// cgo call on one OS thread for its whole length.
#include "lib.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <glslang/Public/ShaderLang.h>
#include <glslang/Public/ResourceLimits.h>
#include <glslang/SPIRV/GlslangToSpv.h>
#include <glslang/build_info.h>

namespace {

std::once_flag initialized;

bool stageOf(const char *name, EShLanguage *out) {
	static const struct { const char *name; EShLanguage stage; } stages[] = {
	    {"comp", EShLangCompute}, {"frag", EShLangFragment}, {"vert", EShLangVertex},
	    {"task", EShLangTask},    {"mesh", EShLangMesh},
	};
	for (const auto &s : stages) {
		if (std::strcmp(s.name, name) == 0) {
			*out = s.stage;
			return true;
		}
	}
	return false;
}

char *copyString(const std::string &s) {
	char *p = static_cast<char *>(std::malloc(s.size() + 1));
	if (p != nullptr)
		std::memcpy(p, s.c_str(), s.size() + 1);
	return p;
}

// appendLog adds one of glslangValidator's PutsIfNonEmpty lines.
void appendLog(std::string &log, const char *s) {
	if (s != nullptr && s[0] != '\0') {
		log += s;
		log += '\n';
	}
}

} // namespace

extern "C" wr_glslang_result wr_glslang_compile(const char *text, const char *file_name,
                                                const char *entry, const char *stage_name,
                                                const char *preamble, unsigned shift_texture,
                                                unsigned shift_uav, unsigned shift_cbuffer,
                                                unsigned shift_sampler) {
	wr_glslang_result r = {0, nullptr, 0, nullptr};
	std::string log;
	EShLanguage stage;
	if (!stageOf(stage_name, &stage)) {
		r.log = copyString(std::string("unknown stage ") + stage_name + "\n");
		return r;
	}
	std::call_once(initialized, [] { glslang::InitializeProcess(); });

	// -V -D: SPIR-V with Vulkan rules from HLSL (SetMessageOptions); the
	// legalisation passes run (EShMsgHlslLegalization stays off, as in a
	// glslangValidator built with SPIRV-Tools and without -Od).
	const EShMessages messages =
	    static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules | EShMsgReadHlsl);
	{
		glslang::TShader shader(stage);
		const char *strings[] = {text};
		const char *names[] = {file_name};
		shader.setStringsWithLengthsAndNames(strings, nullptr, names, 1);
		shader.setEntryPoint(entry);
		shader.setPreamble(preamble);
		shader.setShiftBinding(glslang::EResTexture, shift_texture);
		shader.setShiftBinding(glslang::EResUav, shift_uav);
		shader.setShiftBinding(glslang::EResUbo, shift_cbuffer);
		shader.setShiftBinding(glslang::EResSampler, shift_sampler);
		shader.setNoStorageFormat(false);
		shader.setFlattenUniformArrays(false);
		shader.setHlslIoMapping(true);
		// --target-env vulkan1.1: Vulkan 1.1 client, SPIR-V 1.3, input semantics 100.
		shader.setEnvInput(glslang::EShSourceHlsl, stage, glslang::EShClientVulkan, 100);
		shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_1);
		shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_3);

		glslang::TProgram program;
		glslang::TShader::ForbidIncluder includer;
		bool compiled = shader.parse(GetDefaultResources(), 100, false, messages, includer);
		program.addShader(&shader);
		appendLog(log, file_name);
		appendLog(log, shader.getInfoLog());
		appendLog(log, shader.getInfoDebugLog());
		bool linked = program.link(messages) && program.mapIO();
		appendLog(log, program.getInfoLog());
		appendLog(log, program.getInfoDebugLog());
		if (compiled && linked && program.getIntermediate(stage) != nullptr) {
			std::vector<unsigned int> spirv;
			spv::SpvBuildLogger logger;
			glslang::SpvOptions options;
			options.disableOptimizer = false;
			options.optimizeSize = false;
			glslang::GlslangToSpv(*program.getIntermediate(stage), spirv, &logger, &options);
			log += logger.getAllMessages();
			r.words = static_cast<uint32_t *>(std::malloc(spirv.size() * sizeof(uint32_t)));
			if (r.words != nullptr) {
				std::memcpy(r.words, spirv.data(), spirv.size() * sizeof(uint32_t));
				r.nwords = spirv.size();
				r.ok = 1;
			}
		} else {
			log += "SPIR-V is not generated for failed compile or link\n";
		}
	}
	r.log = copyString(log);
	return r;
}

extern "C" void wr_glslang_free(wr_glslang_result *r) {
	std::free(r->words);
	std::free(r->log);
	r->words = nullptr;
	r->log = nullptr;
}

extern "C" const char *wr_glslang_version(void) {
	static const std::string v = std::to_string(GLSLANG_VERSION_MAJOR) + "." +
	                             std::to_string(GLSLANG_VERSION_MINOR) + "." +
	                             std::to_string(GLSLANG_VERSION_PATCH);
	return v.c_str();
}
