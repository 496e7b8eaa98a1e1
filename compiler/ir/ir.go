// Package ir is the compiler's target-neutral, typed intermediate representation:
// the one thing sema produces and every back end (SPIR-V, WGSL, MSL) and the
// reflection read.
//
// Shape: a Module holds globals (resources, groupshared, statics, stage inputs and
// outputs), functions and entry points. Function bodies are structured statement
// trees (If, Loop, Switch, Break, Continue, Return) over typed expression trees,
// close to naga's IR: text back ends print them directly and the SPIR-V back end
// maps them onto structured control flow.
//
// Invariants sema guarantees, back ends may rely on and Validate checks (hand-built
// test modules are held to them too):
//   - The module is closed: every GlobalRef names one of its Globals, every Call one
//     of its Functions, every entry point's function is one of them, and every
//     LocalRef names one of the enclosing function's Locals (parameters included;
//     Local IDs are unique within the function).
//   - Functions are in callee-before-caller order; there is no recursion.
//   - Every Expr has a resolved Type and its operands fit it: Binary operands have
//     equal types (scalars are splatted and conversions made explicit by sema; the
//     shift amount may differ in signedness only) and comparisons yield bool of the
//     operands' shape; Select branches agree; Index, Member and Swizzle select
//     what their base has; a vector Construct totals N components and a matrix
//     Construct has Rows row vectors. Types are compared as values: memory layout
//     (strides, the major order of matrices) does not count.
//   - Places (lvalues) are LocalRef, GlobalRef, and Index/Member chains on places.
//     Load reads a place. Stores target places only, never a Const global, and
//     store a value of the place's type; swizzle writes are split into
//     per-component stores by sema.
//   - Arguments for out/inout parameters are LocalRefs of Function-local temporaries
//     (HLSL's copy-in/copy-out), so back ends never pass pointers to other spaces.
//   - Atomic intrinsics take a place in a global marked Atomic.
//   - Control flow is structured: Break is inside a Loop or Switch, Continue inside
//     a Loop, and neither leaves a loop's Continuing block, which holds no Return
//     either. If, Switch and break-if conditions are scalar (bool; integer for
//     switch selectors). A switch case ending in Break, Continue or Return is not
//     marked FallThrough; any other case but the last is. A non-void function
//     returns a value on every path.
//   - Entry points are parameterless void functions: stage inputs/outputs are
//     Globals in the Input/Output spaces with a Builtin or Location.
//
// One more guarantee is about evaluation, which Validate cannot see: && and ||
// with side effects on the right are lowered to If by sema, so a Binary
// LogicalAnd/LogicalOr may evaluate both sides.
package ir

import (
	"fmt"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
)

// Stage is a shader stage.
type Stage uint8

const (
	Compute Stage = iota + 1
	Pixel
	Vertex
	// Amplification and Mesh are the Shader Model 6.5 mesh pipeline (Vulkan's task and
	// mesh shaders, Metal's object and mesh functions).
	Amplification
	Mesh
)

func (s Stage) String() string {
	switch s {
	case Compute:
		return "Compute"
	case Pixel:
		return "Pixel"
	case Vertex:
		return "Vertex"
	case Amplification:
		return "Amplification"
	case Mesh:
		return "Mesh"
	}
	return "?"
}

// Mask is the stage's bit in an intrinsics.StageMask.
func (s Stage) Mask() intrinsics.StageMask { return intrinsics.StageMask(1) << (s - 1) }

// HasThreadGroups reports whether the stage runs in thread groups with
// [numthreads] (compute, amplification, mesh): the stages with groupshared
// memory, workgroup barriers and a local invocation id.
func (s Stage) HasThreadGroups() bool { return s == Compute || s == Amplification || s == Mesh }

// Space is where a global lives.
type Space uint8

