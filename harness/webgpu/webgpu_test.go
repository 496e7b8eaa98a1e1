package webgpu

import (
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"
)

func device(t *testing.T) *Device {
	t.Helper()
	d, err := Shared()
	if err != nil {
		if errors.Is(err, ErrNoAdapter) && os.Getenv("CI") == "" {
			t.Skipf("wgpu-native cannot start here: %v", err)
		}
		t.Fatalf("wgpu-native: %v", err)
	}
	return d
}

const subgroupCompute = `@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(subgroup_invocation_id) i: u32, @builtin(subgroup_size) n: u32) {
  o[i] = subgroupAdd(i) + quadSwapX(n);
}
`

func TestValidateCompute(t *testing.T) {
	d := device(t)
	t.Logf("adapter: %s (%s), features %v", d.Info.Device, d.Info.Description, d.Features)
	if !d.HasFeature(d.Features[0]) {
		t.Fatal("HasFeature disagrees with Features")
	}
	if err := d.Validate(subgroupCompute, "compute", "main"); err != nil {
		t.Fatalf("valid subgroup kernel rejected: %v", err)
	}
	if err := ValidateWGSL(subgroupCompute, "compute", "main"); err != nil {
		t.Fatalf("ValidateWGSL: %v", err)
	}
}

func TestValidateReportsErrors(t *testing.T) {
	d := device(t)
	for name, c := range map[string]struct{ src, stage, entry, want string }{
		"parse":       {"fn main( {", "compute", "main", "shader module"},
		"type":        {"@compute @workgroup_size(1) fn main() { let x: u32 = 1.5; }", "compute", "main", "shader module"},
		"elect":       {"@compute @workgroup_size(1) fn main() { _ = subgroupElect(); }", "compute", "main", "subgroupElect"},
		"entry":       {subgroupCompute, "compute", "missing", "pipeline"},
		"stage":       {subgroupCompute, "geometry", "main", "unknown stage"},
		"wrong stage": {subgroupCompute, "vertex", "main", "pipeline"},
	} {
		err := d.Validate(c.src, c.stage, c.entry)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want an error mentioning %q, got %v", name, c.want, err)
		}
	}
}

func TestValidateRenderStages(t *testing.T) {
	d := device(t)
	frag := `@fragment
fn ps(@builtin(position) p: vec4<f32>, @location(0) uv: vec2<f32>, @location(2) @interpolate(flat) id: u32) -> @location(0) vec4<f32> {
  return vec4<f32>(uv, f32(id), subgroupAdd(p.x));
}
`
	if err := d.Validate(frag, "pixel", "ps"); err != nil {
		t.Fatalf("fragment: %v", err)
	}
	vert := `struct O { @builtin(position) p: vec4<f32>, @location(0) @interpolate(flat) k: i32 }
@vertex
fn vs(@builtin(vertex_index) v: u32, @location(0) pos: vec3<f32>, @location(3) w: vec2<u32>) -> O {
  return O(vec4<f32>(pos, f32(v + w.x)), 1i);
}
`
	if err := d.Validate(vert, "vertex", "vs"); err != nil {
		t.Fatalf("vertex: %v", err)
	}
}

func TestEntryParams(t *testing.T) {
	src := "fn helper(a: u32) {}\n@fragment fn ps(@builtin(position) p: vec4<f32>,\n  @location(1) @interpolate(flat) id: vec2<u32>, @location(0) uv: vec2<f32>,) -> @location(0) vec4<f32> { return p; }"
	ps, err := entryParams(src, "ps")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 3 {
		t.Fatalf("got %d params: %+v", len(ps), ps)
	}
	if ps[0].location != -1 || ps[1].location != 1 || !ps[1].flat || ps[1].typ != "vec2<u32>" || ps[2].name != "uv" || ps[2].flat {
		t.Errorf("wrong params: %+v", ps)
	}
	if _, err := entryParams(src, "nope"); err == nil {
		t.Error("missing entry point not reported")
	}
	vs := feederVertexShader(ps)
	if !strings.Contains(vs, "@location(1) @interpolate(flat) v1: vec2<u32>") || !strings.Contains(vs, "@location(0) v0: vec2<f32>") {
		t.Errorf("feeder shader does not mirror the inputs:\n%s", vs)
	}
	if f, size, ok := vertexFormat("vec3<f32>"); !ok || size != 12 || f == 0 {
		t.Errorf("vertexFormat(vec3<f32>) = %v %d %v", f, size, ok)
	}
	if _, _, ok := vertexFormat("mat2x2<f32>"); ok {
		t.Error("a matrix is not a vertex format")
	}
}

func TestRunCompute(t *testing.T) {
	d := device(t)
	src := `@group(0) @binding(0) var<storage, read> in: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(16)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(subgroup_size) n: u32) {
  out[id.x] = in[id.x] * 2u + subgroupAdd(1u) - n;
}
`
	in := make([]byte, 4*32)
	for i := 0; i < 32; i++ {
		binary.LittleEndian.PutUint32(in[4*i:], uint32(i+100))
	}
	res, err := d.RunCompute(src, "main", [3]uint32{2, 1, 1}, []Binding{
		{Binding: 0, Data: in},
		{Binding: 1, Data: make([]byte, 4*32), ReadBack: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res[0] != nil || len(res[1]) != 4*32 {
		t.Fatalf("read back %d and %d bytes", len(res[0]), len(res[1]))
	}
	for i := 0; i < 32; i++ {
		// All lanes are active, so subgroupAdd(1) is the subgroup size.
		if got := binary.LittleEndian.Uint32(res[1][4*i:]); got != uint32(2*(i+100)) {
			t.Errorf("out[%d] = %d, want %d", i, got, 2*(i+100))
		}
	}
	if _, err := d.RunCompute("fn main( {", "main", [3]uint32{1, 1, 1}, nil); err == nil {
		t.Error("a broken shader ran")
	}
}
