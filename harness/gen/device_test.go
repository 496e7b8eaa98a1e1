package gen

import (
	"os"
	"strconv"
	"testing"
	"time"

	"waverig/devices"
)

// TestLavapipe runs a fixed set of seeds on the first Vulkan device at its
// current wave size: a correct device passes the subset contract.
func TestDevice(t *testing.T) {
	devs, err := devices.Enumerate()
	if err != nil || len(devs) == 0 {
		t.Skipf("no Vulkan device: %v", err)
	}
	d, err := OpenDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	start := time.Now()
	n := uint64(20)
	if v, err := strconv.ParseUint(os.Getenv("WAVERIG_GEN_N"), 10, 32); err == nil {
		n = v // more programs, by hand
	}
	for seed := uint64(1); seed <= n; seed++ {
		p := Generate(seed)
		words, err := d.Run(p)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if f := p.Check(words, Subset); len(f) > 0 {
			t.Errorf("seed %d on %s (wave size %d): %d failures, first: %v\n%s", seed, d.Name(), d.WaveSize(), len(f), f[0], p.HLSL())
		}
	}
	t.Logf("%d programs on %s at wave size %d in %v", n, d.Name(), d.WaveSize(), time.Since(start))
}
