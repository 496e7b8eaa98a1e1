package ir

import (
	"errors"
	"strings"
	"testing"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
)

// module is a small valid module to break: a compute entry point CSMain that
// writes Out[tid.x] through a helper `u32 twice(u32 v)`.
type module struct {
	m      *Module
	out    *Global // RWStructuredBuffer<u32> Out
	tid    *Global // SV_DispatchThreadID
	helper *Function
	main   *Function
	acc    *Local // a u32 local of main
}

func newModule() *module {
	out := &Global{Name: "Out", Type: &Array{Elem: U32, Stride: 4}, Space: SpaceStorage, Resource: ResRWStructuredBuffer,
		Binding: &Binding{Binding: 0}}
	tid := &Global{Name: "tid", Type: Vector{U32, 3}, Space: SpaceInput, Builtin: BuiltinGlobalInvocationID}
	h := &Function{Name: "twice", Result: U32}
	v := h.NewLocal("v", U32)
	h.Params = []Param{{Local: v}}
	h.Body = Block{&Return{Value: &Binary{Op: MulOp, X: &Load{&LocalRef{v}}, Y: ConstUint(U32, 2), T: U32}}}
	f := &Function{Name: "CSMain", Result: Void{}}
	acc := f.NewLocal("acc", U32)
	x := &Swizzle{Base: &Load{&GlobalRef{tid}}, Comps: []int{0}}
	f.Body = Block{
		&Store{Place: &LocalRef{acc}, Value: &Call{Func: h, Args: []Expr{x}}},
		&Loop{
			Body: Block{
				&If{Cond: &Binary{Op: Gt, X: &Load{&LocalRef{acc}}, Y: ConstUint(U32, 100), T: BoolT}, Then: Block{&Break{}}},
				&Switch{Selector: &Load{&LocalRef{acc}}, Cases: []*Case{
					{Values: []int64{1}, Body: Block{&Store{Place: &LocalRef{acc}, Value: ConstUint(U32, 7)}}, FallThrough: true},
					{Values: []int64{2, 3}, Body: Block{&Continue{}}},
					{Default: true, Body: Block{&Break{}}},
				}},
			},
			Continuing: Block{&Store{Place: &LocalRef{acc}, Value: &Binary{Op: Add, X: &Load{&LocalRef{acc}}, Y: ConstUint(U32, 1), T: U32}}},
		},
		&Store{Place: &Index{Base: &GlobalRef{out}, Idx: x, T: U32}, Value: &Load{&LocalRef{acc}}},
	}
	m := &Module{Globals: []*Global{out, tid}, Functions: []*Function{h, f},
		EntryPoints: []*EntryPoint{{Name: "CSMain", Stage: Compute, NumThreads: [3]int{64, 1, 1}, Func: f, Inputs: []*Global{tid}}}}
	return &module{m: m, out: out, tid: tid, helper: h, main: f, acc: acc}
}

func (mm *module) add(s ...Stmt) { mm.main.Body = append(mm.main.Body, s...) }

func TestValidModules(t *testing.T) {
	mm := newModule()
	if errs := Validate(mm.m); errs != nil {
		t.Fatalf("valid module reported: %v\n%s", errs, Dump(mm.m))
	}
	// Layout does not count: a laid-out buffer matrix stored into a register matrix.
	laid := Matrix{Elem: F32, Rows: 2, Cols: 2, Stride: 16, RowMajor: true}
	buf := &Global{Name: "M", Type: &Array{Elem: laid, Stride: 32}, Space: SpaceStorageRead, Binding: &Binding{Binding: 1}}
	mm.m.Globals = append(mm.m.Globals, buf)
	l := mm.main.NewLocal("m", Matrix{Elem: F32, Rows: 2, Cols: 2})
	mm.add(&Store{Place: &LocalRef{l}, Value: &Load{&Index{Base: &GlobalRef{buf}, Idx: ConstUint(U32, 0), T: laid}}})
	if errs := Validate(mm.m); errs != nil {
		t.Fatalf("layout counted: %v", errs)
	}
}

