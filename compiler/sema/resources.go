package sema

import (
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	"waverig/compiler/syntax"
)

// Resource access lowering.
//
//   - (RW)StructuredBuffer<T> b: b[i] is the place Index{GlobalRef(b), i}.
//   - (RW)ByteAddressBuffer b (an array of u32): b.Load{,2,3,4}(off) loads elements
//     off>>2 (+1, +2, +3) and constructs the vector; Store* stores them;
//     b.Interlocked*(off, …) is the atomic on element off>>2.
//   - GetDimensions(out n): BufferGetDimensions(GlobalRef(b)) is the runtime array
//     length in elements (u32); ByteAddressBuffer sizes are that times 4,
//     StructuredBuffer's second out argument is the element stride.
//   - Texture2D t, SamplerState s: t.Sample(s, uv) = TextureSample[t, s, uv],
//     t.SampleLevel(s, uv, lod) = TextureSampleLevel[t, s, uv, lod],
//     t.Load(int3(x, y, mip)) and t[int2] = TextureLoad[t, coords vec2<i32>, level i32],
//     RWTexture2D u: u[int2] reads TextureLoad[u, coords] and writes
//     TextureStore[u, coords, value vec4], GetDimensions(out w, out h) =
//     TextureGetDimensions[t] (vec2<u32>, level 0). Texel values are always
//     4-vectors in the IR; sema swizzles to the declared component count.

func (c *checker) methodCall(e *syntax.MethodCall) operand {
	x := c.expr(e.X)
	if x.kind == opInvalid {
		return bad
	}
	if x.kind != opResource {
		c.errorf(e.NamePos, diag.ErrUnknownMethod, "%s has no methods (.%s)", typeName(x.t), e.Name)
		return bad
	}
	switch x.res.kind {
	case ir.ResByteAddressBuffer, ir.ResRWByteAddressBuffer:
		return c.byteAddressMethod(x, e)
	case ir.ResStructuredBuffer, ir.ResRWStructuredBuffer:
		switch e.Name {
		case "GetDimensions":
			return c.bufferDims(x, e, true)
		case "Load":
			if len(e.Args) != 1 {
				c.errorf(e.Pos, diag.ErrArgCount, "Load takes 1 argument, got %d", len(e.Args))
				return bad
			}
			idx := c.indexValue(e.Args[0])
			if idx == nil {
				return bad
			}
			arr := x.g.Type.(*ir.Array)
			return valueOp(c.loadAs(&ir.Index{Base: &ir.GlobalRef{G: x.g}, Idx: idx, T: arr.Elem}, x.res.elem), x.res.elem, e.Pos)
		}
	case ir.ResTexture2D, ir.ResRWTexture2D:
		return c.textureMethod(x, e)
	}
	c.errorf(e.NamePos, diag.ErrUnknownMethod, "%s %q has no method %s", x.res.kind, x.g.Name, e.Name)
	return bad
}

// byteOffsetIndex converts a byte offset to a u32 element index (off >> 2) + k.
func (c *checker) byteOffsetIndex(off ir.Expr, k int) ir.Expr {
	idx := ir.Expr(&ir.Binary{Op: ir.Shr, X: off, Y: ir.ConstUint(ir.U32, 2), T: ir.U32})
	if k > 0 {
		idx = &ir.Binary{Op: ir.Add, X: idx, Y: ir.ConstUint(ir.U32, uint64(k)), T: ir.U32}
	}
	if kk, ok := c.fold(idx); ok {
		return kk
	}
	return idx
}

