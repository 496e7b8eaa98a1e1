package spirv

import (
	"strings"
	"testing"

	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// resources builds a compute shader touching every buffer kind: cbuffer with a
// matrix (column_major and row_major), push constants, read-only and read-write
// structured buffers of structs, a byte-address buffer, groupshared, a storage
// image and a sampled texture.
func resources() *mb {
	b := newModule(ir.Compute, "CSRes")
	tid := b.input("tid", v3u, ir.BuiltinGlobalInvocationID, 0)
	lidx := b.input("lidx", ir.U32, ir.BuiltinLocalInvocationIndex, 0)
	lid := b.input("lid", v3u, ir.BuiltinLocalInvocationID, 0)
	gid := b.input("gid", v3u, ir.BuiltinWorkgroupID, 0)
	idx := x(load(gref(tid)))

	m44 := ir.Matrix{Elem: ir.F32, Rows: 4, Cols: 4, Stride: 16}
	m44r := ir.Matrix{Elem: ir.F32, Rows: 4, Cols: 4, Stride: 16, RowMajor: true}
	cbT := &ir.Struct{Name: "Params", Size: 160, Align: 16, Fields: []ir.Field{
		{Name: "world", Type: m44, Offset: 0},
		{Name: "view", Type: m44r, Offset: 64},
		{Name: "scale", Type: v4f, Offset: 128},
		{Name: "count", Type: ir.U32, Offset: 144},
	}}
	pcT := &ir.Struct{Name: "Push", Size: 8, Align: 4, Fields: []ir.Field{{Name: "base", Type: ir.U32}, {Name: "mul", Type: ir.F32, Offset: 4}}}
	itemT := &ir.Struct{Name: "Item", Size: 32, Align: 16, Fields: []ir.Field{
		{Name: "pos", Type: ir.Vector{Elem: ir.F32, N: 3}, Offset: 0},
		{Name: "id", Type: ir.U32, Offset: 12},
		{Name: "w", Type: &ir.Array{Elem: ir.F32, Len: 4, Stride: 4}, Offset: 16},
	}}
	b.m.Structs = append(b.m.Structs, cbT, pcT, itemT)
	cb := b.global(&ir.Global{Name: "params", Type: cbT, Space: ir.SpaceUniform, Resource: ir.ResConstantBuffer, Binding: &ir.Binding{Binding: 0}})
	pc := b.global(&ir.Global{Name: "pc", Type: pcT, Space: ir.SpacePushConstant, Resource: ir.ResPushConstant})
	items := b.global(&ir.Global{Name: "Items", Type: &ir.Array{Elem: itemT, Stride: 32}, Space: ir.SpaceStorageRead, Resource: ir.ResStructuredBuffer, Binding: &ir.Binding{Binding: 1}})
	outItems := b.global(&ir.Global{Name: "OutItems", Type: &ir.Array{Elem: itemT, Stride: 32}, Space: ir.SpaceStorage, Resource: ir.ResRWStructuredBuffer, Binding: &ir.Binding{Binding: 2}})
	raw := b.global(&ir.Global{Name: "Raw", Type: &ir.Array{Elem: ir.U32, Stride: 4}, Space: ir.SpaceStorage, Resource: ir.ResRWByteAddressBuffer, Binding: &ir.Binding{Binding: 3}})
	mats := b.global(&ir.Global{Name: "Mats", Type: &ir.Array{Elem: m44, Stride: 64}, Space: ir.SpaceStorage, Resource: ir.ResRWStructuredBuffer, Binding: &ir.Binding{Binding: 4, Set: 1}})
	gs := b.global(&ir.Global{Name: "shared", Type: &ir.Array{Elem: v4f, Len: 64}, Space: ir.SpaceWorkgroup})
	img := b.global(&ir.Global{Name: "img", Type: ir.Texture2D{Elem: ir.F32, Components: 4, Storage: true}, Space: ir.SpaceHandle, Resource: ir.ResRWTexture2D, Binding: &ir.Binding{Binding: 5}})
	uimg := b.global(&ir.Global{Name: "uimg", Type: ir.Texture2D{Elem: ir.U32, Components: 1, Storage: true}, Space: ir.SpaceHandle, Resource: ir.ResRWTexture2D, Binding: &ir.Binding{Binding: 6}})
	tex := b.global(&ir.Global{Name: "tex", Type: ir.Texture2D{Elem: ir.F32, Components: 4}, Space: ir.SpaceHandle, Resource: ir.ResTexture2D, Binding: &ir.Binding{Binding: 7}})
	smp := b.global(&ir.Global{Name: "smp", Type: ir.Sampler{}, Space: ir.SpaceHandle, Resource: ir.ResSampler, Binding: &ir.Binding{Binding: 8}})

	v := b.local("v", v4f)
	n := b.local("n", ir.U32)
	w, h, lv := b.local("w", ir.U32), b.local("h", ir.U32), b.local("levels", ir.U32)
	item := b.local("item", itemT)
	world := &ir.Member{Base: gref(cb), Field: 0}
	view := &ir.Member{Base: gref(cb), Field: 1}
	coord := &ir.Construct{T: ir.Vector{Elem: ir.I32, N: 2}, Args: []ir.Expr{&ir.Bitcast{X: idx, T: ir.I32}, i32c(0)}}
	b.add(
		&ir.Store{Place: lref(v), Value: load(&ir.Member{Base: gref(cb), Field: 2})},
		// mul(v, M), mul(M, v), mul(A, B), mul(M, s)
		&ir.Store{Place: lref(v), Value: intr(intrinsics.Mul, v4f, load(lref(v)), load(world))},
		&ir.Store{Place: lref(v), Value: intr(intrinsics.Mul, v4f, load(view), load(lref(v)))},
		&ir.Store{Place: &ir.Index{Base: gref(mats), Idx: idx, T: m44}, Value: intr(intrinsics.Mul, m44, load(world), load(view))},
		&ir.Store{Place: &ir.Index{Base: gref(mats), Idx: u32c(0), T: m44}, Value: intr(intrinsics.Mul, m44, load(world), f32c(2))},
		// row of a matrix in a buffer, element of a row
		&ir.Store{Place: lref(v), Value: bin(ir.Add, load(lref(v)), load(&ir.Index{Base: view, Idx: idx, T: v4f}))},
		&ir.Store{Place: lref(n), Value: bin(ir.Add, load(&ir.Member{Base: gref(pc), Field: 0}), load(&ir.Member{Base: gref(cb), Field: 3}))},
		// struct element copies between buffers and a local (layout-decorated types)
		&ir.Store{Place: lref(item), Value: load(&ir.Index{Base: gref(items), Idx: idx, T: itemT})},
		&ir.Store{Place: &ir.Member{Base: lref(item), Field: 1}, Value: load(lref(n))},
		&ir.Store{Place: &ir.Index{Base: gref(outItems), Idx: idx, T: itemT}, Value: load(lref(item))},
		&ir.Store{Place: &ir.Index{Base: &ir.Member{Base: &ir.Index{Base: gref(outItems), Idx: idx, T: itemT}, Field: 2}, Idx: u32c(1), T: ir.F32},
			Value: load(&ir.Member{Base: gref(pc), Field: 1})},
		// groupshared + barriers
		&ir.Store{Place: &ir.Index{Base: gref(gs), Idx: load(gref(lidx)), T: v4f}, Value: load(lref(v))},
		&ir.ExprStmt{X: intr(intrinsics.GroupMemoryBarrierWithGroupSync, ir.Void{})},
		&ir.Store{Place: lref(v), Value: load(&ir.Index{Base: gref(gs), Idx: bin(ir.BitXor, x(load(gref(lid))), x(load(gref(gid)))), T: v4f})},
		&ir.ExprStmt{X: intr(intrinsics.DeviceMemoryBarrier, ir.Void{})},
		// byte-address buffer: Raw[off >> 2], GetDimensions
		&ir.Store{Place: &ir.Index{Base: gref(raw), Idx: bin(ir.Shr, idx, u32c(2)), T: ir.U32}, Value: intr(intrinsics.BufferGetDimensions, ir.U32, gref(raw))},
		&ir.Store{Place: lref(n), Value: bin(ir.Add, intr(intrinsics.BufferGetDimensions, ir.U32, gref(items)), load(lref(n)))},
		// images
		&ir.Store{Place: lref(v), Value: bin(ir.Add, load(lref(v)), intr(intrinsics.TextureLoad, v4f, gref(img), coord))},
		&ir.ExprStmt{X: intr(intrinsics.TextureStore, ir.Void{}, gref(img), coord, load(lref(v)))},
		&ir.ExprStmt{X: intr(intrinsics.TextureStore, ir.Void{}, gref(uimg), coord, intr(intrinsics.TextureLoad, ir.U32, gref(uimg), coord))},
		&ir.Store{Place: lref(v), Value: bin(ir.Add, load(lref(v)), intr(intrinsics.TextureLoad, v4f, gref(tex),
			&ir.Construct{T: ir.Vector{Elem: ir.I32, N: 3}, Args: []ir.Expr{coord, i32c(0)}}))},
		&ir.Store{Place: lref(v), Value: bin(ir.Add, load(lref(v)), intr(intrinsics.TextureSampleLevel, v4f, gref(tex), gref(smp),
			&ir.Construct{T: v2f, Args: []ir.Expr{f32c(0.5), f32c(0.5)}}, f32c(0)))},
		&ir.Store{Place: lref(n), Value: x(intr(intrinsics.TextureGetDimensions, ir.Vector{Elem: ir.U32, N: 2}, gref(img)))},
		&ir.ExprStmt{X: intr(intrinsics.TextureGetDimensions, ir.Void{}, gref(tex), u32c(0), lref(w), lref(h), lref(lv))},
		&ir.Store{Place: &ir.Index{Base: gref(raw), Idx: u32c(0), T: ir.U32}, Value: bin(ir.Add, load(lref(n)), bin(ir.Add, load(lref(w)), load(lref(h))))},
		&ir.ExprStmt{X: intr(intrinsics.TextureStore, ir.Void{}, gref(img), coord, load(lref(v)))},
	)
	return b
}

func TestResources(t *testing.T) {
	mods := emitValid(t, resources(), Options{})
	for vk, mod := range mods {
		for _, c := range []uint16{capImageQuery, capStorageImageReadNoFmt, capStorageImageWriteNoFmt} {
			if !hasCap(mod, c) {
				t.Errorf("vulkan %s: capability %d missing: %v", vk, c, mod.Capabilities)
			}
		}
		if mod.SubgroupBits != 0 {
			t.Errorf("vulkan %s: no wave ops, SubgroupBits %#x", vk, mod.SubgroupBits)
		}
	}
	dis := disassemble(t, mods["1.1"])
	for _, want := range []string{
		"OpMemberDecorate %Params 0 RowMajor", // HLSL column_major
		"OpMemberDecorate %Params 1 ColMajor", // HLSL row_major
		"OpMemberDecorate %Params 0 MatrixStride 16",
		"OpDecorate %Items NonWritable",
		"OpDecorate %Params Block",
		"OpDecorate %Mats DescriptorSet 1",
		"OpArrayLength",
		"OpMatrixTimesVector", "OpVectorTimesMatrix", "OpMatrixTimesMatrix", "OpMatrixTimesScalar",
		"OpImageRead", "OpImageWrite", "OpImageFetch", "OpImageSampleExplicitLod", "OpImageQuerySize ", "OpImageQuerySizeLod", "OpImageQueryLevels",
		"OpControlBarrier %uint_2 %uint_2 %uint_264", "OpMemoryBarrier %uint_1 %uint_2120",
	} {
		if !strings.Contains(dis, want) {
			t.Errorf("disassembly lacks %q", want)
		}
	}
	// Workgroup variables carry no layout decorations.
	if strings.Contains(dis, "OpDecorate %_arr_v4float_uint_64 ArrayStride") {
		t.Error("groupshared array has an ArrayStride")
	}
}

// TestPixelSample: Texture2D.Sample (implicit LOD) and derivatives in a pixel shader.
func TestPixelSample(t *testing.T) {
	b := newModule(ir.Pixel, "PSTex")
	uv := b.input("uv", v2f, ir.BuiltinNone, 0)
	o := b.output("color", v4f, ir.BuiltinNone, 0)
	tex := b.global(&ir.Global{Name: "tex", Type: ir.Texture2D{Elem: ir.F32, Components: 2}, Space: ir.SpaceHandle, Resource: ir.ResTexture2D, Binding: &ir.Binding{Binding: 0}})
	smp := b.global(&ir.Global{Name: "smp", Type: ir.Sampler{}, Space: ir.SpaceHandle, Resource: ir.ResSampler, Binding: &ir.Binding{Binding: 1}})
	s := intr(intrinsics.TextureSample, v2f, gref(tex), gref(smp), load(gref(uv)))
	b.add(&ir.Store{Place: gref(o), Value: &ir.Construct{T: v4f, Args: []ir.Expr{s, intr(intrinsics.Ddx, v2f, load(gref(uv)))}}})
	for vk, mod := range emitValid(t, b, Options{}) {
		if got := capNames(mod.Capabilities); got != "Shader" {
			t.Errorf("vulkan %s: ddx and Sample need only Shader, got %s", vk, got)
		}
	}
}

// TestSixteenBitStorage: half values in a storage buffer, a uniform block, push
// constants and stage IO declare the matching 16-bit storage capabilities.
func TestSixteenBitStorage(t *testing.T) {
	b := newModule(ir.Pixel, "main")
	h4 := ir.Vector{Elem: ir.F16, N: 4}
	buf := b.rwBuffer("Halves", h4, 0)
	cbT := &ir.Struct{Name: "CB", Size: 8, Align: 8, Fields: []ir.Field{{Name: "h", Type: h4}}}
	cb := b.global(&ir.Global{Name: "cb", Type: cbT, Space: ir.SpaceUniform, Binding: &ir.Binding{Binding: 1}})
	pcT := &ir.Struct{Name: "PC", Size: 8, Align: 8, Fields: []ir.Field{{Name: "h", Type: h4}}}
	pc := b.global(&ir.Global{Name: "pc", Type: pcT, Space: ir.SpacePushConstant})
	in := b.input("hin", h4, ir.BuiltinNone, 0)
	o := b.output("hout", h4, ir.BuiltinNone, 0)
	sum := bin(ir.Add, load(&ir.Member{Base: gref(cb), Field: 0}), load(&ir.Member{Base: gref(pc), Field: 0}))
	b.add(
		&ir.Store{Place: elem(buf, u32c(0)), Value: bin(ir.Add, sum, load(gref(in)))},
		&ir.Store{Place: gref(o), Value: load(elem(buf, u32c(1)))},
	)
	for vk, mod := range emitValid(t, b, Options{}) {
		for _, c := range []uint16{capFloat16, capStorageBuffer16, capUniformStorage16, capPushConstant16, capInputOutput16} {
			if !hasCap(mod, c) {
				t.Errorf("vulkan %s: capability %d missing from %v", vk, c, mod.Capabilities)
			}
		}
	}
}
