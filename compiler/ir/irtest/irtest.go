// Package irtest builds small IR modules by hand for the back ends' tests, so a
// back end is tested without the front end, and holds them to ir.Validate.
//
// A Builder makes a module with one entry point; the package-level functions are
// expression and statement shorthands. The names are short because tests
// dot-import the package and nest them deeply:
//
//	b := Compute("CSSum", 64)
//	out := b.RWBuffer("Out", ir.U32, 0, 0)
//	tid := b.Input("tid", ir.Vector{Elem: ir.U32, N: 3}, ir.BuiltinGlobalInvocationID, 0)
//	b.Add(Store(Elem(out, X(Load(GRef(tid)))), Intr(intrinsics.WaveActiveSum, ir.U32, Uint(1))))
//	Valid(t, b.M)
package irtest

import (
	"testing"

	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// Builder accumulates a module with one entry point.
type Builder struct {
	M  *ir.Module
	F  *ir.Function // the entry point's function, always last in M.Functions
	EP *ir.EntryPoint
}

// Compute starts a module whose entry point is a compute shader with
// numthreads(threads, 1, 1).
func Compute(name string, threads int) *Builder {
	b := Entry(name, ir.Compute)
	b.EP.NumThreads = [3]int{threads, 1, 1}
	return b
}

// Entry starts a module whose entry point is of the given stage (a compute
// entry gets numthreads(1, 1, 1)).
func Entry(name string, stage ir.Stage) *Builder {
	f := &ir.Function{Name: name, Result: ir.Void{}}
	ep := &ir.EntryPoint{Name: name, Stage: stage, Func: f}
	if stage == ir.Compute {
		ep.NumThreads = [3]int{1, 1, 1}
	}
	return &Builder{M: &ir.Module{Functions: []*ir.Function{f}, EntryPoints: []*ir.EntryPoint{ep}}, F: f, EP: ep}
}

// Amplification starts a module whose entry point is an amplification shader
// with numthreads(threads, 1, 1) and a task payload global of type payload (the
// variable DispatchMesh sends), which it returns with the builder.
func Amplification(name string, threads int, payload ir.Type) (*Builder, *ir.Global) {
	b := Entry(name, ir.Amplification)
	b.EP.NumThreads = [3]int{threads, 1, 1}
	g := b.Global(&ir.Global{Name: "payload", Type: payload, Space: ir.SpaceTaskPayload})
	b.EP.Mesh = &ir.MeshInfo{Payload: g}
	return b, g
}

// Mesh starts a module whose entry point is a mesh shader with
// numthreads(threads, 1, 1), the topology and output counts given, and its
// out indices array (uint3 per triangle, uint2 per line), which it returns.
func Mesh(name string, threads int, topo ir.Topology, vertices, primitives int) (*Builder, *ir.Global) {
	b := Entry(name, ir.Mesh)
	b.EP.NumThreads = [3]int{threads, 1, 1}
	b.EP.Mesh = &ir.MeshInfo{Topology: topo, MaxVertices: vertices, MaxPrimitives: primitives}
	n, bi := 3, ir.BuiltinPrimitiveTriangleIndices
	if topo == ir.TopologyLine {
		n, bi = 2, ir.BuiltinPrimitiveLineIndices
	}
	idx := b.Output("indices", &ir.Array{Elem: ir.Vector{Elem: ir.U32, N: n}, Len: primitives}, bi, 0)
	return b, idx
}

// Func adds a helper function, before the entry point's function (callees come
// before callers), and returns it.
func (b *Builder) Func(f *ir.Function) *ir.Function {
	fs := b.M.Functions
	b.M.Functions = append(fs[:len(fs)-1:len(fs)-1], f, fs[len(fs)-1])
	return f
}

// Global adds a global; one in the Input or Output space also becomes a stage
// input or output of the entry point.
func (b *Builder) Global(g *ir.Global) *ir.Global {
	b.M.Globals = append(b.M.Globals, g)
	switch g.Space {
	case ir.SpaceInput:
		b.EP.Inputs = append(b.EP.Inputs, g)
	case ir.SpaceOutput:
		b.EP.Outputs = append(b.EP.Outputs, g)
	}
	return g
}

// Input adds a stage input: a builtin, or (with ir.BuiltinNone) a location.
func (b *Builder) Input(name string, t ir.Type, bi ir.Builtin, loc int) *ir.Global {
	return b.Global(&ir.Global{Name: name, Type: t, Space: ir.SpaceInput, Builtin: bi, Location: loc})
}

// Output adds a stage output: a builtin, or (with ir.BuiltinNone) a location.
func (b *Builder) Output(name string, t ir.Type, bi ir.Builtin, loc int) *ir.Global {
	return b.Global(&ir.Global{Name: name, Type: t, Space: ir.SpaceOutput, Builtin: bi, Location: loc})
}

// RWBuffer adds RWStructuredBuffer<elem> at (set, binding).
func (b *Builder) RWBuffer(name string, elem ir.Type, set, binding int) *ir.Global {
	return b.Global(&ir.Global{Name: name, Type: &ir.Array{Elem: elem, Stride: stride(elem)}, Space: ir.SpaceStorage,
		Resource: ir.ResRWStructuredBuffer, Binding: &ir.Binding{Set: set, Binding: binding}})
}

// ROBuffer adds StructuredBuffer<elem> at (set, binding).
func (b *Builder) ROBuffer(name string, elem ir.Type, set, binding int) *ir.Global {
	g := b.RWBuffer(name, elem, set, binding)
	g.Space, g.Resource = ir.SpaceStorageRead, ir.ResStructuredBuffer
	return g
}

// Local adds a local variable to the entry point's function.
func (b *Builder) Local(name string, t ir.Type) *ir.Local { return b.F.NewLocal(name, t) }

// Add appends statements to the entry point's function.
func (b *Builder) Add(s ...ir.Stmt) { b.F.Body = append(b.F.Body, s...) }

// Valid fails t with every invariant of package ir that m breaks.
func Valid(t testing.TB, m *ir.Module) {
	t.Helper()
	errs := ir.Validate(m)
	for _, err := range errs {
		t.Errorf("invalid IR: %v", err)
	}
	if len(errs) > 0 && m != nil {
		t.Logf("the module:\n%s", ir.Dump(m))
	}
}

// GRef names a global.
func GRef(g *ir.Global) *ir.GlobalRef { return &ir.GlobalRef{G: g} }

// LRef names a local.
func LRef(l *ir.Local) *ir.LocalRef { return &ir.LocalRef{L: l} }

// Load reads a place.
func Load(p ir.Expr) *ir.Load { return &ir.Load{Place: p} }

// Store writes v to the place p.
func Store(p, v ir.Expr) *ir.Store { return &ir.Store{Place: p, Value: v} }

// Elem is element idx of an array global (a buffer's element store).
func Elem(g *ir.Global, idx ir.Expr) *ir.Index {
	return &ir.Index{Base: GRef(g), Idx: idx, T: g.Type.(*ir.Array).Elem}
}

// X is component x of a vector.
func X(v ir.Expr) *ir.Swizzle { return &ir.Swizzle{Base: v, Comps: []int{0}} }

// Uint is a u32 constant.
func Uint(v uint64) *ir.Const { return ir.ConstUint(ir.U32, v) }

// Int is an i32 constant.
func Int(v int64) *ir.Const { return ir.ConstInt(ir.I32, v) }

// Float is an f32 constant.
func Float(v float64) *ir.Const { return ir.ConstFloat(ir.F32, v) }

// Bool is a bool constant.
func Bool(v bool) *ir.Const { return ir.ConstBool(v) }

// Bin applies a binary operator; the result has x's type (bool of x's shape
// for comparisons).
func Bin(op ir.BinOp, x, y ir.Expr) *ir.Binary {
	t := x.Type()
	if op.IsComparison() {
		t = ir.WithScalar(t, ir.BoolT)
	}
	return &ir.Binary{Op: op, X: x, Y: y, T: t}
}

// Conv converts v to t component-wise.
func Conv(v ir.Expr, t ir.Type) *ir.Convert { return &ir.Convert{X: v, T: t} }

// Intr applies an intrinsic-table row.
func Intr(op intrinsics.Op, t ir.Type, args ...ir.Expr) *ir.Intrinsic {
	return &ir.Intrinsic{Op: op, Args: args, T: t}
}

// Splat is an n-vector of the scalar c (c itself when n is 1).
func Splat(c ir.Expr, n int) ir.Expr {
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

// stride is the element stride the builder gives a structured buffer of t,
// under the storage rule of sema's layout for what tests store: scalars,
// vectors (3-vectors padded to four components), matrices as rows of vectors,
// and laid-out structs (their Size). Other elements need the array's Stride
// set by the test.
func stride(t ir.Type) int {
	switch t := t.(type) {
	case ir.Scalar:
		return t.Bits / 8
	case ir.Vector:
		n := t.N
		if n == 3 {
			n = 4
		}
		return n * t.Elem.Bits / 8
	case ir.Matrix:
		return t.Rows * stride(ir.Vector{Elem: t.Elem, N: t.Cols})
	case *ir.Struct:
		if t.Size > 0 {
			return t.Size
		}
	}
	panic("irtest: no stride for a buffer of " + t.String() + ": set the array's Stride")
}