func (c *checker) byteAddressMethod(x operand, e *syntax.MethodCall) operand {
	name := e.Name
	buf := &ir.GlobalRef{G: x.g}
	rw := x.res.kind == ir.ResRWByteAddressBuffer
	elemAt := func(off ir.Expr, k int) ir.Expr {
		return &ir.Index{Base: buf, Idx: c.byteOffsetIndex(off, k), T: ir.U32}
	}
	offset := func(a syntax.Expr) ir.Expr {
		v := c.exprTo(a, ir.U32)
		if v == nil {
			return nil
		}
		return c.stable(v)
	}
	width := func(base string) int {
		rest := strings.TrimPrefix(name, base)
		switch rest {
		case "":
			return 1
		case "2", "3", "4":
			return int(rest[0] - '0')
		}
		return 0
	}
	switch {
	case strings.HasPrefix(name, "Load") && width("Load") > 0:
		n := width("Load")
		if len(e.Args) != 1 {
			c.errorf(e.Pos, diag.ErrArgCount, "%s takes 1 argument (the byte offset), got %d", name, len(e.Args))
			return bad
		}
		off := offset(e.Args[0])
		if off == nil {
			return bad
		}
		if n == 1 {
			return valueOp(&ir.Load{Place: elemAt(off, 0)}, ir.U32, e.Pos)
		}
		args := make([]ir.Expr, n)
		for i := range args {
			args[i] = &ir.Load{Place: elemAt(off, i)}
		}
		t := ir.Vector{Elem: ir.U32, N: n}
		return valueOp(&ir.Construct{T: t, Args: args}, t, e.Pos)
	case strings.HasPrefix(name, "Store") && width("Store") > 0:
		n := width("Store")
		if !rw {
			c.errorf(e.NamePos, diag.ErrNotAssignable, "ByteAddressBuffer %q is read-only; declare it RWByteAddressBuffer to store", x.g.Name)
			return bad
		}
		if len(e.Args) != 2 {
			c.errorf(e.Pos, diag.ErrArgCount, "%s takes 2 arguments (byte offset, value), got %d", name, len(e.Args))
			return bad
		}
		off := offset(e.Args[0])
		v := c.exprTo(e.Args[1], ir.VecOf(ir.U32, n))
		if off == nil || v == nil {
			return bad
		}
		if n == 1 {
			c.emit(&ir.Store{Place: elemAt(off, 0), Value: v})
		} else {
			v = c.stable(v)
			for i := 0; i < n; i++ {
				c.emit(&ir.Store{Place: elemAt(off, i), Value: &ir.Swizzle{Base: v, Comps: []int{i}}})
			}
		}
		return valueOp(nil, ir.Void{}, e.Pos)
	case name == "GetDimensions":
		return c.bufferDims(x, e, false)
	case strings.HasPrefix(name, "Interlocked"):
		info, ok := intrinsics.Lookup(name)
		if !ok || info.Class != intrinsics.ClassAtomic {
			break
		}
		if !rw {
			c.errorf(e.NamePos, diag.ErrAtomicDest, "%s needs a RWByteAddressBuffer; %q is read-only", name, x.g.Name)
			return bad
		}
		minArgs, maxArgs := len(info.Params)-1, len(info.Params)
		if info.Params[len(info.Params)-1].Out {
			minArgs--
		} else {
			maxArgs--
		}
		// Params[0] (dest) is replaced by the byte offset, so counts are the same.
		if len(e.Args) < minArgs+1 || len(e.Args) > maxArgs {
			c.errorf(e.Pos, diag.ErrArgCount, "%s takes %d to %d arguments, got %d", name, minArgs+1, maxArgs, len(e.Args))
			return bad
		}
		off := offset(e.Args[0])
		ops := c.operands(e.Args[1:])
		if off == nil || ops == nil {
			return bad
		}
		x.g.Atomic = true
		return c.atomic(info, elemAt(off, 0), ir.U32, ops, e.Args[1:], e.Pos)
	}
	c.errorf(e.NamePos, diag.ErrUnknownMethod, "%s %q has no method %s", x.res.kind, x.g.Name, name)
	return bad
}

