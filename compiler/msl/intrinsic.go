package msl

import (
	"waverig/compiler/diag"
	"waverig/compiler/internal/textgen"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// callName matches an MSL column that is a plain function name (so the generic
// "name(args)" lowering applies); anything else is a description of a lowering.
// It matches what ^[a-z_][a-z0-9_]*$ would, by hand: a regexp compiled at package
// initialisation cost start-up time in every process.
var callName callNameMatcher

type callNameMatcher struct{}

func (callNameMatcher) MatchString(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// validateIntrinsic rejects intrinsics Metal cannot express, before printing.
func (e *emitter) validateIntrinsic(x *ir.Intrinsic) {
	if x.Op.String() == "Op(?)" {
		e.errorf(x.Pos, diag.ErrMSLMalformedInput, "unknown intrinsic op %d", x.Op)
		return
	}
	info := intrinsics.Get(x.Op)
	if len(x.Args) < len(info.Params) && info.Result != intrinsics.RSpecial {
		// Out parameters (original_value) are optional; everything before them is not.
		need := 0
		for _, p := range info.Params {
			if !p.Out {
				need++
			}
		}
		if len(x.Args) < need {
			e.errorf(x.Pos, diag.ErrMSLMalformedInput, "%s with %d arguments, want %d", info.Name, len(x.Args), need)
			return
		}
	}
	switch info.Class {
	case intrinsics.ClassWave, intrinsics.ClassQuad:
		if info.MSL == "" && !mslWaveLowered(x.Op) {
			e.errorf(x.Pos, diag.ErrMSLNoLowering, "%s has no Metal equivalent (%s)", info.Name, info.MSLLowering)
			return
		}
		for _, a := range x.Args {
			if s, ok := ir.ScalarOf(a.Type()); ok && s.Bits == 64 {
				e.errorf(x.Pos, diag.ErrMSLSimdType, "%s on %s: Metal simd-group and quad-group functions do not take 64-bit types", info.Name, a.Type())
				return
			}
		}
	case intrinsics.ClassTexture, intrinsics.ClassMisc:
		if len(x.Args) == 0 || ir.RootGlobal(x.Args[0]) == nil {
			e.errorf(x.Pos, diag.ErrMSLMalformedInput, "%s without its resource argument", info.Name)
		}
	}
	if (x.Op == intrinsics.Firstbithigh || x.Op == intrinsics.Firstbitlow) && len(x.Args) > 0 {
		if s, _ := ir.ScalarOf(x.Args[0].Type()); s.Bits == 64 {
			e.errorf(x.Pos, diag.ErrMSLNoLowering, "%s on %s: only 32-bit operands are lowered for Metal", info.Name, x.Args[0].Type())
		}
	}
}

// mslWaveLowered lists the wave rows with an empty MSL column that the switch in
// wave() lowers; the others (SM 6.5 partitioned operations) are E0704.
// A switch, not a map built at package initialisation.
func mslWaveLowered(op intrinsics.Op) bool {
	switch op {
	case intrinsics.WaveGetLaneCount, intrinsics.WaveGetLaneIndex, intrinsics.WaveActiveAllEqual,
		intrinsics.WaveActiveBallot, intrinsics.WaveActiveCountBits, intrinsics.WavePrefixCountBits:
		return true
	}
	return false
}

func (e *emitter) intrinsic(x *ir.Intrinsic) string {
	info := intrinsics.Get(x.Op)
	if info.FalseOutsidePixel && e.ep.Stage != ir.Pixel {
		return "false" // only fragment functions have helper threads
	}
	switch info.Class {
	case intrinsics.ClassWave, intrinsics.ClassQuad:
		return e.wave(x, info)
	case intrinsics.ClassBarrier:
		// The MSL column is the whole call (threadgroup_barrier with its mem_flags).
		return info.MSL
	case intrinsics.ClassAtomic:
		if x.Op == intrinsics.InterlockedCompareExchange || x.Op == intrinsics.InterlockedCompareStore {
			e.errorf(x.Pos, diag.ErrMSLUnsupported, "%s must be a statement of its own or the value of a store", info.Name)
			return "0"
		}
		ptr, ok := e.atomicPointer(x)
		if !ok {
			return "0"
		}
		ds, _ := ir.ScalarOf(x.Args[0].Type())
		val := e.expr(x.Args[1])
		if vs, _ := ir.ScalarOf(x.Args[1].Type()); vs != ds {
			val = scalarName(ds) + "(" + val + ")"
		}
		call := info.MSL + "(" + ptr + ", " + val + ", memory_order_relaxed)"
		if len(x.Args) > 2 {
			return "(" + e.place(x.Args[2]) + " = " + call + ")"
		}
		return call
	case intrinsics.ClassMath, intrinsics.ClassDeriv:
		return e.math(x, info)
	case intrinsics.ClassTexture:
		return e.texture(x)
	case intrinsics.ClassMisc:
		if x.Op == intrinsics.BufferGetDimensions {
			return e.bufferLength(x)
		}
	case intrinsics.ClassMesh:
		return e.meshIntrinsic(x)
	case intrinsics.ClassHelper:
		if callName.MatchString(info.MSL) {
			return info.MSL + "()"
		}
	}
	e.errorf(x.Pos, diag.ErrMSLNoLowering, "%s has no Metal lowering", info.Name)
	return "0"
}

// wave lowers simd-group and quad-group operations: the generic "MSL(args)" call for
// rows with a function name, adapting arguments by the row's flags, and a switch
// for the rows whose MSL column is empty.
func (e *emitter) wave(x *ir.Intrinsic, info *intrinsics.Info) string {
	switch x.Op {
	case intrinsics.WaveGetLaneCount:
		return "_wr_lane_count"
	case intrinsics.WaveGetLaneIndex:
		return "_wr_lane_index"
	case intrinsics.WaveActiveAllEqual:
		return e.helperAllEqual(x.Args[0].Type()) + "(" + e.expr(x.Args[0]) + ")"
	case intrinsics.WaveActiveBallot:
		e.useHelper("wr_ballot")
		return "wr_ballot(" + e.expr(x.Args[0]) + ", _wr_lane_count)"
	case intrinsics.WaveActiveCountBits:
		e.useHelper("wr_ballot_count")
		return "wr_ballot_count(" + e.expr(x.Args[0]) + ", _wr_lane_count)"
	case intrinsics.WavePrefixCountBits:
		// Lanes below this one whose predicate is true: an exclusive sum of 0/1.
		return "simd_prefix_exclusive_sum(uint(" + e.expr(x.Args[0]) + "))"
	}
	if info.MSL == "" {
		e.errorf(x.Pos, diag.ErrMSLNoLowering, "%s has no Metal equivalent (%s)", info.Name, info.MSLLowering)
		return "0"
	}
	var as []string
	viaUshort := false
	for i, a := range x.Args {
		s := e.expr(a)
		if i < len(info.Params) {
			p := info.Params[i]
			sc, _ := ir.ScalarOf(a.Type())
			switch {
			case p.Scalar32:
				// Metal lane ids are ushort.
				s = "ushort(" + s + ")"
			case sc.Kind == ir.Bool && p.Kinds&intrinsics.KNumeric != 0:
				// Data-movement functions take no bool: move the value as ushort.
				s = e.typeName(ir.WithScalar(a.Type(), ir.Scalar{Kind: ir.Uint, Bits: 16})) + "(" + s + ")"
				viaUshort = true
			}
		}
		as = append(as, s)
	}
	if info.SPIRV.QuadDirection >= 0 && info.Class == intrinsics.ClassQuad {
		// QuadSwap direction d exchanges lanes l and l ^ (d + 1).
		as = append(as, "ushort("+textgen.Dec(info.SPIRV.QuadDirection+1)+")")
	}
	call := info.MSL + "(" + callArgs(as) + ")"
	if viaUshort {
		return e.typeName(x.T) + "(" + call + ")"
	}
	return call
}

func (e *emitter) math(x *ir.Intrinsic, info *intrinsics.Info) string {
	var as []string
	for _, a := range x.Args {
		as = append(as, e.expr(a))
	}
	arg0 := func() ir.Type { return x.Args[0].Type() }
	s0 := func() ir.Scalar { s, _ := ir.ScalarOf(arg0()); return s }
	conv := func(call string) string {
		// Metal math returns the argument's type; HLSL may want another (sign -> int).
		if len(x.Args) > 0 && !ir.Equal(arg0(), x.T) {
			return e.typeName(x.T) + "(" + call + ")"
		}
		return call
	}
	switch x.Op {
	case intrinsics.Mul:
		return e.mul(x, as)
	case intrinsics.Abs:
		if s0().Kind == ir.Uint {
			return as[0] // abs of an unsigned value is the value
		}
	case intrinsics.Sign:
		if s0().Kind != ir.Float {
			e.useHelper("wr_isign")
			return conv("wr_isign(" + as[0] + ")")
		}
	case intrinsics.Dot:
		if _, scalar := arg0().(ir.Scalar); scalar {
			return "(" + as[0] + " * " + as[1] + ")"
		}
		if s0().Kind != ir.Float {
			e.useHelper("wr_idot")
			return "wr_idot(" + as[0] + ", " + as[1] + ")"
		}
	case intrinsics.Length:
		if _, scalar := arg0().(ir.Scalar); scalar {
			return "abs(" + as[0] + ")"
		}
	case intrinsics.Normalize:
		if _, scalar := arg0().(ir.Scalar); scalar {
			return "sign(" + as[0] + ")"
		}
	case intrinsics.Mad:
		if s0().Kind != ir.Float {
			return "((" + as[0] + " * " + as[1] + ") + " + as[2] + ")"
		}
	case intrinsics.Any, intrinsics.All:
		fn := "any"
		if x.Op == intrinsics.All {
			fn = "all"
		}
		t := arg0()
		if s0().Kind != ir.Bool {
			as[0] = "(" + as[0] + " != " + e.typeName(t) + "(0))"
			t = ir.WithScalar(t, ir.BoolT)
		}
		if _, scalar := t.(ir.Scalar); scalar {
			return as[0]
		}
		return fn + "(" + as[0] + ")"
	case intrinsics.Countbits:
		return conv("popcount(" + as[0] + ")")
	case intrinsics.Firstbithigh:
		e.useHelper("wr_firstbithigh")
		if s0().Kind == ir.Sint {
			return "wr_firstbithigh_s<" + e.typeName(x.T) + ">(" + as[0] + ")"
		}
		return "wr_firstbithigh(" + as[0] + ")"
	case intrinsics.Firstbitlow:
		e.useHelper("wr_firstbitlow")
		if s0().Kind == ir.Sint {
			as[0] = "as_type<" + e.typeName(x.T) + ">(" + as[0] + ")"
		}
		return "wr_firstbitlow(" + as[0] + ")"
	case intrinsics.Reversebits:
		return "reverse_bits(" + as[0] + ")"
	case intrinsics.Asuint, intrinsics.Asint, intrinsics.Asfloat:
		if ir.Equal(arg0(), x.T) {
			return as[0]
		}
		return "as_type<" + e.typeName(x.T) + ">(" + as[0] + ")"
	case intrinsics.F16tof32:
		e.useHelper("wr_f16tof32")
		return "wr_f16tof32(" + as[0] + ")"
	case intrinsics.F32tof16:
		e.useHelper("wr_f32tof16")
		return "wr_f32tof16(" + as[0] + ")"
	}
	if !callName.MatchString(info.MSL) {
		e.errorf(x.Pos, diag.ErrMSLNoLowering, "%s has no Metal lowering (%q)", info.Name, info.MSL)
		return "0"
	}
	return conv(info.MSL + "(" + callArgs(as) + ")")
}

// mul lowers HLSL mul() under the row-as-column matrix representation (doc.go).
func (e *emitter) mul(x *ir.Intrinsic, as []string) string {
	if len(x.Args) != 2 {
		e.errorf(x.Pos, diag.ErrMSLMalformedInput, "mul with %d arguments", len(x.Args))
		return "0"
	}
	a, b := x.Args[0].Type(), x.Args[1].Type()
	_, am := a.(ir.Matrix)
	_, bm := b.(ir.Matrix)
	_, av := a.(ir.Vector)
	_, bv := b.(ir.Vector)
	switch {
	case av && bv:
		s, _ := ir.ScalarOf(a)
		if s.Kind != ir.Float {
			e.useHelper("wr_idot")
			return "wr_idot(" + as[0] + ", " + as[1] + ")"
		}
		return "dot(" + as[0] + ", " + as[1] + ")"
	case am || bm:
		if (am && bm) || (av && bm) || (am && bv) {
			return "(" + as[1] + " * " + as[0] + ")"
		}
	}
	// A scalar operand: component-wise scaling in both languages.
	return "(" + as[0] + " * " + as[1] + ")"
}

// texture lowers Texture2D / RWTexture2D methods; Args[0] is the texture.
func (e *emitter) texture(x *ir.Intrinsic) string {
	tex := e.expr(x.Args[0])
	tt, ok := x.Args[0].Type().(ir.Texture2D)
	if !ok {
		e.errorf(x.Pos, diag.ErrMSLMalformedInput, "%s on a %s", x.Op, x.Args[0].Type())
		return "0"
	}
	var as []string
	for _, a := range x.Args[1:] {
		as = append(as, e.expr(a))
	}
	narrow := func(v string) string {
		if n := ir.Components(x.T); n > 0 && n < 4 {
			return v + "." + "xyzw"[:n]
		}
		return v
	}
	need := map[intrinsics.Op]int{intrinsics.TextureSample: 2, intrinsics.TextureSampleLevel: 3, intrinsics.TextureLoad: 1, intrinsics.TextureStore: 2}
	if len(as) < need[x.Op] {
		e.errorf(x.Pos, diag.ErrMSLMalformedInput, "%s with %d arguments", x.Op, len(x.Args))
		return "0"
	}
	switch x.Op {
	case intrinsics.TextureSample:
		return narrow(tex + ".sample(" + as[0] + ", " + as[1] + ")")
	case intrinsics.TextureSampleLevel:
		return narrow(tex + ".sample(" + as[0] + ", " + as[1] + ", level(" + as[2] + "))")
	case intrinsics.TextureLoad:
		// sema: TextureLoad[t, coords int2, level int] for Texture2D, [u, coords] for RWTexture2D.
		if ir.Components(x.Args[1].Type()) != 2 {
			e.errorf(x.Pos, diag.ErrMSLMalformedInput, "%s coordinates of type %s, want a 2-vector", x.Op, x.Args[1].Type())
			return "0"
		}
		if len(as) > 1 && !tt.Storage {
			return narrow(tex + ".read(uint2(" + as[0] + "), uint(" + as[1] + "))")
		}
		return narrow(tex + ".read(uint2(" + as[0] + "))")
	case intrinsics.TextureStore:
		v := as[1]
		if n := ir.Components(x.Args[2].Type()); n < 4 {
			zero := e.literal(&ir.Const{T: tt.Elem})
			for i := n; i < 4; i++ {
				v += ", " + zero
			}
			v = e.typeName(ir.Vector{Elem: tt.Elem, N: 4}) + "(" + v + ")"
		}
		return tex + ".write(" + v + ", uint2(" + as[0] + "))"
	case intrinsics.TextureGetDimensions:
		lod := ""
		if len(as) > 0 {
			lod = "uint(" + as[0] + ")"
		}
		v := "uint2(" + tex + ".get_width(" + lod + "), " + tex + ".get_height(" + lod + "))"
		if !ir.Equal(x.T, ir.Vector{Elem: ir.U32, N: 2}) {
			return e.typeName(x.T) + "(" + v + ")"
		}
		return v
	}
	e.errorf(x.Pos, diag.ErrMSLNoLowering, "%s has no Metal lowering", x.Op)
	return "0"
}

// bufferLength lowers BufferGetDimensions through the _buffer_sizes table (see
// doc.go): the byte size over the array stride.
func (e *emitter) bufferLength(x *ir.Intrinsic) string {
	g := ir.RootGlobal(x.Args[0])
	idx, ok := e.argIndex[g]
	if !ok || !isResource(g) {
		e.errorf(x.Pos, diag.ErrMSLUnsupported, "GetDimensions on %s, which is not a buffer", g.Name)
		return "0"
	}
	// sema defines the result as the runtime array's length in elements, for
	// byte-address buffers too (an array of u32; sema multiplies by 4 itself).
	stride := 0
	if a, ok := g.Type.(*ir.Array); ok && a.Len == 0 {
		stride = a.Stride
		if stride == 0 {
			s, al := natural(a.Elem, false)
			stride = roundUp(s, al)
		}
	}
	if stride == 0 {
		e.errorf(x.Pos, diag.ErrMSLUnsupported, "GetDimensions on %s, which is not a runtime array", g.Name)
		return "0"
	}
	v := "(_buffer_sizes[" + textgen.Dec(idx) + "] / " + textgen.Dec(stride) + "u)"
	if !ir.Equal(x.T, ir.U32) {
		return e.typeName(x.T) + "(" + v + ")"
	}
	return v
}
