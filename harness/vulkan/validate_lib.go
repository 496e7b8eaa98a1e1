package vulkan

/*
#cgo LDFLAGS: -lSPIRV-Tools -lstdc++ -lm
#include <stdlib.h>
#include <string.h>
#include <spirv-tools/libspirv.h>

// wr_validate runs SPIRV-Tools' validator as `spirv-val --target-env ENV
// --scalar-block-layout` does: 0 and no message when the module is valid; else
// the validator's result, its message and the word index it names.
static int wr_validate(const char *env_name, const uint32_t *words, size_t n, char **msg, size_t *index) {
	spv_target_env env;
	if (!spvParseTargetEnv(env_name, &env))
		return -1000;
	spv_context ctx = spvContextCreate(env);
	spv_validator_options opts = spvValidatorOptionsCreate();
	// Block layout mistakes give wrong values, not crashes, and the rig's
	// tests catch those; scalar layout is the most permissive rule, so it
	// never rejects a layout the device could accept.
	spvValidatorOptionsSetScalarBlockLayout(opts, 1);
	spv_const_binary_t bin = {words, n};
	spv_diagnostic diag = NULL;
	spv_result_t r = spvValidateWithOptions(ctx, opts, &bin, &diag);
	*msg = NULL;
	*index = 0;
	if (r != SPV_SUCCESS && diag != NULL && diag->error != NULL) {
		*msg = strdup(diag->error); // the caller frees it
		*index = diag->position.index;
	}
	spvDiagnosticDestroy(diag);
	spvValidatorOptionsDestroy(opts);
	spvContextDestroy(ctx);
	return (int)r;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// SPIRV-Tools' validator linked into waverig (Debian's spirv-tools ships it as
// libSPIRV-Tools.a beside the spirv-val built from the same source): a cold
// run validated about 1,700 modules, each a spirv-val process (about 6% of a
// cold lavapipe run's CPU, most of it starting the process).
// TestValidatorLibraryMatchesSpirvVal holds its verdicts to spirv-val's.

// validatorVersion names the linked validator ("SPIRV-Tools v2023.1 ...").
func validatorVersion() string { return C.GoString(C.spvSoftwareVersionString()) }

// runValidator validates a module for env: nil, or a *ValidationError whose
// Output is spirv-val's line for it ("error: line N: message").
func runValidator(env string, words []uint32) error {
	if len(words) == 0 {
		return &ValidationError{TargetEnv: env, Output: "error: line 0: empty module"}
	}
	var msg *C.char
	var index C.size_t
	cEnv := C.CString(env)
	defer C.free(unsafe.Pointer(cEnv))
	r := C.wr_validate(cEnv, (*C.uint32_t)(unsafe.Pointer(&words[0])), C.size_t(len(words)), &msg, &index)
	if r == -1000 {
		return fmt.Errorf("vulkan: SPIRV-Tools does not know the target environment %q", env)
	}
	if r == 0 {
		return nil
	}
	text := "(no message)"
	if msg != nil {
		text = C.GoString(msg)
		C.free(unsafe.Pointer(msg))
	}
	return &ValidationError{TargetEnv: env, Output: fmt.Sprintf("error: line %d: %s\n", uint64(index), text)}
}
