package glslang

/*
#cgo CXXFLAGS: -std=c++17 -O2 -DENABLE_HLSL=1
#cgo LDFLAGS: -Wl,--start-group -lglslang -lMachineIndependent -lGenericCodeGen -lOSDependent -lHLSL -lOGLCompiler -lSPIRV -lglslang-default-resource-limits -lSPIRV-Tools-opt -lSPIRV-Tools -Wl,--end-group -lstdc++ -lm -lpthread
#include <stdlib.h>
#include "lib.h"
*/
import "C"

import (
	"strings"
	"unsafe"
)

// The glslang library (Debian's glslang-dev, the same 12.0 source as
// glslang-tools' glslangValidator) linked into waverig: a cold run compiled
// about 1,400 kernels through glslangValidator, each a process that builds
// glslang's built-in symbol tables again (~90 ms and ~4,000 page faults a
// kernel, a fifth of a cold lavapipe run's CPU). lib.cpp makes the calls
// StandAlone.cpp makes for the rig's flags; TestLinkedToolsMatchTheirCommands
// (harness/kernels) holds the words to glslangValidator's, byte for byte.

// libVersion is the linked glslang's version ("12.0.0").
func libVersion() string { return C.GoString(C.wr_glslang_version()) }

// libCompile compiles one entry point. ok: words is the module; the log is
// what glslangValidator would print (errors and warnings with the file name).
func libCompile(text, fileName, entry, stage, preamble string, shifts [4]uint) (words []uint32, log string, ok bool) {
	cText, cName, cEntry, cStage, cPre := C.CString(text), C.CString(fileName), C.CString(entry), C.CString(stage), C.CString(preamble)
	defer func() {
		for _, p := range []*C.char{cText, cName, cEntry, cStage, cPre} {
			C.free(unsafe.Pointer(p))
		}
	}()
	r := C.wr_glslang_compile(cText, cName, cEntry, cStage, cPre, C.uint(shifts[0]), C.uint(shifts[1]), C.uint(shifts[2]), C.uint(shifts[3]))
	defer C.wr_glslang_free(&r)
	log = C.GoString(r.log)
	if r.ok == 0 {
		return nil, log, false
	}
	words = make([]uint32, int(r.nwords))
	copy(words, unsafe.Slice((*uint32)(unsafe.Pointer(r.words)), int(r.nwords)))
	return words, log, true
}

// preamble is glslangValidator's text for -D definitions ("-DNAME=1" becomes
// "#define NAME 1\n": the first '=' turns into a space).
func preamble(defs ...string) string {
	var b strings.Builder
	for _, d := range defs {
		b.WriteString("#define " + strings.Replace(d, "=", " ", 1) + "\n")
	}
	return b.String()
}
