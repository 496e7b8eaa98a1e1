package kernels

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"waverig/harness/glslang"
	"waverig/harness/vulkan"
)

// TestLinkedToolsMatchTheirCommands: the glslang linked into waverig makes,
// for every kernel of the matrix (every 16th in -short), the words
// glslangValidator makes with the same flags, or rejects the kernel as it
// does — so the library is glslang 12 as the baselines know it, not another
// compiler; and the SPIRV-Tools validator linked in (harness/vulkan) accepts
// exactly the modules spirv-val accepts, rejecting the others with the line
// spirv-val prints first. Needs glslangValidator and spirv-val (Debian's
// glslang-tools and spirv-tools) of the libraries' versions.
func TestLinkedToolsMatchTheirCommands(t *testing.T) {
	tool, err := exec.LookPath("glslangValidator")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI needs glslangValidator to hold the library to it")
		}
		t.Skip("glslangValidator not installed")
	}
	spirvVal, err := exec.LookPath("spirv-val")
	if err != nil {
		t.Skip("spirv-val not installed")
	}
	out, _ := exec.Command(tool, "--version").Output()
	if !bytes.Contains(out, []byte("Glslang Version: 11:"+glslang.Version())) {
		t.Skipf("glslangValidator is another version than the library's %s:\n%s", glslang.Version(), out)
	}
	all := Matrix(Filter{})
	for _, st := range []Stage{Pixel, Vertex} {
		all = append(all, GraphicsMatrix(st, Filter{})...)
	}
	for _, st := range []Stage{Task, Mesh} {
		all = append(all, MeshMatrix(st, Filter{})...)
	}
	step := 1
	if testing.Short() {
		step = 16
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the library compiles, not the cache
	dir := t.TempDir()
	compared, rejected, invalid := 0, 0, 0
	for i := 0; i < len(all); i += step {
		k := all[i]
		stage := "compute"
		switch {
		case k.Stage == Pixel:
			stage = "pixel"
		case k.Stage == Vertex:
			stage = "vertex"
		case k.MeshDraw != nil:
			continue // glslang 12's HLSL has no DispatchMesh: both reject, tested in mesh_test.go
		}
		src, spv := filepath.Join(dir, "kernel.hlsl"), filepath.Join(dir, "kernel.spv")
		os.Remove(spv)
		if err := os.WriteFile(src, []byte(k.HLSL), 0o644); err != nil {
			t.Fatal(err)
		}
		cliOut, cliErr := exec.Command(tool, glslang.Args(k.Entry, stage, src, spv)...).CombinedOutput()
		mod, skip, err := glslang.CompileStage(k.HLSL, k.Entry, stage, nil)
		if err != nil {
			t.Fatalf("%s: %v", k.Name, err)
		}
		if cliErr != nil {
			if skip == "" {
				t.Errorf("%s: glslangValidator rejects it, the library compiles it:\n%s", k.Name, cliOut)
			}
			rejected++
			continue
		}
		if skip != "" {
			if skip == glslang.IgnoresHelperLanes && bytes.Contains(cliOut, []byte("unrecognized attribute")) {
				rejected++
				continue
			}
			t.Errorf("%s: the library skips it (%s), glslangValidator compiles it", k.Name, skip)
			continue
		}
		want, err := os.ReadFile(spv)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 4*len(mod.SPIRV))
		for j, w := range mod.SPIRV {
			binary.LittleEndian.PutUint32(got[4*j:], w)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the library's module (%d bytes) differs from glslangValidator's (%d bytes)", k.Name, len(got), len(want))
		}
		compared++
		valOut, valErr := exec.Command(spirvVal, "--target-env", "vulkan1.1", "--scalar-block-layout", spv).CombinedOutput()
		libErr := vulkan.Validate(mod.SPIRV)
		var ve *vulkan.ValidationError
		switch {
		case valErr == nil && libErr != nil:
			t.Errorf("%s: spirv-val accepts glslang's module, the linked validator says %v", k.Name, libErr)
		case valErr != nil && !errors.As(libErr, &ve):
			t.Errorf("%s: spirv-val rejects glslang's module, the linked validator says %v:\n%s", k.Name, libErr, valOut)
		case valErr != nil:
			first, _, _ := strings.Cut(ve.Output, "\n")
			if !strings.Contains(string(valOut), first) {
				t.Errorf("%s: the linked validator's %q is not spirv-val's:\n%s", k.Name, first, valOut)
			}
			invalid++
		}
	}
	if compared == 0 {
		t.Fatal("no kernel compared")
	}
	t.Logf("%d kernels byte for byte equal (%d of the modules rejected by both validators), %d rejected by both compilers", compared, invalid, rejected)
}