const (
	SpacePrivate      Space = iota + 1 // static globals (per invocation)
	SpaceWorkgroup                     // groupshared
	SpaceUniform                       // cbuffer / ConstantBuffer<T>
	SpaceStorage                       // RWStructuredBuffer, RWByteAddressBuffer (read-write)
	SpaceStorageRead                   // StructuredBuffer, ByteAddressBuffer (read-only)
	SpacePushConstant                  // [[vk::push_constant]]
	SpaceHandle                        // textures and samplers
	SpaceInput                         // stage input
	SpaceOutput                        // stage output
	// SpaceTaskPayload is the amplification-to-mesh payload (SPIR-V
	// TaskPayloadWorkgroupEXT): the groupshared struct an amplification shader passes
	// to DispatchMesh, and the `in payload` parameter a mesh shader reads.
	SpaceTaskPayload
)

var spaceNames = [...]string{"", "private", "workgroup", "uniform", "storage", "storage_read", "push_constant", "handle", "input", "output", "task_payload"}

func (s Space) String() string { return spaceNames[s] }

// ResourceKind is the HLSL resource class, kept for reflection and host layout.
type ResourceKind uint8

const (
	ResNone ResourceKind = iota
	ResConstantBuffer
	ResStructuredBuffer
	ResRWStructuredBuffer
	ResByteAddressBuffer
	ResRWByteAddressBuffer
	ResTexture2D
	ResRWTexture2D
	ResSampler
	ResPushConstant
)

var resNames = [...]string{"", "ConstantBuffer", "StructuredBuffer", "RWStructuredBuffer", "ByteAddressBuffer", "RWByteAddressBuffer", "Texture2D", "RWTexture2D", "SamplerState", "PushConstant"}

func (k ResourceKind) String() string { return resNames[k] }

// Binding places a resource in a descriptor set.
type Binding struct {
	Set, Binding int
	// Register is the HLSL register as written or implied ("t0", "u1,space1"); "" if none.
	Register string
}

// Builtin is a system value.
type Builtin uint8

const (
	BuiltinNone Builtin = iota
	BuiltinGlobalInvocationID
	BuiltinLocalInvocationID
	BuiltinWorkgroupID
	BuiltinLocalInvocationIndex
	BuiltinPosition // SV_Position: FragCoord as a pixel input, Position as a vertex output
	BuiltinFrontFacing
	BuiltinSampleIndex
	BuiltinVertexIndex
	BuiltinInstanceIndex
	// Mesh-shader outputs, each an array over the output vertices or primitives.
	BuiltinPrimitiveTriangleIndices // out indices uint3 (outputtopology triangle)
	BuiltinPrimitiveLineIndices     // out indices uint2 (outputtopology line)
	BuiltinPrimitiveID              // SV_PrimitiveID of out primitives
	BuiltinCullPrimitive            // SV_CullPrimitive of out primitives (bool)
)

var builtinNames = [...]string{"", "global_invocation_id", "local_invocation_id", "workgroup_id", "local_invocation_index", "position", "front_facing", "sample_index", "vertex_index", "instance_index",
	"primitive_triangle_indices", "primitive_line_indices", "primitive_id", "cull_primitive"}

func (b Builtin) String() string { return builtinNames[b] }

// Module is one compiled translation unit.
type Module struct {
	Structs     []*Struct // every struct type, in declaration order (for back ends that declare them)
	Globals     []*Global
	Functions   []*Function // callees before callers
	EntryPoints []*EntryPoint
}

// Global is a module-scope variable.
type Global struct {
	Name  string
	Type  Type
	Space Space
	Pos   diag.Pos

	// Resources.
	Resource ResourceKind
	Binding  *Binding // nil for non-resources

	// Private/constant globals.
	Const bool // static const: Init is a constant expression and the global is never stored
	Init  Expr // initializer (constant expression), or nil
	// Spec marks a [[vk::constant_id(SpecID)]] specialization constant (Const is true,
	// Init the default value).
	Spec   bool
	SpecID int

	// Stage IO.
	Builtin  Builtin
	Location int    // user semantic location when Builtin == BuiltinNone (Input/Output)
	Semantic string // the HLSL semantic ("SV_DispatchThreadID", "TEXCOORD0")
	Flat     bool   // integer pixel inputs are flat-interpolated
	// PerPrimitive marks a mesh shader's per-primitive output (a field of its
	// `out primitives` parameter; SPIR-V PerPrimitiveEXT). Mesh outputs are arrays
	// over the vertices or primitives: Type is the array, indexed by the writer.
	PerPrimitive bool

	// Atomic is set by sema when an Interlocked* call targets (part of) this global;
	// WGSL declares such storage atomic<…>.
	Atomic bool
}

