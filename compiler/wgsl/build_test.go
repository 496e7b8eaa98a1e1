package wgsl

import (
	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
)

// builder is irtest's Builder plus the lane the cases derive their values
// from, so nothing folds away: tid.x in compute shaders (newCompute), the
// pixel x coordinate in pixel shaders (newPixel).
type builder struct {
	*Builder
	tid *ir.Global
}

// newCompute starts a compute entry point whose first global is its
// SV_DispatchThreadID input, tid.
func newCompute(name string, threads int) *builder {
	b := &builder{Builder: Compute(name, threads)}
	b.tid = b.Global(&ir.Global{Name: "tid", Type: ir.Vector{Elem: ir.U32, N: 3}, Space: ir.SpaceInput,
		Builtin: ir.BuiltinGlobalInvocationID, Semantic: "SV_DispatchThreadID"})
	return b
}

// newStage starts an entry point of another stage, without a lane.
func newStage(name string, stage ir.Stage) *builder { return &builder{Builder: Entry(name, stage)} }

// laneX is tid.x.
func (b *builder) laneX() ir.Expr {
	x := X(Load(GRef(b.tid)))
	if s, _ := ir.ScalarOf(b.tid.Type); s.Kind != ir.Uint {
		return Conv(x, ir.U32)
	}
	return x
}

// sample value of a type, derived from the lane so nothing folds away.
func (b *builder) value(t ir.Type) ir.Expr {
	s, _ := ir.ScalarOf(t)
	x := b.laneX()
	var v ir.Expr
	switch s.Kind {
	case ir.Uint:
		v = x
	case ir.Sint:
		v = &ir.Convert{X: x, T: ir.I32}
	case ir.Float:
		v = &ir.Convert{X: x, T: s}
	case ir.Bool:
		v = Bin(ir.Gt, x, Uint(1))
	}
	if s.Kind != ir.Bool && s.Kind != ir.Uint && s.Bits != 32 {
		v = &ir.Convert{X: x, T: s}
	}
	if m, ok := t.(ir.Matrix); ok {
		row := Splat(v, m.Cols)
		args := make([]ir.Expr, m.Rows)
		for i := range args {
			args[i] = row
		}
		return &ir.Construct{T: m, Args: args}
	}
	return Splat(v, ir.Components(t))
}

// toStorable makes a result storable in a buffer (bools become u32).
func toStorable(x ir.Expr) ir.Expr {
	s, ok := ir.ScalarOf(x.Type())
	if ok && s.Kind == ir.Bool {
		return &ir.Convert{X: x, T: ir.WithScalar(x.Type(), ir.U32)}
	}
	return x
}
