package webgpu

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/oliverbestmann/webgpu/wgpu"
)

// param is one entry-point parameter as written in WGSL.
type param struct {
	name     string
	typ      string // "vec4<f32>", "u32"
	location int    // -1 for builtins
	flat     bool
}

var fnHead = regexp.MustCompile(`\bfn\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// entryParams reads the parameter list of fn entry from WGSL source. It knows
// only the shape waverig's back end emits (attributes, name, colon, type,
// comma-separated; no struct-typed IO parameters) — enough to build the other
// half of a render pipeline, not a WGSL parser.
func entryParams(src, entry string) ([]param, error) {
	var body string
	for _, m := range fnHead.FindAllStringSubmatchIndex(src, -1) {
		if src[m[2]:m[3]] != entry {
			continue
		}
		depth, start := 1, m[1]
		for i := start; i < len(src); i++ {
			switch src[i] {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 {
				body = src[start:i]
				break
			}
		}
		break
	}
	if body == "" && !strings.Contains(src, "fn "+entry) {
		return nil, fmt.Errorf("webgpu: entry point %q not found in the source", entry)
	}
	var out []param
	for _, part := range splitTop(body) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		colon := strings.LastIndex(part, ":")
		if colon < 0 {
			return nil, fmt.Errorf("webgpu: cannot read parameter %q", part)
		}
		head, typ := part[:colon], strings.TrimSpace(part[colon+1:])
		fields := strings.Fields(head)
		p := param{name: fields[len(fields)-1], typ: typ, location: -1}
		if i := strings.Index(head, "@location("); i >= 0 {
			j := strings.IndexByte(head[i:], ')')
			n, err := strconv.Atoi(strings.TrimSpace(head[i+len("@location(") : i+j]))
			if err != nil {
				return nil, fmt.Errorf("webgpu: bad location in %q", part)
			}
			p.location = n
		}
		p.flat = strings.Contains(head, "@interpolate(flat")
		out = append(out, p)
	}
	return out, nil
}

// splitTop splits on commas outside <> and ().
func splitTop(s string) []string {
	var out []string
	depth, last := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[last:i])
				last = i + 1
			}
		}
	}
	return append(out, s[last:])
}

// feederVertexShader writes a vertex shader whose outputs are exactly the
// @location inputs of a fragment entry (same types, flat where the fragment
// says flat), so the inter-stage interface validates.
func feederVertexShader(params []param) string {
	var b strings.Builder
	if usesF16(params) {
		b.WriteString("enable f16;\n")
	}
	b.WriteString("struct FeederOut {\n  @builtin(position) pos: vec4<f32>,\n")
	for _, p := range params {
		if p.location < 0 {
			continue
		}
		interp := ""
		if p.flat {
			interp = " @interpolate(flat)"
		}
		fmt.Fprintf(&b, "  @location(%d)%s v%d: %s,\n", p.location, interp, p.location, p.typ)
	}
	b.WriteString("}\n@vertex fn main(@builtin(vertex_index) i: u32) -> FeederOut {\n  var o: FeederOut;\n")
	b.WriteString("  o.pos = vec4<f32>(f32(i & 1u), f32(i >> 1u), 0.0, 1.0);\n  return o;\n}\n")
	return b.String()
}

func usesF16(params []param) bool {
	for _, p := range params {
		if strings.Contains(p.typ, "f16") {
			return true
		}
	}
	return false
}

// vertexFormat maps a WGSL vertex input type to a vertex buffer format and its size.
func vertexFormat(typ string) (wgpu.VertexFormat, uint64, bool) {
	formats := map[string]wgpu.VertexFormat{
		"f32": wgpu.VertexFormatFloat32, "vec2<f32>": wgpu.VertexFormatFloat32x2, "vec3<f32>": wgpu.VertexFormatFloat32x3, "vec4<f32>": wgpu.VertexFormatFloat32x4,
		"u32": wgpu.VertexFormatUint32, "vec2<u32>": wgpu.VertexFormatUint32x2, "vec3<u32>": wgpu.VertexFormatUint32x3, "vec4<u32>": wgpu.VertexFormatUint32x4,
		"i32": wgpu.VertexFormatSint32, "vec2<i32>": wgpu.VertexFormatSint32x2, "vec3<i32>": wgpu.VertexFormatSint32x3, "vec4<i32>": wgpu.VertexFormatSint32x4,
		"f16": wgpu.VertexFormatFloat16, "vec2<f16>": wgpu.VertexFormatFloat16x2, "vec4<f16>": wgpu.VertexFormatFloat16x4,
	}
	f, ok := formats[strings.ReplaceAll(typ, " ", "")]
	if !ok {
		return 0, 0, false
	}
	return f, uint64(f.ByteSize()), true
}