// bufferDims lowers GetDimensions on buffers.
func (c *checker) bufferDims(x operand, e *syntax.MethodCall, structured bool) operand {
	want := 1
	if structured {
		want = 2
	}
	if len(e.Args) != want {
		c.errorf(e.Pos, diag.ErrArgCount, "GetDimensions takes %d out argument%s here, got %d", want, plural(want), len(e.Args))
		return bad
	}
	ops := c.operands(e.Args)
	if ops == nil {
		return bad
	}
	for i, o := range ops {
		if !c.writable(o, e.Args[i].P(), diag.ErrOutArg, "GetDimensions' out argument") {
			return bad
		}
	}
	var n ir.Expr = &ir.Intrinsic{Op: intrinsics.BufferGetDimensions, Args: []ir.Expr{&ir.GlobalRef{G: x.g}}, T: ir.U32, Pos: e.Pos}
	if !structured {
		n = &ir.Binary{Op: ir.MulOp, X: n, Y: ir.ConstUint(ir.U32, 4), T: ir.U32}
	}
	c.store(ops[0], c.convert(valueOp(n, ir.U32, e.Pos), ops[0].t, e.Pos, true))
	if structured {
		stride := x.g.Type.(*ir.Array).Stride
		c.store(ops[1], c.convert(valueOp(ir.ConstUint(ir.U32, uint64(stride)), ir.U32, e.Pos), ops[1].t, e.Pos, true))
	}
	return valueOp(nil, ir.Void{}, e.Pos)
}

// resourceIndex is b[i] on a buffer or texture.
func (c *checker) resourceIndex(x operand, e *syntax.IndexExpr) operand {
	switch x.res.kind {
	case ir.ResStructuredBuffer, ir.ResRWStructuredBuffer:
		idx := c.indexValue(e.Index)
		if idx == nil {
			return bad
		}
		arr := x.g.Type.(*ir.Array)
		return operand{kind: opPlace, e: &ir.Index{Base: &ir.GlobalRef{G: x.g}, Idx: idx, T: arr.Elem}, t: x.res.elem,
			readOnly: x.res.kind == ir.ResStructuredBuffer, pos: e.Pos}
	case ir.ResTexture2D, ir.ResRWTexture2D:
		coords := c.texCoords(e.Index, 2)
		if coords == nil {
			return bad
		}
		return operand{kind: opTexel, g: x.g, res: x.res, coords: coords, t: x.res.elem, readOnly: x.res.kind == ir.ResTexture2D, pos: e.Pos}
	}
	c.errorf(e.Pos, diag.ErrBadIndex, "%s %q cannot be indexed; use its Load/Store methods", x.res.kind, x.g.Name)
	return bad
}

// texCoords checks integer texel coordinates with n components (as vec<i32>).
func (c *checker) texCoords(e syntax.Expr, n int) ir.Expr {
	o := c.expr(e)
	if !o.ok() {
		return nil
	}
	if s := scalarOf(o.t); shapeOf(o.t) < 0 || ir.Components(o.t) < n || (s.Kind != ir.Sint && s.Kind != ir.Uint && o.lit == litNone) {
		c.errorf(e.P(), diag.ErrBadIndex, "texel coordinates must be an int%d or uint%d, not %s", n, n, typeName(o.t))
		return nil
	}
	return c.convert(o, ir.VecOf(ir.I32, n), e.P(), true)
}

// texelLoad reads a texel and narrows the 4-vector to the declared components.
func (c *checker) texelLoad(o operand) ir.Expr {
	args := []ir.Expr{&ir.GlobalRef{G: o.g}, o.coords}
	if o.res.kind == ir.ResTexture2D {
		args = append(args, ir.ConstInt(ir.I32, 0))
	}
	return c.narrowTexel(&ir.Intrinsic{Op: intrinsics.TextureLoad, Args: args, T: ir.Vector{Elem: o.res.tex.Elem, N: 4}, Pos: o.pos}, o.res)
}

func (c *checker) narrowTexel(v ir.Expr, r *resType) ir.Expr {
	n := r.tex.Components
	if n == 4 {
		return v
	}
	return &ir.Swizzle{Base: v, Comps: []int{0, 1, 2, 3}[:n]}
}

// texelStore writes a texel of an RWTexture2D (values are widened to 4 components).
func (c *checker) texelStore(o operand, v ir.Expr) {
	el := o.res.tex.Elem
	if n := o.res.tex.Components; n < 4 {
		args := []ir.Expr{v}
		for i := n; i < 4; i++ {
			args = append(args, convertConst(ir.ConstInt(ir.I32, 0), el))
		}
		v = &ir.Construct{T: ir.Vector{Elem: el, N: 4}, Args: args}
	}
	c.emit(&ir.ExprStmt{X: &ir.Intrinsic{Op: intrinsics.TextureStore, Args: []ir.Expr{&ir.GlobalRef{G: o.g}, o.coords, v}, T: ir.Void{}, Pos: o.pos}})
}

