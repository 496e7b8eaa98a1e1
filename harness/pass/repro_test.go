package pass

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"waverig/harness/casefile"
	"waverig/harness/kernels"
	"waverig/harness/repro"
)

// reproRig is a rig without a device: enough to compile, check and write
// repro bundles (spirv-val validates the module when it is installed).
func reproRig(t *testing.T) *Rig {
	t.Helper()
	return &Rig{cfg: Config{ReproDir: t.TempDir()}, cache: map[string]*module{}}
}

// A bundle built from a synthetic failing kernel output: case.json is a valid
// case of kernel.hlsl; against the buffer that failed, exactly the planted
// lane's output word mismatches (named by record and word); against a correct
// device's buffer nothing does; README.txt gives the exec line and the record
// of the failing lane.
func TestReproCaseFromFailingOutput(t *testing.T) {
	r := reproRig(t)
	k := kernels.Matrix(kernels.Filter{Ops: regexp.MustCompile(`^WavePrefixSum$`), Types: []string{"uint"}, Shapes: []string{"partial"}})[0]
	tg := target{Vulkan, Ours}
	if m := r.compile(k, tg); m.err != nil || m.skip != "" {
		t.Skipf("kernel does not compile here: %v %s", m.err, m.skip)
	}
	const size = 8
	good, err := kernels.Simulate(k, kernels.SimLayout{WaveSize: size, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string][]byte{"u0": append([]byte(nil), good["u0"]...)}
	const rec = 5 // in the first workgroup, the "all" pattern's: every lane active
	const word = rec*24 + 16
	binary.LittleEndian.PutUint32(bad["u0"][4*word:], binary.LittleEndian.Uint32(bad["u0"][4*word:])+5)
	_, failed := r.checkCases(k, kernels.NewMemo(k), tg, size, bad)
	if len(failed) != 1 || len(failed[0].Failures) != 1 {
		t.Fatalf("planted one wrong lane, Check failed %d cases: %+v", len(failed), failed)
	}
	if err := r.writeRepro(k, tg, size, failed, bad); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(r.cfg.ReproDir, k.Name+".vulkan.ours.wave8")
	c, err := casefile.Load(filepath.Join(dir, repro.CaseFile))
	if err != nil {
		t.Fatal(err)
	}
	if c.Entry != k.Entry || c.Dispatch != k.Groups || c.SubgroupSize != size || len(c.Buffers) != 1 || c.Buffers[0].Binding != "u0" {
		t.Fatalf("case %+v", c)
	}
	if string(c.Source()) != k.HLSL {
		t.Error("the case's shader is not the kernel's HLSL")
	}
	if got := c.Buffers[0].Initial(); string(got) != string(k.Buffers[0].Data) {
		t.Error("the case's u0 does not start as the kernel's")
	}
	mism := c.Mismatches([][]byte{bad["u0"]})
	if len(mism) != 1 || mism[0].Index != word || mism[0].Where != "record 5 out0" {
		t.Fatalf("against the failing buffer: %+v", mism)
	}
	if m := c.Mismatches([][]byte{good["u0"]}); len(m) != 0 {
		t.Fatalf("against a correct device's buffer: %d mismatches, first %+v", len(m), m[0])
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.txt"))
	for _, want := range []string{"Exec:     waverig exec case.json\n", "record 5 = u0[120..143]: " + failed[0].Case, "Mismatches in key, lane or count"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.txt lacks %q:\n%s", want, readme)
		}
	}
}
