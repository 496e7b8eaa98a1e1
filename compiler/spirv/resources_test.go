package spirv

import (
	"strings"
	"testing"

	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
	. "waverig/compiler/ir/irtest"
)

// resources builds a compute shader touching every buffer kind: cbuffer with a
// matrix (column_major and row_major), push constants, read-only and read-write
// structured buffers of structs, a byte-address buffer, groupshared, a storage
// image and a sampled texture.
func resources() *Builder {
	b := Compute("CSRes", 64)
	tid := b.Input("tid", v3u, ir.BuiltinGlobalInvocationID, 0)
	lidx := b.Input("lidx", ir.U32, ir.BuiltinLocalInvocationIndex, 0)
	lid := b.Input("lid", v3u, ir.BuiltinLocalInvocationID, 0)
	gid := b.Input("gid", v3u, ir.BuiltinWorkgroupID, 0)
	idx := X(Load(GRef(tid)))

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
	b.M.Structs = append(b.M.Structs, cbT, pcT, itemT)
	cb := b.Global(&ir.Global{Name: "params", Type: cbT, Space: ir.SpaceUniform, Resource: ir.ResConstantBuffer, Binding: &ir.Binding{Binding: 0}})
	pc := b.Global(&ir.Global{Name: "pc", Type: pcT, Space: ir.SpacePushConstant, Resource: ir.ResPushConstant})
	items := b.Global(&ir.Global{Name: "Items", Type: &ir.Array{Elem: itemT, Stride: 32}, Space: ir.SpaceStorageRead, Resource: ir.ResStructuredBuffer, Binding: &ir.Binding{Binding: 1}})
	outItems := b.Global(&ir.Global{Name: "OutItems", Type: &ir.Array{Elem: itemT, Stride: 32}, Space: ir.SpaceStorage, Resource: ir.ResRWStructuredBuffer, Binding: &ir.Binding{Binding: 2}})
	raw := b.Global(&ir.Global{Name: "Raw", Type: &ir.Array{Elem: ir.U32, Stride: 4}, Space: ir.SpaceStorage, Resource: ir.ResRWByteAddressBuffer, Binding: &ir.Binding{Binding: 3}})
	mats := b.Global(&ir.Global{Name: "Mats", Type: &ir.Array{Elem: m44, Stride: 64}, Space: ir.SpaceStorage, Resource: ir.ResRWStructuredBuffer, Binding: &ir.Binding{Binding: 4, Set: 1}})
	gs := b.Global(&ir.Global{Name: "shared", Type: &ir.Array{Elem: v4f, Len: 64}, Space: ir.SpaceWorkgroup})
	img := b.Global(&ir.Global{Name: "img", Type: ir.Texture2D{Elem: ir.F32, Components: 4, Storage: true}, Space: ir.SpaceHandle, Resource: ir.ResRWTexture2D, Binding: &ir.Binding{Binding: 5}})
	uimg := b.Global(&ir.Global{Name: "uimg", Type: ir.Texture2D{Elem: ir.U32, Components: 1, Storage: true}, Space: ir.SpaceHandle, Resource: ir.ResRWTexture2D, Binding: &ir.Binding{Binding: 6}})
	tex := b.Global(&ir.Global{Name: "tex", Type: ir.Texture2D{Elem: ir.F32, Components: 4}, Space: ir.SpaceHandle, Resource: ir.ResTexture2D, Binding: &ir.Binding{Binding: 7}})
	smp := b.Global(&ir.Global{Name: "smp", Type: ir.Sampler{}, Space: ir.SpaceHandle, Resource: ir.ResSampler, Binding: &ir.Binding{Binding: 8}})

	v := b.Local("v", v4f)
	n := b.Local("n", ir.U32)
	w, h, lv := b.Local("w", ir.U32), b.Local("h", ir.U32), b.Local("levels", ir.U32)
	item := b.Local("item", itemT)
	world := &ir.Member{Base: GRef(cb), Field: 0}
	view := &ir.Member{Base: GRef(cb), Field: 1}
	coord := &ir.Construct{T: ir.Vector{Elem: ir.I32, N: 2}, Args: []ir.Expr{&ir.Bitcast{X: idx, T: ir.I32}, Int(0)}}
	b.Add(
		&ir.Store{Place: LRef(v), Value: Load(&ir.Member{Base: GRef(cb), Field: 2})},
		// mul(v, M), mul(M, v), mul(A, B), mul(M, s)
		&ir.Store{Place: LRef(v), Value: Intr(intrinsics.Mul, v4f, Load(LRef(v)), Load(world))},
		&ir.Store{Place: LRef(v), Value: Intr(intrinsics.Mul, v4f, Load(view), Load(LRef(v)))},
		&ir.Store{Place: &ir.Index{Base: GRef(mats), Idx: idx, T: m44}, Value: Intr(intrinsics.Mul, m44, Load(world), Load(view))},
		&ir.Store{Place: &ir.Index{Base: GRef(mats), Idx: Uint(0), T: m44}, Value: Intr(intrinsics.Mul, m44, Load(world), Float(2))},
		// row of a matrix in a buffer, element of a row
		&ir.Store{Place: LRef(v), Value: Bin(ir.Add, Load(LRef(v)), Load(&ir.Index{Base: view, Idx: idx, T: v4f}))},
		&ir.Store{Place: LRef(n), Value: Bin(ir.Add, Load(&ir.Member{Base: GRef(pc), Field: 0}), Load(&ir.Member{Base: GRef(cb), Field: 3}))},
		// struct element copies between buffers and a local (layout-decorated types)
		&ir.Store{Place: LRef(item), Value: Load(&ir.Index{Base: GRef(items), Idx: idx, T: itemT})},
		&ir.Store{Place: &ir.Member{Base: LRef(item), Field: 1}, Value: Load(LRef(n))},
		&ir.Store{Place: &ir.Index{Base: GRef(outItems), Idx: idx, T: itemT}, Value: Load(LRef(item))},
		&ir.Store{Place: &ir.Index{Base: &ir.Member{Base: &ir.Index{Base: GRef(outItems), Idx: idx, T: itemT}, Field: 2}, Idx: Uint(1), T: ir.F32},
			Value: Load(&ir.Member{Base: GRef(pc), Field: 1})},
		// groupshared + barriers
		&ir.Store{Place: &ir.Index{Base: GRef(gs), Idx: Load(GRef(lidx)), T: v4f}, Value: Load(LRef(v))},
		&ir.ExprStmt{X: Intr(intrinsics.GroupMemoryBarrierWithGroupSync, ir.Void{})},
		&ir.Store{Place: LRef(v), Value: Load(&ir.Index{Base: GRef(gs), Idx: Bin(ir.BitXor, X(Load(GRef(lid))), X(Load(GRef(gid)))), T: v4f})},
		&ir.ExprStmt{X: Intr(intrinsics.DeviceMemoryBarrier, ir.Void{})},
		// byte-address buffer: Raw[off >> 2], GetDimensions
		&ir.Store{Place: &ir.Index{Base: GRef(raw), Idx: Bin(ir.Shr, idx, Uint(2)), T: ir.U32}, Value: Intr(intrinsics.BufferGetDimensions, ir.U32, GRef(raw))},
		&ir.Store{Place: LRef(n), Value: Bin(ir.Add, Intr(intrinsics.BufferGetDimensions, ir.U32, GRef(items)), Load(LRef(n)))},
		// images
		&ir.Store{Place: LRef(v), Value: Bin(ir.Add, Load(LRef(v)), Intr(intrinsics.TextureLoad, v4f, GRef(img), coord))},
		&ir.ExprStmt{X: Intr(intrinsics.TextureStore, ir.Void{}, GRef(img), coord, Load(LRef(v)))},
		&ir.ExprStmt{X: Intr(intrinsics.TextureStore, ir.Void{}, GRef(uimg), coord, Intr(intrinsics.TextureLoad, ir.U32, GRef(uimg), coord))},
		&ir.Store{Place: LRef(v), Value: Bin(ir.Add, Load(LRef(v)), Intr(intrinsics.TextureLoad, v4f, GRef(tex),
			&ir.Construct{T: ir.Vector{Elem: ir.I32, N: 3}, Args: []ir.Expr{coord, Int(0)}}))},
		&ir.Store{Place: LRef(v), Value: Bin(ir.Add, Load(LRef(v)), Intr(intrinsics.TextureSampleLevel, v4f, GRef(tex), GRef(smp),
			&ir.Construct{T: v2f, Args: []ir.Expr{Float(0.5), Float(0.5)}}, Float(0)))},
		&ir.Store{Place: LRef(n), Value: X(Intr(intrinsics.TextureGetDimensions, ir.Vector{Elem: ir.U32, N: 2}, GRef(img)))},
		&ir.ExprStmt{X: Intr(intrinsics.TextureGetDimensions, ir.Void{}, GRef(tex), Uint(0), LRef(w), LRef(h), LRef(lv))},
		&ir.Store{Place: &ir.Index{Base: GRef(raw), Idx: Uint(0), T: ir.U32}, Value: Bin(ir.Add, Load(LRef(n)), Bin(ir.Add, Load(LRef(w)), Load(LRef(h))))},
		&ir.ExprStmt{X: Intr(intrinsics.TextureStore, ir.Void{}, GRef(img), coord, Load(LRef(v)))},
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
	b := Entry("PSTex", ir.Pixel)
	uv := b.Input("uv", v2f, ir.BuiltinNone, 0)
	o := b.Output("color", v4f, ir.BuiltinNone, 0)
	tex := b.Global(&ir.Global{Name: "tex", Type: ir.Texture2D{Elem: ir.F32, Components: 2}, Space: ir.SpaceHandle, Resource: ir.ResTexture2D, Binding: &ir.Binding{Binding: 0}})
	smp := b.Global(&ir.Global{Name: "smp", Type: ir.Sampler{}, Space: ir.SpaceHandle, Resource: ir.ResSampler, Binding: &ir.Binding{Binding: 1}})
	s := Intr(intrinsics.TextureSample, v2f, GRef(tex), GRef(smp), Load(GRef(uv)))
	b.Add(&ir.Store{Place: GRef(o), Value: &ir.Construct{T: v4f, Args: []ir.Expr{s, Intr(intrinsics.Ddx, v2f, Load(GRef(uv)))}}})
	for vk, mod := range emitValid(t, b, Options{}) {
		if got := capNames(mod.Capabilities); got != "Shader" {
			t.Errorf("vulkan %s: ddx and Sample need only Shader, got %s", vk, got)
		}
	}
}

// TestSixteenBitStorage: half values in a storage buffer, a uniform block, push
// constants and stage IO declare the matching 16-bit storage capabilities.
func TestSixteenBitStorage(t *testing.T) {
	b := Entry("main", ir.Pixel)
	h4 := ir.Vector{Elem: ir.F16, N: 4}
	buf := b.RWBuffer("Halves", h4, 0, 0)
	cbT := &ir.Struct{Name: "CB", Size: 8, Align: 8, Fields: []ir.Field{{Name: "h", Type: h4}}}
	cb := b.Global(&ir.Global{Name: "cb", Type: cbT, Space: ir.SpaceUniform, Binding: &ir.Binding{Binding: 1}})
	pcT := &ir.Struct{Name: "PC", Size: 8, Align: 8, Fields: []ir.Field{{Name: "h", Type: h4}}}
	pc := b.Global(&ir.Global{Name: "pc", Type: pcT, Space: ir.SpacePushConstant})
	in := b.Input("hin", h4, ir.BuiltinNone, 0)
	o := b.Output("hout", h4, ir.BuiltinNone, 0)
	sum := Bin(ir.Add, Load(&ir.Member{Base: GRef(cb), Field: 0}), Load(&ir.Member{Base: GRef(pc), Field: 0}))
	b.Add(
		&ir.Store{Place: Elem(buf, Uint(0)), Value: Bin(ir.Add, sum, Load(GRef(in)))},
		&ir.Store{Place: GRef(o), Value: Load(Elem(buf, Uint(1)))},
	)
	for vk, mod := range emitValid(t, b, Options{}) {
		for _, c := range []uint16{capFloat16, capStorageBuffer16, capUniformStorage16, capPushConstant16, capInputOutput16} {
			if !hasCap(mod, c) {
				t.Errorf("vulkan %s: capability %d missing from %v", vk, c, mod.Capabilities)
			}
		}
	}
}
