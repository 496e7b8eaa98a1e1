package sema

import (
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/ir"
	"waverig/compiler/syntax"
)

// isHelperLanes reports whether an attribute name is WaveOpsIncludeHelperLanes;
// like [WaveSize], any spelling case is accepted.
func isHelperLanes(name string) bool { return strings.EqualFold(name, "WaveOpsIncludeHelperLanes") }

// helperLanes checks the [WaveOpsIncludeHelperLanes] attribute (Shader Model
// 6.7) of an entry point and reports whether the entry point has a valid one,
// with the attribute's position. Only pixel shaders have helper lanes, so the
// attribute on another stage is an error (E0423: DXC drops it silently there,
// which hides a request that can never be honoured); it takes no arguments and
// is written once (E0424).
func (c *checker) helperLanes(attrs []syntax.Attribute, stage ir.Stage) (bool, diag.Pos) {
	var a *syntax.Attribute
	for i := range attrs {
		if attrs[i].Namespace != "" || !isHelperLanes(attrs[i].Name) {
			continue
		}
		if a != nil {
			c.errorf(attrs[i].Pos, diag.ErrHelperLanesArgs, "a second WaveOpsIncludeHelperLanes attribute; write it once")
			return false, diag.Pos{}
		}
		a = &attrs[i]
	}
	if a == nil {
		return false, diag.Pos{}
	}
	if stage != ir.Pixel {
		c.errorf(a.Pos, diag.ErrHelperLanesStage, "WaveOpsIncludeHelperLanes is only valid on pixel entry points, not on a %s shader (only pixel shaders have helper lanes)", strings.ToLower(stage.String()))
		return false, diag.Pos{}
	}
	if len(a.Args) != 0 {
		c.errorf(a.Pos, diag.ErrHelperLanesArgs, "WaveOpsIncludeHelperLanes takes no arguments, got %d", len(a.Args))
		return false, diag.Pos{}
	}
	return true, a.Pos
}
