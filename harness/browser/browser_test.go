package browser

import (
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"waverig/devices/icd"
)

// sumWGSL is harness/dawn's test kernel: a divergent subgroupAdd with the
// subgroup size beside it.
var sumWGSL = func() string {
	b, err := os.ReadFile("../dawn/testdata/subgroup_add.wgsl")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// A divergent subgroupAdd in headless Chromium's WebGPU, lane by lane (the
// browser picks SwiftShader here), and a module the browser's Tint rejects.
func TestBrowserCompute(t *testing.T) {
	if why := Available(); why != "" {
		t.Skip(why)
	}
	icd.Configure()
	b, err := Open()
	if err != nil {
		t.Skipf("no browser WebGPU here: %v", err)
	}
	defer b.Close()
	t.Logf("browser adapter: %+v", b.Adapter)
	bufs, err := b.RunCompute(sumWGSL, "main", [3]uint32{1, 1, 1}, []Binding{{Data: make([]byte, 64*8)}})
	if err != nil {
		t.Fatal(err)
	}
	w := func(k int) uint32 { return binary.LittleEndian.Uint32(bufs[0][4*k:]) }
	size := w(1)
	if size == 0 || size < b.Adapter.SubgroupMinSize || size > b.Adapter.SubgroupMaxSize {
		t.Fatalf("subgroup_size %d, the adapter says %d..%d", size, b.Adapter.SubgroupMinSize, b.Adapter.SubgroupMaxSize)
	}
	for i := uint32(0); i < 64; i += 2 {
		base, want := i/size*size, uint32(0)
		for l := base; l < base+size; l += 2 {
			want += l
		}
		if got := w(int(2 * i)); got != want {
			t.Fatalf("lane %d: %d, want %d (wave size %d; lanes in invocation order, as SwiftShader places them)", i, got, want, size)
		}
	}
	if _, err := b.RunCompute("fn f( {", "main", [3]uint32{1, 1, 1}, nil); err == nil || !strings.Contains(err.Error(), "Tint rejects") {
		t.Fatalf("a broken module: %v", err)
	}
}
