package dawn

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"waverig/devices/icd"
)

// open opens Dawn on an adapter or skips the test saying why it cannot.
func open(t *testing.T, match string) *Device {
	t.Helper()
	if why := Available(); why != "" {
		t.Skip(why)
	}
	icd.Configure()
	var log strings.Builder
	d, err := Open(match, &log)
	if err != nil {
		t.Skipf("no Dawn adapter %q: %v\n%s", match, err, log.String())
	}
	t.Cleanup(d.Close)
	return d
}

// sumWGSL is a divergent subgroupAdd with the subgroup size beside it, in
// the standard dialect (shared with harness/browser's test).
var sumWGSL = func() string {
	b, err := os.ReadFile("testdata/subgroup_add.wgsl")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// A divergent subgroupAdd lane by lane, on each CPU driver Dawn takes: the
// sum over the even lanes of each wave, with the wave size Dawn reports.
func TestComputeSubgroupAdd(t *testing.T) {
	for _, match := range []string{"SwiftShader", "llvmpipe"} {
		t.Run(match, func(t *testing.T) {
			d := open(t, match)
			if !d.Adapter.Has("subgroups") {
				t.Fatalf("adapter %+v has no subgroups", d.Adapter)
			}
			bufs, err := d.RunCompute(sumWGSL, "main", [3]uint32{1, 1, 1}, []Binding{{Data: make([]byte, 64*8)}})
			if err != nil {
				t.Fatal(err)
			}
			w := func(k int) uint32 { return binary.LittleEndian.Uint32(bufs[0][4*k:]) }
			size := w(1)
			if size != d.Adapter.SubgroupMinSize || size == 0 {
				t.Fatalf("subgroup_size %d, adapter says %d..%d", size, d.Adapter.SubgroupMinSize, d.Adapter.SubgroupMaxSize)
			}
			for i := uint32(0); i < 64; i++ {
				base := i / size * size
				want := uint32(0)
				if i%2 == 0 {
					for l := base; l < base+size; l += 2 {
						want += l
					}
				}
				if got := w(int(2 * i)); got != want {
					t.Fatalf("lane %d: %d, want %d (wave size %d; assumes lanes in invocation order, as these drivers do)", i, got, want, size)
				}
			}
			if d.Pipelines() != 1 {
				t.Errorf("%d pipelines", d.Pipelines())
			}
		})
	}
}

// Tint's refusal is an error of the request, and the helper goes on.
func TestRejectedModuleAndRecovery(t *testing.T) {
	d := open(t, "SwiftShader")
	if err := d.Validate("fn f( {"); err == nil || !strings.Contains(err.Error(), "Tint rejects") {
		t.Fatalf("a broken module: %v", err)
	}
	if err := d.Validate(sumWGSL); err != nil {
		t.Fatalf("after a rejected module: %v", err)
	}
	// A dead helper is restarted by the next request.
	d.mu.Lock()
	d.cmd.Process.Kill()
	d.mu.Unlock()
	if err := d.Validate(sumWGSL); err == nil {
		t.Log("the kill had not landed before the request")
	}
	if err := d.Validate(sumWGSL); err != nil {
		t.Fatalf("the helper did not come back: %v", err)
	}
}

// invertWGSL writes each word of src, inverted, to dst.
const invertWGSL = `@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  if (id.x < arrayLength(&src)) { dst[id.x] = ~src[id.x]; }
}`

// Bytes travel as blobs after their request and reply lines: buffers of
// megabytes (many pipe writes and reads), an odd length, and requests back to
// back must come back byte for byte, each binding in its place.
func TestBlobsRoundTrip(t *testing.T) {
	d := open(t, "SwiftShader")
	for _, words := range []int{1 << 20, 3, 64*1000 + 1} {
		src := make([]byte, 4*words)
		for i := range src {
			src[i] = byte(i*7 + words)
		}
		groups := [3]uint32{uint32((words + 63) / 64), 1, 1}
		bufs, err := d.RunCompute(invertWGSL, "main", groups, []Binding{{Binding: 0, Data: src}, {Binding: 1, Data: make([]byte, 4*words)}})
		if err != nil {
			t.Fatalf("%d words: %v", words, err)
		}
		if len(bufs) != 2 || len(bufs[0]) != len(src) || len(bufs[1]) != len(src) {
			t.Fatalf("%d words: buffers of %d bytes back, want 2 of %d", words, len(bufs), len(src))
		}
		for i := range src {
			if bufs[0][i] != src[i] || bufs[1][i] != ^src[i] {
				t.Fatalf("%d words: byte %d: src %#x dst %#x back, want %#x and %#x", words, i, bufs[0][i], bufs[1][i], src[i], ^src[i])
			}
		}
	}
}