// TestBrokenModules breaks the valid module one invariant at a time; each must
// be reported, and only that one.
func TestBrokenModules(t *testing.T) {
	for _, c := range []struct {
		name  string
		spoil func(mm *module)
		want  string
	}{
		{"a non-void function falls off its end", func(mm *module) {
			mm.helper.Body = Block{&If{Cond: ConstBool(true), Then: mm.helper.Body}}
		}, "reachable without returning a u32"},
		{"a loop with a break does not end a function", func(mm *module) {
			mm.helper.Body = Block{&Loop{Body: Block{&If{Cond: ConstBool(true), Then: Block{&Break{}}}, mm.helper.Body[0]}}}
		}, "reachable without returning"},
		{"use of a local the function does not declare", func(mm *module) {
			ghost := &Local{Name: "ghost", Type: U32, ID: 9}
			mm.add(&Store{Place: &LocalRef{mm.acc}, Value: &Load{&LocalRef{ghost}}})
		}, "use of local ghost, which the function does not declare"},
		{"use of a global outside the module", func(mm *module) {
			g := &Global{Name: "stray", Type: U32, Space: SpacePrivate}
			mm.add(&Store{Place: &LocalRef{mm.acc}, Value: &Load{&GlobalRef{g}}})
		}, "use of global stray, which is not in the module"},
		{"a store of the wrong type", func(mm *module) {
			mm.add(&Store{Place: &LocalRef{mm.acc}, Value: ConstFloat(F32, 1)})
		}, "store of f32 to %0 (u32)"},
		{"binary operands of different types", func(mm *module) {
			mm.add(&Store{Place: &LocalRef{mm.acc}, Value: &Binary{Op: Add, X: &Load{&LocalRef{mm.acc}}, Y: ConstInt(I32, 1), T: U32}})
		}, "binary operands differ (u32 vs i32)"},
		{"a comparison that does not yield bool", func(mm *module) {
			mm.add(&ExprStmt{X: &Binary{Op: Lt, X: &Load{&LocalRef{mm.acc}}, Y: ConstUint(U32, 1), T: U32}})
		}, "< yields u32"},
		{"an index typed as something else", func(mm *module) {
			mm.add(&ExprStmt{X: &Load{&Index{Base: &GlobalRef{mm.out}, Idx: ConstUint(U32, 0), T: I32}}})
		}, "is typed i32, want u32"},
		{"a member of a non-struct", func(mm *module) {
			mm.add(&Store{Place: &LocalRef{mm.acc}, Value: &Member{Base: &Load{&LocalRef{mm.acc}}, Field: 2}})
		}, "member 2 of u32, which is not a struct"},
		{"a swizzle beyond the vector", func(mm *module) {
			mm.add(&Store{Place: &LocalRef{mm.acc}, Value: &Swizzle{Base: &Load{&GlobalRef{mm.tid}}, Comps: []int{3}}})
		}, "swizzle component 3 of vec3<u32>"},
		{"a vector built from too few components", func(mm *module) {
			l := mm.main.NewLocal("v", Vector{U32, 4})
			mm.add(&Store{Place: &LocalRef{l}, Value: &Construct{T: Vector{U32, 4}, Args: []Expr{ConstUint(U32, 1)}}})
		}, "vec4<u32> built from 1 components"},
		{"a store to a constant global", func(mm *module) {
			k := &Global{Name: "K", Type: U32, Space: SpacePrivate, Const: true, Init: ConstUint(U32, 1)}
			mm.m.Globals = append(mm.m.Globals, k)
			mm.add(&Store{Place: &GlobalRef{k}, Value: ConstUint(U32, 2)})
		}, "store to constant global K"},
		{"a store to a value", func(mm *module) {
			mm.add(&Store{Place: ConstUint(U32, 1), Value: ConstUint(U32, 2)})
		}, "store to a non-place"},
		{"a break outside any loop or switch", func(mm *module) { mm.add(&Break{}) }, "break outside a loop or switch"},
		{"a continue in a switch outside any loop", func(mm *module) {
			mm.add(&Switch{Selector: ConstInt(I32, 0), Cases: []*Case{{Default: true, Body: Block{&Continue{}}}}})
		}, "continue outside a loop"},
		{"a continue in a continuing block", func(mm *module) {
			mm.add(&Loop{Body: Block{&Break{}}, Continuing: Block{&Continue{}}})
		}, "continue in a loop's continuing block"},
		{"a return in a continuing block", func(mm *module) {
			mm.add(&Loop{Body: Block{&Break{}}, Continuing: Block{&If{Cond: ConstBool(true), Then: Block{&Return{}}}}})
		}, "return in a loop's continuing block"},
		{"a non-bool if condition", func(mm *module) {
			mm.add(&If{Cond: ConstUint(U32, 1)})
		}, "if condition is u32, want bool"},
		{"a float switch selector", func(mm *module) {
			mm.add(&Switch{Selector: ConstFloat(F32, 1)})
		}, "switch selector is f32"},
		{"a repeated case value", func(mm *module) {
			mm.add(&Switch{Selector: ConstInt(I32, 0), Cases: []*Case{
				{Values: []int64{4}, Body: Block{&Break{}}}, {Values: []int64{4}, Body: Block{&Break{}}}}})
		}, "switch case 4 repeated"},
		{"a case that breaks but is marked FallThrough", func(mm *module) {
			mm.add(&Switch{Selector: ConstInt(I32, 0), Cases: []*Case{
				{Values: []int64{1}, Body: Block{&Break{}}, FallThrough: true}, {Default: true}}})
		}, "ends in a jump but is marked FallThrough"},
		{"a case that falls through unmarked", func(mm *module) {
			mm.add(&Switch{Selector: ConstInt(I32, 0), Cases: []*Case{
				{Values: []int64{1}, Body: Block{&Store{Place: &LocalRef{mm.acc}, Value: ConstUint(U32, 1)}}}, {Default: true}}})
		}, "falls through without FallThrough"},
		{"a return value from a void function", func(mm *module) {
			mm.add(&Return{Value: ConstUint(U32, 1)})
		}, "return with a value from a void function"},
		{"a return of the wrong type", func(mm *module) {
			mm.helper.Body = Block{&Return{Value: ConstInt(I32, 1)}}
		}, "return i32 from a function returning u32"},
		{"a call before its callee", func(mm *module) {
			mm.m.Functions[0], mm.m.Functions[1] = mm.m.Functions[1], mm.m.Functions[0]
		}, "call to twice, which is not before the caller"},
		{"a call with too few arguments", func(mm *module) {
			mm.add(&ExprStmt{X: &Call{Func: mm.helper}})
		}, "call to twice with 0 arguments, want 1"},
		{"a call of a function outside the module", func(mm *module) {
			mm.add(&ExprStmt{X: &Call{Func: &Function{Name: "elsewhere", Result: Void{}}}})
		}, "call to elsewhere, which is not in the module"},
		{"an out argument that is not a LocalRef", func(mm *module) {
			mm.helper.Params[0].Dir = Out
		}, "out argument 0 to twice is not a LocalRef"},
		{"an atomic on a local", func(mm *module) {
			mm.add(&ExprStmt{X: &Intrinsic{Op: intrinsics.InterlockedAdd, Args: []Expr{&LocalRef{mm.acc}, ConstUint(U32, 1)}, T: Void{}}})
		}, "InterlockedAdd on %0, which is not in a global"},
		{"an atomic on a global not marked Atomic", func(mm *module) {
			mm.add(&ExprStmt{X: &Intrinsic{Op: intrinsics.InterlockedAdd, Args: []Expr{&Index{Base: &GlobalRef{mm.out}, Idx: ConstUint(U32, 0), T: U32}, ConstUint(U32, 1)}, T: Void{}}})
		}, "InterlockedAdd on global Out, which is not marked Atomic"},
		{"an intrinsic sema lowers away", func(mm *module) {
			mm.add(&ExprStmt{X: &Intrinsic{Op: intrinsics.Asdouble, Args: []Expr{ConstUint(U32, 1), ConstUint(U32, 2)}, T: F64}})
		}, "asdouble is lowered by sema and cannot be an Intrinsic"},
		{"an intrinsic outside the table", func(mm *module) {
			mm.add(&ExprStmt{X: &Intrinsic{Op: intrinsics.Op(9999), T: U32}})
		}, "unknown intrinsic op 9999"},
		{"a missing expression", func(mm *module) {
			mm.add(&Store{Place: &LocalRef{mm.acc}, Value: nil})
		}, "missing expression"},
		{"an entry point with parameters", func(mm *module) {
			mm.main.Params = []Param{{Local: mm.acc}}
		}, "entry CSMain has parameters"},
		{"a stage input in the wrong space", func(mm *module) { mm.tid.Space = SpacePrivate }, "stage input tid is in space private"},
		{"a stage output outside the module", func(mm *module) {
			mm.m.EntryPoints[0].Outputs = []*Global{{Name: "o", Type: U32, Space: SpaceOutput}}
		}, "stage output o is not a global of the module"},
		{"two locals with one id", func(mm *module) {
			l := mm.main.NewLocal("twin", U32)
			l.ID = mm.acc.ID
		}, "local twin reuses id %0"},
		{"a parameter that is not a local", func(mm *module) {
			mm.helper.Params[0].Local = &Local{Name: "p", Type: U32}
		}, "parameter 0 is not one of the function's locals"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mm := newModule()
			c.spoil(mm)
			errs := Validate(mm.m)
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), c.want) {
				t.Errorf("want one error containing %q, got %d:\n%v\n%s", c.want, len(errs), errs, Dump(mm.m))
			}
		})
	}
}