// Local is a function-scope variable or parameter.
type Local struct {
	Name string
	Type Type
	ID   int // unique within its function, for dumps and back-end naming
}

// ParamDir is how a parameter is passed.
type ParamDir uint8

const (
	In ParamDir = iota
	Out
	InOut
)

// Param is a function parameter; out/inout parameters are passed by reference
// (the argument is a LocalRef of a temporary, see the package invariants).
type Param struct {
	Local *Local
	Dir   ParamDir
}

// Function is a function definition.
type Function struct {
	Name   string
	Params []Param
	Result Type // Void for none
	Locals []*Local
	Body   Block
	Pos    diag.Pos

	// localSlab holds Locals not yet handed out by NewLocal: they are
	// allocated eight at a time rather than one by one.
	localSlab []Local
}

// NewLocal adds a local to the function.
func (f *Function) NewLocal(name string, t Type) *Local {
	if len(f.localSlab) == 0 {
		f.localSlab = make([]Local, 8)
	}
	l := &f.localSlab[0]
	f.localSlab = f.localSlab[1:]
	*l = Local{Name: name, Type: t, ID: len(f.Locals)}
	if f.Locals == nil {
		f.Locals = make([]*Local, 0, 8)
	}
	f.Locals = append(f.Locals, l)
	return l
}

// EntryPoint is a shader entry.
type EntryPoint struct {
	Name       string // the HLSL function name; also the SPIR-V entry point name
	Stage      Stage
	NumThreads [3]int // compute only
	// WaveSize is the [WaveSize(…)] range a compute entry point requires; nil
	// when it has none.
	WaveSize *WaveSize
	// WaveOpsIncludeHelperLanes is [WaveOpsIncludeHelperLanes] (Shader Model 6.7,
	// pixel entry points only): helper lanes take part in the wave and quad
	// operations. HelperLanesPos is the attribute, for the back ends' warnings.
	WaveOpsIncludeHelperLanes bool
	HelperLanesPos            diag.Pos
	Func                      *Function
	Inputs                    []*Global
	Outputs                   []*Global
	Pos                       diag.Pos
	// Mesh describes an amplification or mesh entry point's pipeline interface; nil
	// for the other stages. NumThreads holds their [numthreads] as for compute.
	Mesh *MeshInfo
}

// Topology is a mesh shader's [outputtopology].
type Topology uint8

const (
	TopologyNone Topology = iota
	TopologyTriangle
	TopologyLine
)

func (t Topology) String() string {
	switch t {
	case TopologyTriangle:
		return "triangle"
	case TopologyLine:
		return "line"
	}
	return ""
}

// MeshInfo is what a host needs to build a mesh pipeline from an amplification or
// mesh entry point besides its code.
type MeshInfo struct {
	// Topology, MaxVertices and MaxPrimitives are a mesh shader's [outputtopology]
	// and the array sizes of its out vertices / out indices parameters (0 for an
	// amplification shader).
	Topology      Topology
	MaxVertices   int
	MaxPrimitives int
	// Payload is the amplification shader's groupshared payload (DispatchMesh's
	// argument) or the mesh shader's `in payload` parameter, in SpaceTaskPayload;
	// nil when a mesh shader takes none.
	Payload *Global
}

// WaveSize is the wave (subgroup) size range of [WaveSize(min, max, preferred)].
// [WaveSize(N)] is Min = Max = Preferred = N; [WaveSize(min, max)] has no
// preferred size (Preferred is 0). Sizes are powers of two from 4 to 128.
type WaveSize struct {
	Min, Max, Preferred int
	Pos                 diag.Pos // the attribute
}