func (c *checker) textureMethod(x operand, e *syntax.MethodCall) operand {
	tex := &ir.GlobalRef{G: x.g}
	t4 := ir.Vector{Elem: x.res.tex.Elem, N: 4}
	sampled := x.res.kind == ir.ResTexture2D
	switch e.Name {
	case "Sample", "SampleLevel":
		if !sampled {
			break
		}
		want := 2
		op := intrinsics.TextureSample
		if e.Name == "SampleLevel" {
			want, op = 3, intrinsics.TextureSampleLevel
		}
		if len(e.Args) != want {
			c.errorf(e.Pos, diag.ErrArgCount, "%s takes %d arguments, got %d", e.Name, want, len(e.Args))
			return bad
		}
		s := c.expr(e.Args[0])
		if s.kind != opResource || s.res.kind != ir.ResSampler {
			if s.kind != opInvalid {
				c.errorf(e.Args[0].P(), diag.ErrTypeMismatch, "%s needs a SamplerState as its first argument", e.Name)
			}
			return bad
		}
		uv := c.exprTo(e.Args[1], ir.Vector{Elem: ir.F32, N: 2})
		if uv == nil {
			return bad
		}
		args := []ir.Expr{tex, &ir.GlobalRef{G: s.g}, uv}
		if want == 3 {
			lod := c.exprTo(e.Args[2], ir.F32)
			if lod == nil {
				return bad
			}
			args = append(args, lod)
		}
		v := c.narrowTexel(&ir.Intrinsic{Op: op, Args: args, T: t4, Pos: e.NamePos}, x.res)
		return valueOp(v, x.res.elem, e.Pos)
	case "Load":
		if len(e.Args) != 1 {
			c.errorf(e.Pos, diag.ErrArgCount, "Load takes 1 argument, got %d", len(e.Args))
			return bad
		}
		if !sampled {
			coords := c.texCoords(e.Args[0], 2)
			if coords == nil {
				return bad
			}
			return valueOp(c.texelLoad(operand{g: x.g, res: x.res, coords: coords, pos: e.Pos}), x.res.elem, e.Pos)
		}
		xyz := c.texCoords(e.Args[0], 3)
		if xyz == nil {
			return bad
		}
		xyz = c.stable(xyz)
		args := []ir.Expr{tex, &ir.Swizzle{Base: xyz, Comps: []int{0, 1}}, &ir.Swizzle{Base: xyz, Comps: []int{2}}}
		v := c.narrowTexel(&ir.Intrinsic{Op: intrinsics.TextureLoad, Args: args, T: t4, Pos: e.Pos}, x.res)
		return valueOp(v, x.res.elem, e.Pos)
	case "GetDimensions":
		if len(e.Args) != 2 {
			c.errorf(e.Pos, diag.ErrArgCount, "GetDimensions takes 2 out arguments (width, height), got %d", len(e.Args))
			return bad
		}
		ops := c.operands(e.Args)
		if ops == nil {
			return bad
		}
		for i, o := range ops {
			if !c.writable(o, e.Args[i].P(), diag.ErrOutArg, "GetDimensions' out argument") {
				return bad
			}
		}
		dims := c.stable(&ir.Intrinsic{Op: intrinsics.TextureGetDimensions, Args: []ir.Expr{tex}, T: ir.Vector{Elem: ir.U32, N: 2}, Pos: e.Pos})
		for i, o := range ops {
			c.store(o, c.convert(valueOp(&ir.Swizzle{Base: dims, Comps: []int{i}}, ir.U32, e.Pos), o.t, e.Pos, true))
		}
		return valueOp(nil, ir.Void{}, e.Pos)
	}
	c.errorf(e.NamePos, diag.ErrUnknownMethod, "%s %q has no method %s", x.res.kind, x.g.Name, e.Name)
	return bad
}