// TestValidateNeverPanics: IR whose Type methods would panic is reported.
func TestValidateNeverPanics(t *testing.T) {
	for name, m := range map[string]*Module{
		"nil module":     nil,
		"nil function":   {Functions: []*Function{nil}},
		"nil entry func": {EntryPoints: []*EntryPoint{{Name: "e"}}},
		"nil statement":  {Functions: []*Function{{Name: "f", Result: Void{}, Body: Block{nil}}}},
		"call of nil":    {Functions: []*Function{{Name: "f", Result: Void{}, Body: Block{&ExprStmt{X: &Call{}}}}}},
		"member of a member of a scalar": {Functions: []*Function{{Name: "f", Result: Void{},
			Body: Block{&ExprStmt{X: &Member{Base: &Member{Base: ConstBool(true)}}}}}}},
		"swizzle of nothing": {Functions: []*Function{{Name: "f", Result: Void{}, Body: Block{&ExprStmt{X: &Swizzle{}}}}}},
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic %v", name, r)
				}
			}()
			if len(Validate(m)) == 0 {
				t.Errorf("%s: not reported", name)
			}
		}()
	}
}

// TestValidationErrorPosition: an error names its function and the nearest
// position (here the intrinsic's).
func TestValidationErrorPosition(t *testing.T) {
	mm := newModule()
	src := diag.NewSource("a.hlsl", "x\nInterlockedAdd(acc, 1);\n")
	pos := diag.Pos{Src: src, Off: 2}
	mm.add(&ExprStmt{X: &Intrinsic{Op: intrinsics.InterlockedAdd, Args: []Expr{&LocalRef{mm.acc}, ConstUint(U32, 1)}, T: Void{}, Pos: pos}})
	errs := Validate(mm.m)
	var ve *ValidationError
	if len(errs) != 1 || !errors.As(errs[0], &ve) {
		t.Fatalf("want one *ValidationError, got %v", errs)
	}
	if ve.Func != "CSMain" || ve.Pos != pos {
		t.Errorf("Func %q Pos %v, want CSMain and %v", ve.Func, ve.Pos, pos)
	}
	if got := ve.Error(); !strings.HasPrefix(got, "a.hlsl:2:1: fn CSMain: InterlockedAdd on %0") {
		t.Errorf("Error() = %q", got)
	}
}