// String renders the range as the one-line reflection shows it: "32", "16..64"
// or "16..64, 32" (min..max, preferred).
func (w *WaveSize) String() string {
	switch {
	case w.Min == w.Max:
		return fmt.Sprint(w.Min)
	case w.Preferred == 0:
		return fmt.Sprintf("%d..%d", w.Min, w.Max)
	}
	return fmt.Sprintf("%d..%d, %d", w.Min, w.Max, w.Preferred)
}

// Block is a list of statements.
type Block []Stmt

// Stmt is a statement.
type Stmt interface{ stmtNode() }

// Store writes Value to the place Place.
type Store struct {
	Place Expr
	Value Expr
}

// ExprStmt evaluates an expression for its side effects (calls, atomics, barriers).
type ExprStmt struct{ X Expr }

// If is a two-way branch.
type If struct {
	Cond       Expr // scalar bool
	Then, Else Block
}

// Loop repeats Body forever; it exits only by Break or Return. Continue jumps to
// Continuing; after Continuing, if BreakIf is non-nil and true the loop exits.
// for(init; cond; step) body  =>  init; Loop{Body: [if !cond {break}; body], Continuing: [step]}
// do body while(cond)          =>  Loop{Body: body, BreakIf: !cond}
type Loop struct {
	Body       Block
	Continuing Block
	BreakIf    Expr
	// Unroll records [unroll] (a hint: back ends may ignore it).
	Unroll bool
}

// Switch selects a case by an integer selector. Cases keep source order; a case
// whose body does not end in Break/Return/Continue falls through to the next one
// (HLSL allows fall-through only from empty case lists, which sema merges, but
// the flag keeps back ends honest).
type Switch struct {
	Selector Expr
	Cases    []*Case
}

// Case is one switch arm.
type Case struct {
	Values      []int64
	Default     bool
	Body        Block
	FallThrough bool
}

// Break leaves the innermost Loop or Switch.
type Break struct{}

// Continue jumps to the innermost Loop's Continuing block.
type Continue struct{}

// Return leaves the function, with a value for non-void functions.
type Return struct{ Value Expr }

// Discard kills the pixel invocation (pixel stage only).
type Discard struct{}

func (*Store) stmtNode()    {}
func (*ExprStmt) stmtNode() {}
func (*If) stmtNode()       {}
func (*Loop) stmtNode()     {}
func (*Switch) stmtNode()   {}
func (*Break) stmtNode()    {}
func (*Continue) stmtNode() {}
func (*Return) stmtNode()   {}
func (*Discard) stmtNode()  {}

// Expr is a typed expression.
type Expr interface {
	Type() Type
	exprNode()
}

// Const is a scalar constant. Bits holds the value: 0/1 for bool, two's complement
// for integers (sign-extended to 64 bits), IEEE-754 bits of the type's width for floats.
// Vector constants are Construct of Consts.
type Const struct {
	T    Scalar
	Bits uint64
}

// LocalRef names a local (a place).
type LocalRef struct{ L *Local }

// GlobalRef names a global (a place; for handles, the resource itself).
type GlobalRef struct{ G *Global }

// Index selects an element of an array, vector or matrix (a row vector for
// matrices). It is a place when Base is a place.
type Index struct {
	Base, Idx Expr
	T         Type
}

// Member selects a struct field. It is a place when Base is a place.
type Member struct {
	Base  Expr
	Field int
}

// Load reads a place.
type Load struct{ Place Expr }

// Swizzle picks components of a vector value (Comps index 0..3); a single
// component gives a scalar.
type Swizzle struct {
	Base  Expr
	Comps []int
}

// UnOp is a unary operator.
type UnOp uint8

const (
	Neg    UnOp = iota + 1 // arithmetic negation
	Not                    // logical not (bool)
	BitNot                 // bitwise complement (integers)
)

// BinOp is a binary operator. Arithmetic and comparisons are component-wise.
type BinOp uint8

const (
	Add BinOp = iota + 1
	Sub
	MulOp // component-wise multiply (matrix products are the Mul intrinsic)
	Div
	Rem // HLSL %: truncated remainder (sign of the dividend)
	Shl
	Shr // arithmetic for signed, logical for unsigned
	BitAnd
	BitOr
	BitXor
	LogicalAnd
	LogicalOr
	Eq
	Ne
	Lt
	Le
	Gt
	Ge
)

