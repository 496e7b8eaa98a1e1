package webgpu

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Prebuild builds compute and render pipelines on several goroutines; jobs
// whose module or pipeline fails are mixed in, so errors are raised while
// other creations run (wgpu-native's shared error scopes), and still every
// good pipeline ends up cached, no bad one does, and RunCompute and RunDraw
// then build nothing and report the bad jobs' errors as they would anyway.
func TestPrebuild(t *testing.T) {
	d, err := OpenAdapter(device(t).Adapter.Index) // a fresh device: its own cache and count
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	compute := func(i int) string {
		return fmt.Sprintf(`@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  out[id.x] = subgroupAdd(%du);
}
`, i+1)
	}
	fs := `@fragment
fn ps() -> @location(0) vec4<u32> {
  return vec4<u32>(subgroupAdd(1u), 0u, 0u, 1u);
}
`
	draw := DrawJob{VertexWGSL: fullScreenVS, VertexEntry: "vs", FragmentWGSL: fs, FragmentEntry: "ps", Width: 5, Height: 5, Color: RGBA32Uint, VertexCount: 3}
	var jobs []PrebuildJob
	var good []PrebuildJob
	for i := 0; i < 12; i++ {
		j := PrebuildJob{WGSL: compute(i), Entry: "main"}
		good = append(good, j)
		jobs = append(jobs, j, j, PrebuildJob{WGSL: "fn main( {" + compute(i), Entry: "main"}, PrebuildJob{WGSL: compute(i), Entry: "nope"})
	}
	noColor := draw
	noColor.Color = NoColor
	badDraw := draw
	badDraw.FragmentEntry = "nope"
	good = append(good, PrebuildJob{Draw: &draw}, PrebuildJob{Draw: &noColor})
	jobs = append(jobs, PrebuildJob{Draw: &draw}, PrebuildJob{Draw: &badDraw}, PrebuildJob{Draw: &noColor}, PrebuildJob{Draw: &DrawJob{VertexWGSL: fullScreenVS}})

	if built := d.Prebuild(jobs, 4); built != len(good) {
		t.Fatalf("Prebuild built %d pipelines, want %d", built, len(good))
	}
	if got := d.PipelinesCreated(); got != len(good) {
		t.Fatalf("PipelinesCreated is %d, want %d", got, len(good))
	}
	if built := d.Prebuild(jobs, 4); built != 0 {
		t.Fatalf("a second Prebuild built %d pipelines, want 0 (the bad ones are not retried into the cache)", built)
	}
	for i, j := range good {
		if j.Draw != nil {
			if _, err := d.RunDraw(*j.Draw); err != nil {
				t.Fatal(err)
			}
			continue
		}
		res, err := d.RunCompute(j.WGSL, j.Entry, [3]uint32{1, 1, 1}, []Binding{{Data: make([]byte, 16), ReadBack: true}})
		if err != nil {
			t.Fatal(err)
		}
		if got := u32s(res[0])[0]; got%uint32(i+1) != 0 || got == 0 {
			t.Errorf("compute %d: subgroupAdd(%d) = %d", i, i+1, got)
		}
	}
	if got := d.PipelinesCreated(); got != len(good) {
		t.Fatalf("RunCompute and RunDraw created %d pipelines after the prebuild, want 0", got-len(good))
	}
	for _, j := range jobs {
		if j.Draw == nil && (strings.HasPrefix(j.WGSL, "fn main( {") || j.Entry == "nope") {
			if _, err := d.RunCompute(j.WGSL, j.Entry, [3]uint32{1, 1, 1}, []Binding{{Data: make([]byte, 16)}}); err == nil {
				t.Errorf("a bad compute job ran (entry %q)", j.Entry)
			}
		}
	}
	if _, err := d.RunDraw(badDraw); err == nil || !strings.Contains(err.Error(), "render pipeline") {
		t.Errorf("the draw with no fragment entry: %v, want a render pipeline error", err)
	}
}

// trustworthy believes a success only when no creation of its cluster of
// chained overlapping calls failed: C below fails (with A's error, popped
// from the shared scope stack) though it never overlapped A, so A, B and C
// are all doubted, while D, after a moment with nothing in flight, is not.
func TestTrustworthy(t *testing.T) {
	fail := errors.New("validation")
	outs := []built[int]{
		{start: 1, end: 4},            // A
		{start: 2, end: 7},            // B
		{start: 5, end: 8, err: fail}, // C
		{start: 9, end: 10},           // D
		{start: 3, end: 6, err: errNoModule},
	}
	got := trustworthy(outs)
	want := []bool{false, false, false, true, false}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("creation %d: trusted %v, want %v", i, got[i], want[i])
		}
	}
}
