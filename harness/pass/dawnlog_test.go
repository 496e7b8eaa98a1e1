package pass

import (
	"strings"
	"testing"
)

// The Dawn helper's start-up warnings are dropped line by line: a line that
// matters survives a write it shares with them, or a write boundary, and a
// last line without a newline comes out when the helper ends.
func TestDawnLogDropsNoiseByLine(t *testing.T) {
	var out strings.Builder
	l := &dawnLog{w: &out}
	l.Write([]byte("error: XDG_RUNTIME_DIR is invalid or not set in the environment.\nWarning: Vulkan shaderUniform*ArrayDynamicIndexing required.\n - While initializing adapter (backend=BackendType::Vulkan)\n\nLLVM ERROR: Cannot sel"))
	l.Write([]byte("ect: v4i32\nWarning: maxDynamicUniformBuffersPerPipelineLayout artificially reduced from 1000000 to 16\nlast words"))
	if got := out.String(); got != "LLVM ERROR: Cannot select: v4i32\n" {
		t.Fatalf("before the end: %q", got)
	}
	l.Flush()
	if got := out.String(); got != "LLVM ERROR: Cannot select: v4i32\nlast words\n" {
		t.Fatalf("after Flush: %q", got)
	}
}