var binNames = [...]string{"", "+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||", "==", "!=", "<", "<=", ">", ">="}
var unNames = [...]string{"", "-", "!", "~"}

func (o BinOp) String() string { return binNames[o] }
func (o UnOp) String() string  { return unNames[o] }

// IsComparison reports whether the operator yields bool.
func (o BinOp) IsComparison() bool { return o >= Eq }

// Unary applies a unary operator.
type Unary struct {
	Op UnOp
	X  Expr
}

// Binary applies a binary operator to operands of equal type (the shift amount
// may differ in signedness only).
type Binary struct {
	Op   BinOp
	X, Y Expr
	T    Type // operand type for arithmetic; bool (vector) for comparisons
}

// Select is a component-wise choice; HLSL's ?: evaluates both sides.
type Select struct {
	Cond        Expr // bool, scalar or same-shaped vector
	True, False Expr
}

// Convert changes the scalar kind or width, component-wise (including bool<->number).
type Convert struct {
	X Expr
	T Type
}

// Bitcast reinterprets bits (asuint/asint/asfloat).
type Bitcast struct {
	X Expr
	T Type
}

// Construct builds a vector (from scalars and vectors whose components total N),
// a matrix (from Rows row vectors), an array or a struct (one argument per element).
type Construct struct {
	T    Type
	Args []Expr
}

// Call calls a user function.
type Call struct {
	Func *Function
	Args []Expr
	Pos  diag.Pos
}

// Intrinsic applies a row of the intrinsic table. For atomics Args[0] is a place;
// for resource methods Args[0] is the resource's GlobalRef.
type Intrinsic struct {
	Op   intrinsics.Op
	Args []Expr
	T    Type
	Pos  diag.Pos
}

func (c *Const) Type() Type     { return scalarType(c.T) }
func (r *LocalRef) Type() Type  { return r.L.Type }
func (r *GlobalRef) Type() Type { return r.G.Type }
func (x *Index) Type() Type     { return x.T }
func (x *Member) Type() Type    { return x.Base.Type().(*Struct).Fields[x.Field].Type }
func (x *Load) Type() Type      { return x.Place.Type() }
func (x *Swizzle) Type() Type   { s, _ := ScalarOf(x.Base.Type()); return VecOf(s, len(x.Comps)) }
func (x *Unary) Type() Type     { return x.X.Type() }
func (x *Binary) Type() Type    { return x.T }
func (x *Select) Type() Type    { return x.True.Type() }
func (x *Convert) Type() Type   { return x.T }
func (x *Bitcast) Type() Type   { return x.T }
func (x *Construct) Type() Type { return x.T }
func (x *Call) Type() Type      { return x.Func.Result }
func (x *Intrinsic) Type() Type { return x.T }
func (*Const) exprNode()        {}
func (*LocalRef) exprNode()     {}
func (*GlobalRef) exprNode()    {}
func (*Index) exprNode()        {}
func (*Member) exprNode()       {}
func (*Load) exprNode()         {}
func (*Swizzle) exprNode()      {}
func (*Unary) exprNode()        {}
func (*Binary) exprNode()       {}
func (*Select) exprNode()       {}
func (*Convert) exprNode()      {}
func (*Bitcast) exprNode()      {}
func (*Construct) exprNode()    {}
func (*Call) exprNode()         {}
func (*Intrinsic) exprNode()    {}

// IsPlace reports whether e denotes storage (can be loaded from / stored to).
func IsPlace(e Expr) bool {
	switch x := e.(type) {
	case *LocalRef, *GlobalRef:
		return true
	case *Index:
		return IsPlace(x.Base)
	case *Member:
		return IsPlace(x.Base)
	}
	return false
}

// RootGlobal returns the global a place is rooted in, or nil for locals and values.
func RootGlobal(e Expr) *Global {
	for {
		switch x := e.(type) {
		case *GlobalRef:
			return x.G
		case *Index:
			e = x.Base
		case *Member:
			e = x.Base
		default:
			return nil
		}
	}
}
