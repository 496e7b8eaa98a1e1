package wgsl

import (
	"fmt"
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/internal/textgen"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// intrinsic prints an intrinsic call. The WGSL name comes from the table
// (Info.WGSL); the switches below cover only rows whose WGSL column is empty or
// whose WGSL function differs in shape (bool operands, result type, constant
// lane ids).
func (fe *funcEmitter) intrinsic(x *ir.Intrinsic) string {
	in := intrinsics.Get(x.Op)
	if in.FalseOutsidePixel && fe.e.ep.Stage != ir.Pixel {
		return "false" // only fragment shaders have helper invocations
	}
	switch in.Class {
	case intrinsics.ClassWave, intrinsics.ClassQuad:
		return fe.wave(x, in)
	case intrinsics.ClassHelper:
		if in.WGSL == "" {
			fe.e.errorf(x.Pos, diag.ErrWGSLHelperLane, "%s in fragment shader %s: WGSL has no helper-invocation builtin; compile this entry point for SPIR-V or MSL only", in.Name, fe.e.ep.Name)
			return "false"
		}
		return fe.callText(in.WGSL, nil)
	case intrinsics.ClassMath:
		return fe.math(x, in)
	case intrinsics.ClassDeriv:
		if fe.e.ep.Stage != ir.Pixel {
			fe.e.errorf(x.Pos, diag.ErrWGSLStage, "%s: derivatives exist only in pixel shaders", in.Name)
		}
		return fe.callText(in.WGSL, fe.args(x.Args))
	case intrinsics.ClassTexture, intrinsics.ClassMisc:
		return fe.resource(x, in)
	case intrinsics.ClassAtomic:
		// The original value (sema's form: the atomic is an expression).
		return fe.atomicValue(x, in, x.Args, true)
	case intrinsics.ClassBarrier:
		fe.e.errorf(x.Pos, diag.ErrWGSLInternal, "%s used as a value", in.Name)
		return "0u"
	}
	fe.e.errorf(x.Pos, diag.ErrWGSLNoLowering, "%s has no WGSL lowering", in.Name)
	return "0u"
}

func (fe *funcEmitter) args(xs []ir.Expr) []string {
	out := make([]string, len(xs))
	for i, a := range xs {
		out[i] = fe.expr(a)
	}
	return out
}

func (fe *funcEmitter) callText(name string, args []string) string {
	return name + "(" + strings.Join(args, ", ") + ")"
}

func (fe *funcEmitter) tname(t ir.Type) string { return fe.e.typ(t, view{}, fe.pos()) }

// boolToU32 and u32ToBool carry bool values through functions that take only
// numbers (subgroupShuffle, subgroupBroadcastFirst).
func (fe *funcEmitter) boolToU32(text string, t ir.Type) string {
	ut := fe.tname(ir.WithScalar(t, ir.U32))
	return "select(" + ut + "(0u), " + ut + "(1u), " + text + ")"
}

func (fe *funcEmitter) u32ToBool(text string, t ir.Type) string {
	return "(" + text + " != " + fe.tname(ir.WithScalar(t, ir.U32)) + "(0u))"
}

func (fe *funcEmitter) wave(x *ir.Intrinsic, in *intrinsics.Info) string {
	e := fe.e
	if e.ep.Stage == ir.Vertex {
		// WGSL allows subgroup builtins in compute and fragment shaders only;
		// wgpu-native goes further with native-feature-subgroup-vertex, which
		// the naga dialect asks for.
		if e.opts.Dialect != Naga {
			e.errorf(x.Pos, diag.ErrWGSLVertexWave, "%s in vertex shader %s: WebGPU allows wave and quad operations only in compute and fragment shaders (wgpu-native's naga dialect takes them with native-feature-subgroup-vertex)", in.Name, e.ep.Name)
			return "0u"
		}
		e.usesSubgroupVertex = true
	}
	e.usesSubgroup = true
	switch x.Op {
	case intrinsics.WaveGetLaneCount:
		return e.laneCountVar
	case intrinsics.WaveGetLaneIndex:
		return e.laneIndexVar
	case intrinsics.WaveIsFirstLane:
		if e.opts.Dialect == Naga {
			// naga has no subgroupElect: the first active lane is the one whose
			// index the broadcast-first returns.
			return "(" + e.laneIndexVar + " == subgroupBroadcastFirst(" + e.laneIndexVar + "))"
		}
	case intrinsics.WaveActiveAllEqual:
		return fe.allEqual(x)
	case intrinsics.WaveActiveCountBits:
		return fe.helperCountBallot() + "(subgroupBallot(" + fe.expr(x.Args[0]) + "))"
	case intrinsics.WavePrefixCountBits:
		return "subgroupExclusiveAdd(select(0u, 1u, " + fe.expr(x.Args[0]) + "))"
	case intrinsics.QuadReadLaneAt:
		return fe.quadReadLaneAt(x, in)
	}
	if in.QuadVote != intrinsics.VoteNone {
		return fe.quadVote(x, in)
	}
	if in.WGSL == "" {
		e.errorf(x.Pos, diag.ErrWGSLNoLowering, "%s has no WGSL lowering (%s)", in.Name, in.WGSLLowering)
		return "0u"
	}
	// Generic: one WGSL call. Bool operands of functions that take numbers go
	// through u32; lane ids are u32.
	boolVia := false
	var args []string
	for i, a := range x.Args {
		text := fe.expr(a)
		if i < len(in.Params) {
			p := in.Params[i]
			s, _ := ir.ScalarOf(a.Type())
			switch {
			case s.Kind == ir.Bool && p.Kinds != intrinsics.KBool:
				text = fe.boolToU32(text, a.Type())
				boolVia = true
			case p.Scalar32 && s.Kind != ir.Uint:
				text = "u32(" + text + ")"
			}
		}
		args = append(args, text)
	}
	call := fe.callText(in.WGSL, args)
	if boolVia {
		return fe.u32ToBool(call, x.T)
	}
	return call
}

// allEqual: WGSL has no all-equal; per component, compare with the first
// active lane's value and AND across the subgroup (HLSL returns a bool per
// component). A helper per type keeps the operand evaluated once.
func (fe *funcEmitter) allEqual(x *ir.Intrinsic) string {
	t := x.Args[0].Type()
	tn := fe.tname(t)
	name := fe.e.helper("all_equal_"+sanitizeTypeText(tn), func(name string) string {
		var b strings.Builder
		rt := fe.tname(x.T)
		textgen.Write(&b, "// WaveActiveAllEqual: per component, subgroupAll(x == subgroupBroadcastFirst(x)).\n")
		textgen.Write(&b, "fn ", name, "(x: ", tn, ") -> ", rt, " {\n")
		s, _ := ir.ScalarOf(t)
		val := "x"
		if s.Kind == ir.Bool {
			val = fe.boolToU32("x", t)
		}
		textgen.Write(&b, "  let v = ", val, ";\n  let first = subgroupBroadcastFirst(v);\n")
		n := ir.Components(t)
		if n == 1 {
			b.WriteString("  return subgroupAll(v == first);\n}\n")
			return b.String()
		}
		var parts []string
		for i := 0; i < n; i++ {
			c := "xyzw"[i : i+1]
			parts = append(parts, "subgroupAll(v."+c+" == first."+c+")")
		}
		textgen.Write(&b, "  return ", rt, "(", strings.Join(parts, ", "), ");\n}\n")
		return b.String()
	})
	return name + "(" + fe.expr(x.Args[0]) + ")"
}

func (fe *funcEmitter) helperCountBallot() string {
	return fe.e.helper("count_ballot", func(name string) string {
		return "// WaveActiveCountBits: WGSL has no ballot bit count; add the popcounts of the four words.\n" +
			"fn " + name + "(b: vec4<u32>) -> u32 {\n  return countOneBits(b.x) + countOneBits(b.y) + countOneBits(b.z) + countOneBits(b.w);\n}\n"
	})
}

// quadVote: WGSL has no quad vote (QuadAny, QuadAll) and its quad swaps take no
// bool, so the predicate goes through u32 and is combined (| for any, & for all)
// with its quadSwapX, quadSwapY and quadSwapDiagonal. A helper keeps the operand
// evaluated once.
func (fe *funcEmitter) quadVote(x *ir.Intrinsic, in *intrinsics.Info) string {
	op, fn := " | ", "quad_any"
	if in.QuadVote == intrinsics.VoteAll {
		op, fn = " & ", "quad_all"
	}
	name := fe.e.helper(fn, func(name string) string {
		return "// " + in.Name + ": the predicate as u32, combined with its three quad swaps.\n" +
			"fn " + name + "(x: bool) -> bool {\n" +
			"  let v = select(0u, 1u, x);\n" +
			"  return (v" + op + "quadSwapX(v)" + op + "quadSwapY(v)" + op + "quadSwapDiagonal(v)) != 0u;\n}\n"
	})
	return name + "(" + fe.expr(x.Args[0]) + ")"
}

// quadReadLaneAt: quadBroadcast needs a constant lane; a variable lane selects
// among the four broadcasts.
func (fe *funcEmitter) quadReadLaneAt(x *ir.Intrinsic, in *intrinsics.Info) string {
	val := fe.expr(x.Args[0])
	if c, ok := x.Args[1].(*ir.Const); ok {
		lane := int64(c.Bits)
		if c.T.Kind == ir.Sint {
			lane = int64(int32(c.Bits))
		}
		if lane < 0 || lane > 3 {
			fe.e.errorf(x.Pos, diag.ErrWGSLQuadLane, "QuadReadLaneAt lane %d is outside 0..3", lane)
			return val
		}
		return in.WGSL + "(" + val + ", " + textgen.Dec(lane) + "u)"
	}
	tn := fe.tname(x.T)
	name := fe.e.helper("quad_read_lane_at_"+sanitizeTypeText(tn), func(name string) string {
		return "// QuadReadLaneAt with a variable lane: quadBroadcast takes only constant lanes.\n" +
			"fn " + name + "(x: " + tn + ", lane: u32) -> " + tn + " {\n" +
			"  let l = lane & 3u;\n" +
			"  let a = quadBroadcast(x, 0u);\n  let b = quadBroadcast(x, 1u);\n  let c = quadBroadcast(x, 2u);\n  let d = quadBroadcast(x, 3u);\n" +
			"  return select(select(select(a, b, l == 1u), c, l == 2u), d, l == 3u);\n}\n"
	})
	lane := fe.expr(x.Args[1])
	if s, _ := ir.ScalarOf(x.Args[1].Type()); s.Kind != ir.Uint {
		lane = "u32(" + lane + ")"
	}
	return name + "(" + val + ", " + lane + ")"
}

// helper declares a module-scope helper function once per key.
func (e *emitter) helper(key string, body func(name string) string) string {
	if name, ok := e.helpers[key]; ok {
		return name
	}
	name := "wr_" + key
	e.helpers[key] = name
	e.helperDecls = append(e.helperDecls, body(name))
	return name
}

func (fe *funcEmitter) math(x *ir.Intrinsic, in *intrinsics.Info) string {
	args := fe.args(x.Args)
	var a0 ir.Type
	if len(x.Args) > 0 {
		a0 = x.Args[0].Type()
	}
	s0, _ := ir.ScalarOf(a0)
	switch x.Op {
	case intrinsics.Mul:
		return fe.mul(x, args)
	case intrinsics.Dot:
		if _, scalar := a0.(ir.Scalar); scalar {
			return "(" + args[0] + " * " + args[1] + ")" // WGSL dot takes vectors only
		}
	case intrinsics.Normalize:
		if _, scalar := a0.(ir.Scalar); scalar {
			return fe.perComponent("normalize", x, "(%[1]s / length(%[1]s))")
		}
	case intrinsics.Mad:
		if s0.Kind != ir.Float {
			return "((" + args[0] + " * " + args[1] + ") + " + args[2] + ")" // fma is float-only in WGSL
		}
	case intrinsics.Any, intrinsics.All:
		if s0.Kind != ir.Bool {
			// HLSL any/all test numbers against zero.
			args[0] = "(" + args[0] + " != " + fe.tname(a0) + "(0))"
		}
	case intrinsics.F16tof32:
		return fe.perComponent("f16tof32", x, "unpack2x16float(%s).x")
	case intrinsics.F32tof16:
		return fe.perComponent("f32tof16", x, "pack2x16float(vec2<f32>(%s, 0.0))")
	}
	if in.WGSL == "" {
		fe.e.errorf(x.Pos, diag.ErrWGSLNoLowering, "%s has no WGSL lowering", in.Name)
		return "0"
	}
	if in.WGSL == "bitcast" {
		if s, _ := ir.ScalarOf(x.T); s.Bits != s0.Bits {
			fe.e.errorf(x.Pos, diag.ErrWGSLType, "%s of a %d-bit operand to a %d-bit result", in.Name, s0.Bits, s.Bits)
		}
		return "bitcast<" + fe.tname(x.T) + ">(" + args[0] + ")"
	}
	call := fe.callText(in.WGSL, args)
	// WGSL returns the operand's type where HLSL returns int/uint (sign of a
	// float, countbits of an int): convert.
	switch in.Result {
	case intrinsics.RIntShape0, intrinsics.RUintShape0, intrinsics.RSintShape0:
		if a0 != nil && !ir.Equal(a0, x.T) {
			return fe.tname(x.T) + "(" + call + ")"
		}
	}
	return call
}

// perComponent applies a scalar-only WGSL pattern to each component.
func (fe *funcEmitter) perComponent(key string, x *ir.Intrinsic, pattern string) string {
	arg := fe.expr(x.Args[0])
	n := ir.Components(x.Args[0].Type())
	tn := fe.tname(x.Args[0].Type())
	if n == 1 && !strings.Contains(pattern, "%[1]s") {
		return fmt.Sprintf(pattern, arg)
	}
	rt := fe.tname(x.T)
	name := fe.e.helper(key+"_"+sanitizeTypeText(tn), func(name string) string {
		if n == 1 {
			return "fn " + name + "(x: " + tn + ") -> " + rt + " {\n  return " + fmt.Sprintf(pattern, "x") + ";\n}\n"
		}
		var parts []string
		for i := 0; i < n; i++ {
			parts = append(parts, fmt.Sprintf(pattern, "x."+"xyzw"[i:i+1]))
		}
		return "fn " + name + "(x: " + tn + ") -> " + rt + " {\n  return " + rt + "(" + strings.Join(parts, ", ") + ");\n}\n"
	})
	return name + "(" + arg + ")"
}

// mul lowers HLSL mul. Matrices are held transposed (an HLSL row is a WGSL
// column), so every product with a matrix swaps its operands.
func (fe *funcEmitter) mul(x *ir.Intrinsic, args []string) string {
	tx, ty := x.Args[0].Type(), x.Args[1].Type()
	_, xs := tx.(ir.Scalar)
	_, ys := ty.(ir.Scalar)
	_, xv := tx.(ir.Vector)
	_, yv := ty.(ir.Vector)
	switch {
	case xs || ys:
		return "(" + args[0] + " * " + args[1] + ")"
	case xv && yv:
		return "dot(" + args[0] + ", " + args[1] + ")"
	}
	return "(" + args[1] + " * " + args[0] + ")"
}

// resource prints texture and buffer methods. Args[0] is the resource.
func (fe *funcEmitter) resource(x *ir.Intrinsic, in *intrinsics.Info) string {
	if len(x.Args) == 0 {
		fe.e.errorf(x.Pos, diag.ErrWGSLInternal, "%s without a resource argument", in.Name)
		return "0"
	}
	res := fe.expr(x.Args[0])
	var g *ir.Global
	if r, ok := x.Args[0].(*ir.GlobalRef); ok {
		g = r.G
	}
	switch x.Op {
	case intrinsics.TextureSample, intrinsics.TextureSampleLevel:
		if x.Op == intrinsics.TextureSample && fe.e.ep.Stage != ir.Pixel {
			fe.e.errorf(x.Pos, diag.ErrWGSLStage, "Sample needs implicit derivatives: pixel shaders only (use SampleLevel)")
		}
		args := fe.args(x.Args)
		return fe.fitVec4(fe.callText(in.WGSL, args), x.T)
	case intrinsics.TextureLoad:
		// sema: TextureLoad[t, coords vec2<i32>, level i32] for Texture2D,
		// [u, coords] for RWTexture2D.
		args := fe.args(x.Args)
		if g != nil {
			if t, ok := g.Type.(ir.Texture2D); ok && !t.Storage && len(args) == 2 {
				args = append(args, "0") // level 0 when the IR leaves it out
			}
		}
		return fe.fitVec4(fe.callText(in.WGSL, args), x.T)
	case intrinsics.TextureStore:
		val := fe.expr(x.Args[2])
		vt := x.Args[2].Type()
		if n := ir.Components(vt); n < 4 {
			s, _ := ir.ScalarOf(vt)
			var pad []string
			for i := n; i < 4; i++ {
				pad = append(pad, fe.constText(&ir.Const{T: ir.Scalar{Kind: s.Kind, Bits: 32}}))
			}
			val = "vec4<" + scalarName(s) + ">(" + val + ", " + strings.Join(pad, ", ") + ")"
		}
		return in.WGSL + "(" + res + ", " + fe.expr(x.Args[1]) + ", " + val + ")"
	case intrinsics.TextureGetDimensions:
		dims := in.WGSL + "(" + res + ")"
		if len(x.Args) > 1 {
			dims = in.WGSL + "(" + res + ", " + fe.expr(x.Args[1]) + ")"
		}
		if ir.Components(x.T) == 3 {
			dims = "vec3<u32>(" + dims + ", textureNumLevels(" + res + "))"
		}
		if s, _ := ir.ScalarOf(x.T); s.Kind != ir.Uint {
			return fe.tname(x.T) + "(" + dims + ")"
		}
		return dims
	case intrinsics.BufferGetDimensions:
		return fe.bufferDims(x, in, g)
	}
	fe.e.errorf(x.Pos, diag.ErrWGSLNoLowering, "%s has no WGSL lowering", in.Name)
	return "0"
}

// fitVec4 trims a vec4 texel to the IR result width.
func (fe *funcEmitter) fitVec4(text string, t ir.Type) string {
	if n := ir.Components(t); n < 4 && n > 0 {
		return text + swizzleFor(t)
	}
	return text
}

// bufferDims: arrayLength of the runtime array (the buffer itself or its last
// member), in elements: sema defines BufferGetDimensions that way for
// structured and byte-address buffers alike (it scales byte sizes itself).
func (fe *funcEmitter) bufferDims(x *ir.Intrinsic, in *intrinsics.Info, g *ir.Global) string {
	if g == nil {
		fe.e.errorf(x.Pos, diag.ErrWGSLInternal, "GetDimensions on a non-global")
		return "0u"
	}
	arr := fe.e.globalNames[g]
	t := g.Type
	if st, ok := t.(*ir.Struct); ok && len(st.Fields) > 0 {
		arr += "." + fe.e.fieldNames(st)[len(st.Fields)-1]
		t = st.Fields[len(st.Fields)-1].Type
	}
	if a, ok := t.(*ir.Array); !ok || a.Len != 0 {
		fe.e.errorf(x.Pos, diag.ErrWGSLInternal, "GetDimensions on %s, which has no runtime array", g.Name)
		return "0u"
	}
	count := in.WGSL + "(&" + arr + ")"
	if !ir.Equal(x.T, ir.U32) {
		return fe.tname(x.T) + "(" + count + ")"
	}
	return count
}

// atomicStmt prints an Interlocked* call evaluated for its effect. sema gives
// atomics the original value as their result; hand-built IR may instead pass
// the original_value out argument, which is stored here.
func (fe *funcEmitter) atomicStmt(x *ir.Intrinsic, in *intrinsics.Info) {
	args := x.Args
	if n := len(in.Params); len(args) == n && in.Params[n-1].Out {
		v := fe.atomicValue(x, in, args[:n-1], true)
		if v != "" {
			fe.storeOriginal(args[n-1], v, args[0].Type())
		}
		return
	}
	if v := fe.atomicValue(x, in, args, false); v != "" {
		fe.lineS(v, ";")
	}
}

// atomicValue returns the text of the atomic's original value. The compare-
// exchange loop is printed as statements before the current one; with
// wantValue false nothing is returned for it.
func (fe *funcEmitter) atomicValue(x *ir.Intrinsic, in *intrinsics.Info, args []ir.Expr, wantValue bool) string {
	if len(args) < 2 {
		fe.e.errorf(x.Pos, diag.ErrWGSLInternal, "%s with %d arguments", in.Name, len(args))
		return ""
	}
	p := fe.place(args[0])
	if !p.atomic {
		fe.e.errorf(x.Pos, diag.ErrWGSLAtomic, "%s: the destination is not a 32-bit integer in a buffer or groupshared memory", in.Name)
		return ""
	}
	dt := args[0].Type()
	val := func(a ir.Expr) string {
		text := fe.expr(a)
		if !ir.Equal(a.Type(), dt) {
			text = fe.tname(dt) + "(" + text + ")"
		}
		return text
	}
	switch x.Op {
	case intrinsics.InterlockedCompareExchange, intrinsics.InterlockedCompareStore:
		if len(args) < 3 {
			fe.e.errorf(x.Pos, diag.ErrWGSLInternal, "%s with %d arguments", in.Name, len(args))
			return ""
		}
		// atomicCompareExchangeWeak may fail spuriously; HLSL's is strong. Retry
		// until it exchanged or saw a different value.
		cmp, nv := fe.temp("cmp"), fe.temp("value")
		fe.lineS("let ", cmp, " = ", val(args[1]), ";")
		fe.lineS("let ", nv, " = ", val(args[2]), ";")
		orig := ""
		if wantValue && x.Op == intrinsics.InterlockedCompareExchange {
			orig = fe.temp("original")
			fe.lineS("var ", orig, ": ", fe.tname(dt), ";")
		}
		res := fe.temp("cas")
		fe.line("loop {")
		fe.depth++
		fe.lineS("let ", res, " = ", in.WGSL, "(&", p.text, ", ", cmp, ", ", nv, ");")
		fe.lineS("if ", res, ".exchanged || ", res, ".old_value != ", cmp, " {")
		fe.depth++
		if orig != "" {
			fe.lineS(orig, " = ", res, ".old_value;")
		}
		fe.line("break;")
		fe.depth--
		fe.line("}")
		fe.depth--
		fe.line("}")
		if orig != "" && !ir.Equal(x.T, dt) && !isVoid(x.T) {
			return fe.tname(x.T) + "(" + orig + ")"
		}
		return orig
	}
	call := in.WGSL + "(&" + p.text + ", " + val(args[1]) + ")"
	if wantValue && !isVoid(x.T) && !ir.Equal(x.T, dt) {
		return fe.tname(x.T) + "(" + call + ")"
	}
	return call
}

func isVoid(t ir.Type) bool {
	_, ok := t.(ir.Void)
	return ok || t == nil
}

func (fe *funcEmitter) storeOriginal(dst ir.Expr, value string, from ir.Type) {
	if !ir.Equal(dst.Type(), from) {
		value = fe.tname(dst.Type()) + "(" + value + ")"
	}
	p := fe.place(dst)
	if p.atomic {
		fe.lineS("atomicStore(&", p.text, ", ", value, ");")
		return
	}
	fe.lineS(p.text, " = ", value, ";")
}
