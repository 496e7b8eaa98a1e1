package msl

import (
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// Hand-built IR for the tests: the front end is written in parallel, so these
// builders play sema's part and respect ir.go's invariants.

var (
	u32 = ir.U32
	i32 = ir.I32
	f32 = ir.F32
)

func vec(s ir.Scalar, n int) ir.Type { return ir.VecOf(s, n) }

// builder accumulates a module with one entry point.
type builder struct {
	m  *ir.Module
	f  *ir.Function
	ep *ir.EntryPoint
}

func newCompute(name string, threads int) *builder {
	f := &ir.Function{Name: name, Result: ir.Void{}}
	ep := &ir.EntryPoint{Name: name, Stage: ir.Compute, NumThreads: [3]int{threads, 1, 1}, Func: f}
	return &builder{m: &ir.Module{Functions: []*ir.Function{f}, EntryPoints: []*ir.EntryPoint{ep}}, f: f, ep: ep}
}

func newStage(name string, stage ir.Stage) *builder {
	b := newCompute(name, 1)
	b.ep.Stage = stage
	b.ep.NumThreads = [3]int{}
	return b
}

func (b *builder) global(g *ir.Global) *ir.Global {
	b.m.Globals = append(b.m.Globals, g)
	return g
}

// rwBuffer adds RWStructuredBuffer<elem> at (set, binding).
func (b *builder) rwBuffer(name string, elem ir.Type, set, binding int) *ir.Global {
	size, align := natural(elem, false)
	return b.global(&ir.Global{Name: name, Type: &ir.Array{Elem: elem, Stride: roundUp(size, align)}, Space: ir.SpaceStorage,
		Resource: ir.ResRWStructuredBuffer, Binding: &ir.Binding{Set: set, Binding: binding}})
}

// roBuffer adds StructuredBuffer<elem>.
func (b *builder) roBuffer(name string, elem ir.Type, set, binding int) *ir.Global {
	g := b.rwBuffer(name, elem, set, binding)
	g.Space, g.Resource = ir.SpaceStorageRead, ir.ResStructuredBuffer
	return g
}

// input adds a builtin stage input.
func (b *builder) input(name string, t ir.Type, bi ir.Builtin) *ir.Global {
	g := b.global(&ir.Global{Name: name, Type: t, Space: ir.SpaceInput, Builtin: bi})
	b.ep.Inputs = append(b.ep.Inputs, g)
	return g
}

// userInput adds a location stage input.
func (b *builder) userInput(name string, t ir.Type, loc int) *ir.Global {
	g := b.global(&ir.Global{Name: name, Type: t, Space: ir.SpaceInput, Location: loc})
	b.ep.Inputs = append(b.ep.Inputs, g)
	return g
}

// output adds a stage output (Builtin or Location).
func (b *builder) output(name string, t ir.Type, bi ir.Builtin, loc int) *ir.Global {
	g := b.global(&ir.Global{Name: name, Type: t, Space: ir.SpaceOutput, Builtin: bi, Location: loc})
	b.ep.Outputs = append(b.ep.Outputs, g)
	return g
}

func (b *builder) add(s ...ir.Stmt) { b.f.Body = append(b.f.Body, s...) }

func (b *builder) local(name string, t ir.Type) *ir.Local { return b.f.NewLocal(name, t) }

// Expression shorthands.
func gref(g *ir.Global) ir.Expr             { return &ir.GlobalRef{G: g} }
func lref(l *ir.Local) ir.Expr              { return &ir.LocalRef{L: l} }
func load(p ir.Expr) ir.Expr                { return &ir.Load{Place: p} }
func cu(v uint64) ir.Expr                   { return ir.ConstUint(u32, v) }
func ci(v int64) ir.Expr                    { return ir.ConstInt(i32, v) }
func cf(v float64) ir.Expr                  { return ir.ConstFloat(f32, v) }
func cb(v bool) ir.Expr                     { return ir.ConstBool(v) }
func x(v ir.Expr) ir.Expr                   { return &ir.Swizzle{Base: v, Comps: []int{0}} }
func bin(op ir.BinOp, a, b ir.Expr) ir.Expr { return &ir.Binary{Op: op, X: a, Y: b, T: binType(op, a)} }
func conv(v ir.Expr, t ir.Type) ir.Expr     { return &ir.Convert{X: v, T: t} }
func store(p, v ir.Expr) ir.Stmt            { return &ir.Store{Place: p, Value: v} }
func elem(buf *ir.Global, i ir.Expr) ir.Expr {
	return &ir.Index{Base: gref(buf), Idx: i, T: buf.Type.(*ir.Array).Elem}
}
func call(op intrinsics.Op, t ir.Type, args ...ir.Expr) *ir.Intrinsic {
	return &ir.Intrinsic{Op: op, Args: args, T: t}
}

func binType(op ir.BinOp, a ir.Expr) ir.Type {
	if op.IsComparison() {
		return ir.WithScalar(a.Type(), ir.BoolT)
	}
	return a.Type()
}

// splat builds a vector constant from one scalar constant.
func splat(c ir.Expr, n int) ir.Expr {
	if n == 1 {
		return c
	}
	s, _ := ir.ScalarOf(c.Type())
	args := make([]ir.Expr, n)
	for i := range args {
		args[i] = c
	}
	return &ir.Construct{T: ir.Vector{Elem: s, N: n}, Args: args}
}
