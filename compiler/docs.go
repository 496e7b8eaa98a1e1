package compiler

import (
	"fmt"
	"strings"

	"waverig/compiler/diag"
)

// DiagnosticsMarkdown renders docs/diagnostics.md from the code registry, so the
// document lists exactly the codes the compiler can report.
func DiagnosticsMarkdown() string {
	var b strings.Builder
	b.WriteString("# waverig compiler diagnostics\n\n")
	b.WriteString("Generated from `compiler/diag/codes_*.go` by `go test ./compiler -run TestDiagnosticsDoc -update`; do not edit.\n\n")
	b.WriteString("Every message is printed as `path:line:col: error CODE: message` (or `warning`), followed by the source line\n")
	b.WriteString("and a caret. Codes are stable: a code never changes meaning and retired codes are not reused.\n\n")
	b.WriteString("| range | stage |\n|---|---|\n| E00xx, W00xx | preprocessor |\n| E01xx, W01xx | lexer and parser |\n")
	b.WriteString("| E02xx–E04xx, W02xx–W04xx | semantic analysis |\n| E05xx | SPIR-V back end |\n| E06xx | WGSL back end |\n")
	b.WriteString("| E07xx | MSL back end |\n| E08xx | driver and options |\n\n")
	for _, c := range diag.All() {
		fmt.Fprintf(&b, "## %s — %s\n\n", c.Code, c.Title)
		if c.Example != "" {
			fmt.Fprintf(&b, "```hlsl\n%s\n```\n\n", strings.TrimRight(c.Example, "\n"))
		}
		if c.Fix != "" {
			fmt.Fprintf(&b, "Fix: %s\n\n", c.Fix)
		}
	}
	return b.String()
}
