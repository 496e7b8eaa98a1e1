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
