package sema

import (
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/ir"
	"waverig/compiler/syntax"
)

// isWaveSize reports whether an attribute name is WaveSize; like DXC, any
// spelling case is accepted ([WaveSize], [wavesize]).
func isWaveSize(name string) bool { return strings.EqualFold(name, "WaveSize") }

// Wave sizes [WaveSize] accepts (DXC's rule): powers of two from 4 to 128.
const minWaveSize, maxWaveSize = 4, 128

// waveSize checks the [WaveSize(N)] (Shader Model 6.6) or [WaveSize(min, max)] /
// [WaveSize(min, max, preferred)] (6.8) attribute of an entry point and returns
// its range, or nil when it has none or it is invalid (the error is logged).
func (c *checker) waveSize(attrs []syntax.Attribute, stage ir.Stage) *ir.WaveSize {
	var a *syntax.Attribute
	for i := range attrs {
		if attrs[i].Namespace != "" || !isWaveSize(attrs[i].Name) {
			continue
		}
		if a != nil {
			c.errorf(attrs[i].Pos, diag.ErrWaveSizeTwice, "a second WaveSize attribute; an entry point takes one, [WaveSize(min, max)] for a range")
			return nil
		}
		a = &attrs[i]
	}
	if a == nil {
		return nil
	}
	if stage != ir.Compute {
		c.errorf(a.Pos, diag.ErrWaveSizeStage, "WaveSize is only valid on compute entry points, not on a %s shader", strings.ToLower(stage.String()))
		return nil
	}
	if n := len(a.Args); n < 1 || n > 3 {
		c.errorf(a.Pos, diag.ErrBadWaveSize, "WaveSize takes one to three integers (N, or min, max and an optional preferred size), got %d", n)
		return nil
	}
	var v [3]int
	for i, arg := range a.Args {
		x, ok := c.constInt(arg)
		if !ok {
			return nil
		}
		if x < minWaveSize || x > maxWaveSize || x&(x-1) != 0 {
			what := [3]string{"minimum", "maximum", "preferred size"}[i]
			if len(a.Args) == 1 {
				what = "size"
			}
			c.errorf(arg.P(), diag.ErrBadWaveSize, "WaveSize %s is %d; it must be a power of two from %d to %d", what, x, minWaveSize, maxWaveSize)
			return nil
		}
		v[i] = int(x)
	}
	if len(a.Args) == 1 {
		return &ir.WaveSize{Min: v[0], Max: v[0], Preferred: v[0], Pos: a.Pos}
	}
	w := &ir.WaveSize{Min: v[0], Max: v[1], Preferred: v[2], Pos: a.Pos}
	if w.Min >= w.Max {
		c.errorf(a.Pos, diag.ErrWaveSizeMinMax, "WaveSize minimum %d must be less than its maximum %d", w.Min, w.Max)
		return nil
	}
	if w.Preferred != 0 && (w.Preferred < w.Min || w.Preferred > w.Max) {
		c.errorf(a.Args[2].P(), diag.ErrWaveSizePreferred, "WaveSize preferred size %d is outside its range [%d, %d]", w.Preferred, w.Min, w.Max)
		return nil
	}
	return w
}
