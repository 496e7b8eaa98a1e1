package kernels

import (
	"fmt"
	"strings"

	"waverig/compiler/intrinsics"
)

// emitTriangleVS writes the vertex shader of a pixel kernel: the scene's triangle from
// SV_VertexID in clip space as D3D and WebGPU define it (y up: pixel row p.y is at
// 1 - 2·p.y/H; the Vulkan runner flips its viewport to match), so both APIs draw the
// scene the same way up; SV_InstanceID passed flat as the replica.
// extra, when not "", is one more output (TEXCOORD1 and up are free), set from p.
func emitTriangleVS(sb *strings.Builder, entry, outStruct string, sc Scene, fields []string, sets []string) {
	fmt.Fprintf(sb, "struct %s\n{\n    float4 pos : SV_Position;\n", outStruct)
	for _, f := range fields {
		fmt.Fprintf(sb, "    %s;\n", f)
	}
	sb.WriteString("};\n\n")
	fmt.Fprintf(sb, "%s %s(uint vid : SV_VertexID, uint iid : SV_InstanceID)\n{\n    %s o;\n", outStruct, entry, outStruct)
	v := sc.Tri
	fmt.Fprintf(sb, "    float2 p = float2(%s, %s);\n", hlslFloat(v[2][0]), hlslFloat(v[2][1]))
	fmt.Fprintf(sb, "    if (vid == 0u) {\n        p = float2(%s, %s);\n    } else if (vid == 1u) {\n        p = float2(%s, %s);\n    }\n",
		hlslFloat(v[0][0]), hlslFloat(v[0][1]), hlslFloat(v[1][0]), hlslFloat(v[1][1]))
	fmt.Fprintf(sb, "    o.pos = float4(p.x * 2.0f / %s - 1.0f, 1.0f - p.y * 2.0f / %s, 0.0f, 1.0f);\n",
		hlslFloat(float64(sc.Width)), hlslFloat(float64(sc.Height)))
	for _, s := range sets {
		fmt.Fprintf(sb, "    %s;\n", s)
	}
	sb.WriteString("    return o;\n}\n\n")
}

// pixelPrologue declares the pixel's position, record index (flat), padded-grid index
// (pid), its input block (t) and record (b), and the wave layout.
func pixelPrologue(sb *strings.Builder, sc Scene) {
	pw, ph := sc.Padded()
	sb.WriteString("    uint x = (uint)pos.x;\n    uint y = (uint)pos.y;\n")
	fmt.Fprintf(sb, "    uint flat = rep * %du + y * %du + x;\n", sc.Width*sc.Height, sc.Width)
	fmt.Fprintf(sb, "    uint pid = rep * %du + y * %du + x;\n", pw*ph, pw)
	fmt.Fprintf(sb, "    uint t = pid * %du;\n    uint b = flat * %du;\n", tWords, recWords)
	sb.WriteString(`    // Layout, taken before any divergence. The key is a padded-grid index: a helper
    // lane (if helpers take part) has one too, and no two positions share it. A
    // position can be in two waves (a helper in one, covered in the other, when the
    // rasterizer splits a triangle), so the key alone may name two waves whose first
    // lane is a helper at one position: a sum over the wave of index times lane tells
    // them apart (two waves with the same quads in other lanes sum differently).
    uint lane = WaveGetLaneIndex();
    uint key = WaveReadLaneFirst(pid);
    uint key2 = WaveActiveSum(pid * (lane + 1u));
    uint cnt = WaveGetLaneCount();
`)
}

