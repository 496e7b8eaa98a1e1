package wgsl

import (
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// builder makes small IR modules by hand (the HLSL front end is built in
// parallel; these tests must not depend on it).
type builder struct {
	m   *ir.Module
	f   *ir.Function
	ep  *ir.EntryPoint
	tid *ir.Global
}

func newCompute(name string, threads int) *builder {
	b := &builder{m: &ir.Module{}}
	b.f = &ir.Function{Name: name, Result: ir.Void{}}
	b.tid = &ir.Global{Name: "tid", Type: ir.Vector{Elem: ir.U32, N: 3}, Space: ir.SpaceInput,
		Builtin: ir.BuiltinGlobalInvocationID, Semantic: "SV_DispatchThreadID"}
	b.m.Globals = append(b.m.Globals, b.tid)
	b.ep = &ir.EntryPoint{Name: name, Stage: ir.Compute, NumThreads: [3]int{threads, 1, 1}, Func: b.f, Inputs: []*ir.Global{b.tid}}
	b.m.EntryPoints = []*ir.EntryPoint{b.ep}
	return b
}

func newStage(name string, stage ir.Stage) *builder {
	b := &builder{m: &ir.Module{}}
	b.f = &ir.Function{Name: name, Result: ir.Void{}}
	b.ep = &ir.EntryPoint{Name: name, Stage: stage, Func: b.f}
	b.m.EntryPoints = []*ir.EntryPoint{b.ep}
	return b
}

func (b *builder) finish() *ir.Module {
	b.m.Functions = append(b.m.Functions, b.f)
	return b.m
}

func (b *builder) add(s ...ir.Stmt) { b.f.Body = append(b.f.Body, s...) }

func (b *builder) global(g *ir.Global) *ir.Global {
	b.m.Globals = append(b.m.Globals, g)
	return g
}

func (b *builder) input(g *ir.Global) *ir.Global {
	g.Space = ir.SpaceInput
	b.ep.Inputs = append(b.ep.Inputs, g)
	return b.global(g)
}

func (b *builder) output(g *ir.Global) *ir.Global {
	g.Space = ir.SpaceOutput
	b.ep.Outputs = append(b.ep.Outputs, g)
	return b.global(g)
}

// rwBuffer declares RWStructuredBuffer<T> at (0, binding).
func (b *builder) rwBuffer(name string, elem ir.Type, binding int) *ir.Global {
	stride := strideOf(elem)
	return b.global(&ir.Global{Name: name, Type: &ir.Array{Elem: elem, Stride: stride}, Space: ir.SpaceStorage,
		Resource: ir.ResRWStructuredBuffer, Binding: &ir.Binding{Set: 0, Binding: binding}})
}

func (b *builder) roBuffer(name string, elem ir.Type, binding int) *ir.Global {
	stride := strideOf(elem)
	return b.global(&ir.Global{Name: name, Type: &ir.Array{Elem: elem, Stride: stride}, Space: ir.SpaceStorageRead,
		Resource: ir.ResStructuredBuffer, Binding: &ir.Binding{Set: 0, Binding: binding}})
}

// strideOf is WGSL's array stride for the simple element types the tests use.
func strideOf(t ir.Type) int {
	switch t := t.(type) {
	case ir.Scalar:
		return t.Bits / 8
	case ir.Vector:
		s := t.Elem.Bits / 8
		if t.N == 2 {
			return 2 * s
		}
		return 4 * s
	case ir.Matrix:
		if t.RowMajor {
			return t.Rows * t.Stride
		}
		return t.Cols * t.Stride
	}
	return 16
}

// laneX is tid.x.
func (b *builder) laneX() ir.Expr {
	x := &ir.Swizzle{Base: &ir.Load{Place: &ir.GlobalRef{G: b.tid}}, Comps: []int{0}}
	if s, _ := ir.ScalarOf(b.tid.Type); s.Kind != ir.Uint {
		return &ir.Convert{X: x, T: ir.U32}
	}
	return x
}

func at(g *ir.Global, idx ir.Expr) *ir.Index {
	return &ir.Index{Base: &ir.GlobalRef{G: g}, Idx: idx, T: g.Type.(*ir.Array).Elem}
}

func load(p ir.Expr) ir.Expr { return &ir.Load{Place: p} }

func u32c(v uint64) *ir.Const { return ir.ConstUint(ir.U32, v) }
func i32c(v int64) *ir.Const  { return ir.ConstInt(ir.I32, v) }

func intr(op intrinsics.Op, t ir.Type, args ...ir.Expr) *ir.Intrinsic {
	return &ir.Intrinsic{Op: op, Args: args, T: t}
}

func store(place, value ir.Expr) *ir.Store { return &ir.Store{Place: place, Value: value} }

func splat(t ir.Type, c ir.Expr) ir.Expr {
	n := ir.Components(t)
	if n == 1 {
		return c
	}
	args := make([]ir.Expr, n)
	for i := range args {
		args[i] = c
	}
	return &ir.Construct{T: t, Args: args}
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
		v = &ir.Binary{Op: ir.Gt, X: x, Y: u32c(1), T: ir.BoolT}
	}
	if s.Kind != ir.Bool && s.Kind != ir.Uint && s.Bits != 32 {
		v = &ir.Convert{X: x, T: s}
	}
	if m, ok := t.(ir.Matrix); ok {
		row := splat(ir.Vector{Elem: s, N: m.Cols}, v)
		args := make([]ir.Expr, m.Rows)
		for i := range args {
			args[i] = row
		}
		return &ir.Construct{T: m, Args: args}
	}
	return splat(t, v)
}

// toStorable makes a result storable in a buffer (bools become u32).
func toStorable(x ir.Expr) ir.Expr {
	s, ok := ir.ScalarOf(x.Type())
	if ok && s.Kind == ir.Bool {
		return &ir.Convert{X: x, T: ir.WithScalar(x.Type(), ir.U32)}
	}
	return x
}
