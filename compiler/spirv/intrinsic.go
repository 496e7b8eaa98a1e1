package spirv

import (
	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// intrinsic lowers an intrinsic call from its row of the intrinsics table.
func (s *fn) intrinsic(e *ir.Intrinsic) uint32 {
	b := s.b
	b.pos = e.Pos
	in, ok := intrinsics.Lookup(e.Op.String())
	if !ok {
		b.errorf(e.Pos, diag.ErrSpvNoLowering, "unknown intrinsic %v", e.Op)
		return s.undef(e.T)
	}
	for _, a := range e.Args {
		if a == nil {
			b.errorf(e.Pos, diag.ErrSpvShape, "%s: missing argument", in.Name)
			return s.undef(e.T)
		}
	}
	if in.FalseOutsidePixel && b.stage != ir.Pixel {
		// Only pixel shaders have helper lanes (IsHelperLane elsewhere, as DXC allows it).
		return s.convert(b.constant(ir.BoolT, 0), ir.BoolT, e.T)
	}
	switch in.Class {
	case intrinsics.ClassWave, intrinsics.ClassQuad:
		return s.wave(e, in)
	case intrinsics.ClassHelper:
		return s.helper(e, in)
	case intrinsics.ClassBarrier:
		return s.barrier(in)
	case intrinsics.ClassAtomic:
		return s.atomic(e, in)
	case intrinsics.ClassTexture:
		return s.texture(e, in)
	case intrinsics.ClassMisc:
		return s.bufferLength(e, in)
	case intrinsics.ClassMesh:
		return s.meshControl(e, in)
	}
	return s.math(e, in)
}

func (s *fn) noLowering(e *ir.Intrinsic, in *intrinsics.Info, t ir.Type) uint32 {
	s.b.errorf(e.Pos, diag.ErrSpvNoLowering, "%s has no SPIR-V lowering for %v", in.Name, t)
	return s.undef(e.T)
}

func argKind(e *ir.Intrinsic) (ir.Scalar, ir.Type) {
	if len(e.Args) > 0 {
		t := e.Args[0].Type()
		sc, _ := ir.ScalarOf(t)
		return sc, t
	}
	sc, _ := ir.ScalarOf(e.T)
	return sc, e.T
}

// wave lowers subgroup and quad operations: operands are [Scope] [GroupOperation]
// value [extra operands] [QuadDirection], all as the table row says.
func (s *fn) wave(e *ir.Intrinsic, in *intrinsics.Info) uint32 {
	b := s.b
	sp := &in.SPIRV
	if sp.Builtin != 0 {
		b.needCap(sp.Capability)
		v := s.op(opLoad, b.u32Type(), b.builtinVar(sp.Builtin, ir.U32))
		return s.convert(v, ir.U32, e.T)
	}
	if in.QuadVote != intrinsics.VoteNone {
		return s.quadVote(e, in)
	}
	partitioned := sp.Capability == intrinsics.CapGroupNonUniformPartitionedNV ||
		(sp.GroupOp >= groupOpPartitionedFirst && sp.GroupOp <= groupOpPartitionedLast)
	if partitioned && !b.opts.PartitionedNV {
		b.errorf(e.Pos, diag.ErrSpvPartitioned, "%s needs SPV_NV_shader_subgroup_partitioned (enable the partitioned option), or build the groups from WaveActiveBallot and WaveReadLaneFirst in a loop", in.Name)
		return s.undef(e.T)
	}
	if len(e.Args) != len(in.Params) {
		b.errorf(e.Pos, diag.ErrSpvShape, "%s takes %d arguments, got %d", in.Name, len(in.Params), len(e.Args))
		return s.undef(e.T)
	}
	sc, at := argKind(e)
	code := sp.Op[sc.Kind&3]
	if code == 0 {
		return s.noLowering(e, in, at)
	}
	b.needCap(sp.Capability)
	if partitioned {
		b.needCap(intrinsics.CapGroupNonUniformPartitionedNV)
		b.needExt(extPartitioned)
	}
	// The partition instruction itself is the one GroupNonUniform instruction without a Scope.
	scoped := !(sp.Capability == intrinsics.CapGroupNonUniformPartitionedNV && sp.GroupOp < 0)
	scope := b.u32(scopeSubgroup)
	var value uint32
	if len(e.Args) > 0 {
		value = s.expr(e.Args[0])
	}
	if sp.ViaBallot {
		b.needCap(intrinsics.CapGroupNonUniformBallot)
		value = s.op(opGroupNonUniformBallot, b.vectorType(ir.U32, 4), scope, value)
	}
	if sp.CountsBool {
		value = s.convert(value, ir.BoolT, ir.U32)
	}
	head := make([]uint32, 0, 6)
	if scoped {
		head = append(head, scope)
	}
	if sp.GroupOp >= 0 {
		head = append(head, uint32(sp.GroupOp))
	}
	var tail []uint32
	for i := 1; i < len(e.Args); i++ {
		tail = append(tail, s.waveOperand(e, in, i))
	}
	if sp.QuadDirection >= 0 {
		tail = append(tail, b.u32(uint32(sp.QuadDirection)))
	}
	if sp.PerComponent {
		// One instruction per component, recombined (AllEqual is per component in HLSL).
		rs, _ := ir.ScalarOf(e.T)
		rt := b.scalarType(rs)
		v, ok := at.(ir.Vector)
		if !ok {
			return s.op(code, rt, append(append(head, value), tail...)...)
		}
		parts := make([]uint32, v.N)
		for i := range parts {
			c := s.op(opCompositeExtract, b.scalarType(v.Elem), value, uint32(i))
			ops := append(append(append([]uint32(nil), head...), c), tail...)
			parts[i] = s.op(code, rt, ops...)
		}
		return s.op(opCompositeConstruct, b.typeID(e.T), parts...)
	}
	ops := head
	if len(e.Args) > 0 {
		ops = append(ops, value)
	}
	return s.op(code, b.typeID(e.T), append(ops, tail...)...)
}

// quadVote lowers QuadAny/QuadAll. With the row's opt-in extension enabled: its
// instruction (the predicate only, no scope), capability and extension. Otherwise
// the portable form: the predicate combined (LogicalOr for any, LogicalAnd for
// all) with its three OpGroupNonUniformQuadSwap (directions 0, 1, 2; QuadSwap
// takes bool), under the row's Portable capability.
func (s *fn) quadVote(e *ir.Intrinsic, in *intrinsics.Info) uint32 {
	b := s.b
	sp := &in.SPIRV
	if len(e.Args) != 1 || len(in.Params) != 1 {
		b.errorf(e.Pos, diag.ErrSpvShape, "%s takes 1 argument, got %d", in.Name, len(e.Args))
		return s.undef(e.T)
	}
	at := e.Args[0].Type()
	if sc, ok := at.(ir.Scalar); !ok || sc.Kind != ir.Bool {
		return s.noLowering(e, in, at)
	}
	bt := b.scalarType(ir.BoolT)
	v := s.expr(e.Args[0])
	if sp.OptIn && b.opts.enabled(sp.Extension) {
		b.needCap(sp.Capability)
		b.needExt(sp.Extension)
		return s.convert(s.op(sp.Op[ir.Bool], bt, v), ir.BoolT, e.T)
	}
	b.needCap(sp.Portable)
	combine := uint16(opLogicalOr)
	if in.QuadVote == intrinsics.VoteAll {
		combine = opLogicalAnd
	}
	scope := b.u32(scopeSubgroup)
	r := v
	for dir := uint32(0); dir < 3; dir++ {
		r = s.op(combine, bt, r, s.op(opNonUniformQuadSwap, bt, scope, v, b.u32(dir)))
	}
	return s.convert(r, ir.BoolT, e.T)
}

// helper lowers an operand-less query of the invocation (IsHelperLane, pixel
// shaders only): from the row's BuiltinSince on a load of its BuiltIn, before it
// the row's instruction, declaring its capability, and its extension while the
// capability is not core.
func (s *fn) helper(e *ir.Intrinsic, in *intrinsics.Info) uint32 {
	b := s.b
	sp := &in.SPIRV
	bt := b.scalarType(ir.BoolT)
	if sp.Builtin != 0 && b.version >= sp.BuiltinSince {
		v := s.op(opLoad, bt, b.builtinVar(sp.Builtin, ir.BoolT))
		return s.convert(v, ir.BoolT, e.T)
	}
	code := sp.Op[ir.Bool]
	if code == 0 || len(e.Args) != 0 {
		return s.noLowering(e, in, e.T)
	}
	b.needCap(sp.Capability)
	if sp.Extension != "" && b.version < sp.CoreSince {
		b.needExt(sp.Extension)
	}
	return s.convert(s.op(code, bt), ir.BoolT, e.T)
}

// waveOperand lowers argument i (> 0) of a wave/quad operation: lane indices are
// unsigned 32-bit (SPIR-V requires an unsigned Id/Index), and a quad lane must be
// a constant before SPIR-V 1.5.
func (s *fn) waveOperand(e *ir.Intrinsic, in *intrinsics.Info, i int) uint32 {
	b := s.b
	a := e.Args[i]
	lane := i < len(in.Params) && in.Params[i].Scalar32
	if !lane {
		return s.expr(a)
	}
	if c, ok := constIndex(a); ok {
		return b.u32(uint32(c))
	}
	if in.SPIRV.Capability == intrinsics.CapGroupNonUniformQuad && b.version < 0x00010500 {
		b.errorf(e.Pos, diag.ErrSpvQuadLaneConst, "%s: the lane index must be a constant before SPIR-V 1.5 (Vulkan 1.1); use a literal or target Vulkan 1.2", in.Name)
	}
	return s.convert(s.expr(a), a.Type(), ir.U32)
}

// meshControl lowers DispatchMesh and SetMeshOutputCounts from their rows: the
// row's barrier first when it has one (DispatchMesh: every thread's payload
// writes are visible before the payload is sent), then the instruction on the
// 32-bit operands and, for DispatchMesh, the payload variable. OpEmitMeshTasksEXT
// ends the block like a return: the rest of the block is unreachable and dropped.
func (s *fn) meshControl(e *ir.Intrinsic, in *intrinsics.Info) uint32 {
	b := s.b
	sp := &in.SPIRV
	b.needCap(sp.Capability)
	b.needExt(sp.Extension)
	var operands []uint32
	var payload uint32
	for i, a := range e.Args {
		if in.Params[i].Payload {
			g := ir.RootGlobal(a)
			v := b.global(g)
			if v == nil || v.sc != scTaskPayload {
				b.errorf(e.Pos, diag.ErrSpvShape, "%s: the payload is not a task-payload variable", in.Name)
				return 0
			}
			payload = v.id
			continue
		}
		operands = append(operands, s.convert(s.expr(a), a.Type(), ir.U32))
	}
	if sp.ExecScope > 0 {
		s.barrier(in)
	}
	if payload != 0 {
		s.term(sp.Op[0], append(operands, payload)...)
		return 0
	}
	s.do(sp.Op[0], operands...)
	return 0
}

func (s *fn) barrier(in *intrinsics.Info) uint32 {
	b := s.b
	sp := &in.SPIRV
	mem, sem := b.u32(uint32(sp.MemScope)), b.u32(sp.Semantics)
	if sp.ExecScope >= 0 {
		s.do(opControlBarrier, b.u32(uint32(sp.ExecScope)), mem, sem)
	} else {
		s.do(opMemoryBarrier, mem, sem)
	}
	return 0
}

// atomic: OpAtomic* on the destination pointer, Device scope (Workgroup for
// groupshared), semantics None; the result is the original value.
func (s *fn) atomic(e *ir.Intrinsic, in *intrinsics.Info) uint32 {
	b := s.b
	if len(e.Args) < 2 {
		return s.noLowering(e, in, e.T)
	}
	dest := e.Args[0]
	dt := dest.Type()
	sc, ok := dt.(ir.Scalar)
	if !ok || (sc.Kind != ir.Sint && sc.Kind != ir.Uint) {
		return s.noLowering(e, in, dt)
	}
	code := in.SPIRV.Op[sc.Kind]
	if code == 0 {
		return s.noLowering(e, in, dt)
	}
	if sc.Bits == 64 {
		b.needCap(capInt64Atomics)
	}
	ptr, _, ok := s.place(dest)
	if !ok {
		return s.undef(e.T)
	}
	scope := uint32(scopeDevice)
	if g := ir.RootGlobal(dest); g != nil && g.Space == ir.SpaceWorkgroup {
		scope = scopeWorkgroup
	}
	rt := b.typeID(dt)
	none := b.u32(0)
	val := s.convert(s.expr(e.Args[1]), e.Args[1].Type(), dt)
	var r uint32
	if len(e.Args) >= 3 {
		// CompareExchange: (Ptr, Scope, Equal, Unequal, Value, Comparator); IR args are [dest, compare, value].
		v := s.convert(s.expr(e.Args[2]), e.Args[2].Type(), dt)
		r = s.op(code, rt, ptr, b.u32(scope), none, none, v, val)
	} else {
		r = s.op(code, rt, ptr, b.u32(scope), none, val)
	}
	if _, void := e.T.(ir.Void); void || e.T == nil {
		return r
	}
	return s.convert(r, dt, e.T)
}

// GLSL.std.450 instructions whose operand shape differs from "n operands of the
// result type" (properties of the extended instruction set, not of intrinsics).
const (
	glslFClamp         = 43
	glslPackHalf2x16   = 58
	glslUnpackHalf2x16 = 62
	glslLength         = 66
)

func (s *fn) math(e *ir.Intrinsic, in *intrinsics.Info) uint32 {
	b := s.b
	sp := &in.SPIRV
	if e.Op == intrinsics.Mul {
		return s.mul(e, in)
	}
	if len(e.Args) == 0 {
		return s.noLowering(e, in, e.T)
	}
	sc, at := argKind(e)
	k := sc.Kind & 3
	args := make([]uint32, len(e.Args))
	for i, a := range e.Args {
		args[i] = s.expr(a)
		if i > 0 && b.typeID(a.Type()) != b.typeID(at) {
			args[i] = s.convert(args[i], a.Type(), at)
		}
	}
	switch {
	case in.Result == intrinsics.RBool && sp.Op[ir.Bool] != 0:
		// any/all reduce a bool vector; numbers are compared with zero first.
		v := s.toBool(args[0], at)
		if _, vec := at.(ir.Vector); !vec {
			return v
		}
		return s.op(sp.Op[ir.Bool], b.typeID(ir.BoolT), v)
	case sp.Ext[k] != 0:
		return s.extInst(e, in, uint32(sp.Ext[k]), at, args)
	case sp.Op[k] != 0:
		code := sp.Op[k]
		rt := b.typeID(e.T)
		if code == opBitcast && rt == b.typeID(at) {
			return args[0]
		}
		if _, scalar := at.(ir.Scalar); scalar && code == opDot {
			return s.op(opFMul, rt, args...) // OpDot takes vectors; a scalar dot is a product
		}
		return s.op(code, rt, args...)
	case sp.Op[ir.Float] == opDot && len(args) == 2:
		// integer dot: sum of products.
		rt := b.scalarType(sc)
		prod := s.op(opIMul, b.typeID(at), args[0], args[1])
		n := ir.Components(at)
		if n == 1 {
			return s.convert(prod, sc, e.T)
		}
		sum := s.op(opCompositeExtract, rt, prod, 0)
		for i := 1; i < n; i++ {
			sum = s.op(opIAdd, rt, sum, s.op(opCompositeExtract, rt, prod, uint32(i)))
		}
		return s.convert(sum, sc, e.T)
	case sc.Kind == ir.Uint && sp.Ext[ir.Sint] != 0 && len(args) == 1 && ir.Equal(at, e.T):
		// abs of an unsigned value is the value (GLSL has no UAbs).
		return args[0]
	case sc.Kind != ir.Float && sp.Ext[ir.Float] != 0 && len(args) == 3 && sp.Op == [4]uint16{}:
		// integer mad: multiply then add (Fma is float only).
		t := b.typeID(at)
		return s.op(opIAdd, t, s.op(opIMul, t, args[0], args[1]), args[2])
	}
	return s.noLowering(e, in, at)
}

// extInst emits an OpExtInst of GLSL.std.450. The instruction computes in the
// operand type; the result is then converted to the IR result type when the two
// differ (sign(float) -> int, firstbithigh(int) -> uint).
func (s *fn) extInst(e *ir.Intrinsic, in *intrinsics.Info, num uint32, at ir.Type, args []uint32) uint32 {
	b := s.b
	glsl := b.glslID()
	sc, _ := ir.ScalarOf(at)
	switch num {
	case glslPackHalf2x16, glslUnpackHalf2x16:
		return s.halfPack(e, num, at, args[0])
	case glslFClamp:
		// A one-operand clamp is saturate: the bounds are 0 and 1.
		if len(args) == 1 {
			args = append(args, s.constSplat(at, 0), s.constSplat(at, ir.ConstFloat(sc, 1).Bits))
		}
	}
	ct := at
	if ir.Components(e.T) != ir.Components(at) {
		ct = e.T // length, distance: scalar results
	}
	ops := append([]uint32{glsl, num}, args...)
	r := s.op(opExtInst, b.typeID(ct), ops...)
	if b.typeID(ct) != b.typeID(e.T) {
		return s.convert(r, ct, e.T)
	}
	return r
}

// halfPack lowers f32tof16 (PackHalf2x16 of (x, 0)) and f16tof32
// (UnpackHalf2x16(x).x), component by component.
func (s *fn) halfPack(e *ir.Intrinsic, num uint32, at ir.Type, x uint32) uint32 {
	b := s.b
	n := ir.Components(at)
	sc, _ := ir.ScalarOf(at)
	glsl := b.glslID()
	parts := make([]uint32, n)
	for i := range parts {
		c := x
		if n > 1 {
			c = s.op(opCompositeExtract, b.scalarType(sc), x, uint32(i))
		}
		if num == glslPackHalf2x16 {
			c = s.convert(c, sc, ir.F32)
			v2 := s.op(opCompositeConstruct, b.vectorType(ir.F32, 2), c, b.constant(ir.F32, 0))
			parts[i] = s.op(opExtInst, b.u32Type(), glsl, num, v2)
		} else {
			c = s.convert(c, sc, ir.U32)
			v2 := s.op(opExtInst, b.vectorType(ir.F32, 2), glsl, num, c)
			parts[i] = s.op(opCompositeExtract, b.scalarType(ir.F32), v2, 0)
		}
	}
	rs := ir.U32
	if num == glslUnpackHalf2x16 {
		rs = ir.F32
	}
	r := parts[0]
	if n > 1 {
		r = s.op(opCompositeConstruct, b.vectorType(rs, n), parts...)
	}
	return s.convert(r, ir.VecOf(rs, n), e.T)
}

// mul lowers HLSL mul with DXC's matrix convention (HLSL rows are SPIR-V
// columns): mul(v, M) = M * v, mul(M, v) = v * M, mul(A, B) = B * A.
func (s *fn) mul(e *ir.Intrinsic, in *intrinsics.Info) uint32 {
	b := s.b
	if len(e.Args) != 2 {
		return s.noLowering(e, in, e.T)
	}
	xt, yt := e.Args[0].Type(), e.Args[1].Type()
	x, y := s.expr(e.Args[0]), s.expr(e.Args[1])
	rt := b.typeID(e.T)
	xm, xIsM := xt.(ir.Matrix)
	ym, yIsM := yt.(ir.Matrix)
	_, xIsS := xt.(ir.Scalar)
	_, yIsS := yt.(ir.Scalar)
	xs, _ := ir.ScalarOf(xt)
	float := xs.Kind == ir.Float
	switch {
	case xIsM || yIsM:
		if (xIsM && xm.Elem.Kind != ir.Float) || (yIsM && ym.Elem.Kind != ir.Float) {
			b.errorf(e.Pos, diag.ErrSpvIntMatrix, "mul of integer matrices cannot be expressed in SPIR-V")
			return s.undef(e.T)
		}
		switch {
		case xIsM && yIsM:
			return s.op(opMatrixTimesMatrix, rt, y, x)
		case xIsM && yIsS:
			return s.op(opMatrixTimesScalar, rt, x, y)
		case yIsM && xIsS:
			return s.op(opMatrixTimesScalar, rt, y, x)
		case yIsM:
			return s.op(opMatrixTimesVector, rt, y, x)
		default:
			return s.op(opVectorTimesMatrix, rt, y, x)
		}
	case xIsS && yIsS:
		if float {
			return s.op(opFMul, rt, x, y)
		}
		return s.op(opIMul, rt, x, y)
	case xIsS || yIsS:
		vec, scal, vt := y, x, yt
		if yIsS {
			vec, scal, vt = x, y, xt
		}
		if float {
			return s.op(opVectorTimesScalar, rt, vec, scal)
		}
		return s.op(opIMul, rt, vec, s.splat(vt, scal))
	}
	// vector * vector is a dot product.
	if float {
		return s.op(opDot, rt, x, y)
	}
	prod := s.op(opIMul, b.typeID(xt), x, y)
	sum := s.op(opCompositeExtract, rt, prod, 0)
	for i := 1; i < ir.Components(xt); i++ {
		sum = s.op(opIAdd, rt, sum, s.op(opCompositeExtract, rt, prod, uint32(i)))
	}
	return sum
}

// handle loads a texture or sampler handle from its UniformConstant variable.
func (s *fn) handle(a ir.Expr) (uint32, ir.Type) {
	ptr, _, ok := s.place(a)
	if !ok {
		return 0, nil
	}
	t := a.Type()
	return s.op(opLoad, s.b.typeID(t), ptr), t
}

// texture lowers the Texture2D/RWTexture2D methods (argument conventions in the package comment).
func (s *fn) texture(e *ir.Intrinsic, in *intrinsics.Info) uint32 {
	b := s.b
	if len(e.Args) == 0 {
		return s.noLowering(e, in, e.T)
	}
	img, it := s.handle(e.Args[0])
	tex, ok := it.(ir.Texture2D)
	if img == 0 || !ok {
		b.errorf(e.Pos, diag.ErrSpvShape, "%s: the first argument is not a texture", in.Name)
		return s.undef(e.T)
	}
	elem := tex.Elem
	if elem.Bits != 32 || elem.Kind == ir.Bool {
		elem = ir.Scalar{Kind: ir.Float, Bits: 32}
	}
	code := in.SPIRV.Op[elem.Kind&3]
	if code == 0 {
		return s.noLowering(e, in, it)
	}
	v4 := b.vectorType(elem, 4)
	finish := func(r uint32) uint32 { return s.narrow(r, ir.Vector{Elem: elem, N: 4}, e.T) }
	switch e.Op {
	case intrinsics.TextureSample, intrinsics.TextureSampleLevel:
		if len(e.Args) < 3 || tex.Storage {
			return s.noLowering(e, in, it)
		}
		smp, _ := s.handle(e.Args[1])
		si := s.op(opSampledImage, b.lookupType(opTypeSampledImage, b.typeID(it), 0, 0, 0, b.typeID(it)), img, smp)
		uv := s.expr(e.Args[2])
		if e.Op == intrinsics.TextureSample {
			return finish(s.op(code, v4, si, uv))
		}
		lod := b.constant(ir.F32, ir.ConstFloat(ir.F32, 0).Bits)
		if len(e.Args) > 3 {
			lod = s.convert(s.expr(e.Args[3]), e.Args[3].Type(), ir.F32)
		}
		return finish(s.op(code, v4, si, uv, 2 /*Lod*/, lod))
	case intrinsics.TextureLoad:
		if len(e.Args) < 2 {
			return s.noLowering(e, in, it)
		}
		ct := e.Args[1].Type()
		coord := s.expr(e.Args[1])
		cs, _ := ir.ScalarOf(ct)
		if tex.Storage {
			b.needCap(capStorageImageReadNoFmt)
			return finish(s.op(opImageRead, v4, img, coord))
		}
		lod := b.constant(ir.I32, 0)
		if v, ok := ct.(ir.Vector); ok && v.N == 3 {
			// Texture2D.Load(int3(x, y, mip))
			lod = s.op(opCompositeExtract, b.scalarType(cs), coord, 2)
			coord = s.op(opVectorShuffle, b.vectorType(cs, 2), coord, coord, 0, 1)
		}
		return finish(s.op(code, v4, img, coord, 2 /*Lod*/, lod))
	case intrinsics.TextureStore:
		if len(e.Args) < 3 || !tex.Storage {
			return s.noLowering(e, in, it)
		}
		b.needCap(capStorageImageWriteNoFmt)
		coord := s.expr(e.Args[1])
		val := s.widen(s.expr(e.Args[2]), e.Args[2].Type(), elem)
		s.do(code, img, coord, val)
		return 0
	case intrinsics.TextureGetDimensions:
		b.needCap(capImageQuery)
		u2 := b.vectorType(ir.U32, 2)
		var size uint32
		var outs []ir.Expr
		if tex.Storage {
			size = s.op(opImageQuerySize, u2, img)
			outs = e.Args[1:]
		} else {
			lod := b.u32(0)
			outs = e.Args[1:]
			if len(outs) > 0 && !ir.IsPlace(outs[0]) {
				lod = s.convert(s.expr(outs[0]), outs[0].Type(), ir.U32)
				outs = outs[1:]
			}
			size = s.op(code, u2, img, lod)
		}
		if _, void := e.T.(ir.Void); !void {
			return s.convert(size, ir.Vector{Elem: ir.U32, N: 2}, e.T)
		}
		for i, o := range outs {
			var v uint32
			switch {
			case i < 2:
				v = s.op(opCompositeExtract, b.u32Type(), size, uint32(i))
			case !tex.Storage:
				v = s.op(opImageQueryLevels, b.u32Type(), img)
			default:
				continue
			}
			if ptr, sc, ok := s.place(o); ok {
				s.storeTo(ptr, sc, o.Type(), v, ir.U32)
			}
		}
		return 0
	}
	return s.noLowering(e, in, it)
}

// narrow takes the leading components of a 4-vector result for textures
// declared with fewer components, then converts the scalar kind if needed.
func (s *fn) narrow(r uint32, from ir.Vector, to ir.Type) uint32 {
	b := s.b
	n := ir.Components(to)
	ts, _ := ir.ScalarOf(to)
	if n == 0 {
		return r
	}
	var t ir.Type = from
	switch {
	case n == 1:
		r = s.op(opCompositeExtract, b.scalarType(from.Elem), r, 0)
		t = from.Elem
	case n < 4:
		ops := []uint32{r, r}
		for i := 0; i < n; i++ {
			ops = append(ops, uint32(i))
		}
		r = s.op(opVectorShuffle, b.vectorType(from.Elem, n), ops...)
		t = ir.Vector{Elem: from.Elem, N: n}
	}
	if ts != from.Elem {
		return s.convert(r, t, to)
	}
	return r
}

// widen pads a texel value to the 4 components OpImageWrite expects.
func (s *fn) widen(v uint32, t ir.Type, elem ir.Scalar) uint32 {
	b := s.b
	n := ir.Components(t)
	ts, _ := ir.ScalarOf(t)
	if ts != elem {
		v = s.convert(v, t, ir.VecOf(elem, n))
	}
	if n >= 4 {
		return v
	}
	parts := make([]uint32, 0, 4)
	if n == 1 {
		parts = append(parts, v)
	} else {
		for i := 0; i < n; i++ {
			parts = append(parts, s.op(opCompositeExtract, b.scalarType(elem), v, uint32(i)))
		}
	}
	for len(parts) < 4 {
		parts = append(parts, b.constant(elem, 0))
	}
	return s.op(opCompositeConstruct, b.vectorType(elem, 4), parts...)
}

// bufferLength lowers Buffer.GetDimensions: OpArrayLength of the runtime array
// (the element count; sema scales it for byte-address buffers).
func (s *fn) bufferLength(e *ir.Intrinsic, in *intrinsics.Info) uint32 {
	b := s.b
	if len(e.Args) == 0 {
		return s.noLowering(e, in, e.T)
	}
	r, ok := e.Args[0].(*ir.GlobalRef)
	var v *gvar
	if ok {
		v = b.global(r.G)
	}
	if v == nil || v.id == 0 {
		b.errorf(e.Pos, diag.ErrSpvShape, "%s: the argument is not a buffer", in.Name)
		return s.undef(e.T)
	}
	member := uint32(0)
	if !v.wrapped {
		st, isStruct := r.G.Type.(*ir.Struct)
		if !isStruct || len(st.Fields) == 0 {
			return s.noLowering(e, in, r.G.Type)
		}
		member = uint32(len(st.Fields) - 1)
	}
	code := in.SPIRV.Op[ir.Uint]
	n := s.op(code, b.u32Type(), v.id, member)
	if _, void := e.T.(ir.Void); void {
		if len(e.Args) > 1 {
			if ptr, sc, ok := s.place(e.Args[1]); ok {
				s.storeTo(ptr, sc, e.Args[1].Type(), n, ir.U32)
			}
		}
		return 0
	}
	return s.convert(n, ir.U32, e.T)
}