// pixelHLSL generates a pixel kernel: the triangle vertex shader and a pixel shader
// that runs the op (pattern and type variant from its input block) and writes its
// record and colour. Helper lanes run everything but their writes are discarded.
// With helpers, the pixel entry carries [WaveOpsIncludeHelperLanes] (the program
// is otherwise the same, so the plain and the attributed kernels differ only in
// which lanes the wave operations must count).
func pixelHLSL(name string, op intrinsics.Op, sc Scene, types []Type, helpers bool) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "// waverig generated pixel kernel %s: %s on a %dx%d framebuffer.\n", name, op, sc.Width, sc.Height)
	fmt.Fprintf(&sb, "// Input block of %d uints per padded-grid position: ctl, coin, in[8].\n", tWords)
	fmt.Fprintf(&sb, "// Record of %d uints per covered pixel: flat, key, lane, count, branch, lane arg, pos, draw, helper, -, out[8].\n", recWords)
	sb.WriteString("StructuredBuffer<uint> inp : register(t0);\nRWStructuredBuffer<uint> rec : register(u0);\n\n")
	emitTriangleVS(&sb, vsEntry, "VSOut", sc, []string{"nointerpolation uint rep : TEXCOORD0"}, []string{"o.rep = iid"})
	if helpers {
		sb.WriteString("// Helper lanes take part in every wave operation, and every quad is full.\n[WaveOpsIncludeHelperLanes]\n")
	}
	fmt.Fprintf(&sb, "uint4 %s(float4 pos : SV_Position, nointerpolation uint rep : TEXCOORD0) : SV_Target\n{\n", psEntry)
	pixelPrologue(&sb, sc)
	fmt.Fprintf(&sb, "    uint ctl = inp[t + %du];\n    uint coin = inp[t + %du];\n", tCtl, tCoin)
	emitPattern(&sb, "lane == cnt - 1u", true)
	pw, _ := sc.Padded()
	emitPixelCoverage(&sb, op, pw)
	emitVariants(&sb, op, types, func(i int) string { return fmt.Sprintf("inp[t + %du]", tIn+i) }, false)
	emitPixelStores(&sb, "0u", false)
	sb.WriteString("    return uint4(flat, rep, o0, o1);\n}\n")
	return sb.String()
}

// emitPixelStores writes a pixel record's header (helper is the helper word's
// expression) and, with outs, o0..o7 to its output words (an operation kernel
// stored those inside its arms: emitVariants).
func emitPixelStores(sb *strings.Builder, helper string, outs bool) {
	for _, l := range []string{
		"rec[b + 0u] = flat;", "rec[b + 1u] = key;", "rec[b + 2u] = lane;", "rec[b + 3u] = cnt;",
		"rec[b + 4u] = act;", "rec[b + 5u] = larg;",
		fmt.Sprintf("rec[b + %du] = x | (y << 16);", pPos),
		fmt.Sprintf("rec[b + %du] = rep;", pRep),
		fmt.Sprintf("rec[b + %du] = %s;", pHelper, helper),
		fmt.Sprintf("rec[b + %du] = key2;", pKey2),
	} {
		sb.WriteString("    " + l + "\n")
	}
	if outs {
		for k := 0; k < 8; k++ {
			fmt.Fprintf(sb, "    rec[b + %du] = o%d;\n", wOut+k, k)
		}
	}
}

// vertexHLSL generates a vertex kernel of n records: the compute kernel's body in a
// vertex shader, one replica per instance, gi = SV_VertexID, after the roster walk
// (emitVertexRoster). It outputs a constant position (the draw uses rasterizer
// discard).
func vertexHLSL(name string, op intrinsics.Op, vc, n int, types []Type) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "// waverig generated vertex kernel %s: %s, %d vertices per draw.\n", name, op, vc)
	fmt.Fprintf(&sb, "// Record of %d uints per vertex: flat, key, lane, count, branch, lane arg, ctl, coin, in[8], out[8].\n", recWords)
	fmt.Fprintf(&sb, "// Roster of %d slots per record (the waves and lanes that ran it), then a flag word.\n", rosterSlots)
	sb.WriteString("RWStructuredBuffer<uint> rec : register(u0);\nRWStructuredBuffer<uint> ros : register(u1);\n\n")
	fmt.Fprintf(&sb, "float4 %s(uint vid : SV_VertexID, uint iid : SV_InstanceID) : SV_Position\n{\n", vsEntry)
	sb.WriteString("    uint gi = vid;\n")
	fmt.Fprintf(&sb, "    uint flat = iid * %du + vid;\n", vc)
	emitVertexRoster(&sb, n)
	emitRecordBody(&sb, op, vc, types)
	sb.WriteString("    return float4(0.0f, 0.0f, 0.0f, 1.0f);\n}\n")
	return sb.String()
}
