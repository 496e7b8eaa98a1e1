package mutate

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"waverig/compiler"
	"waverig/harness/kernels"
)

// ourModule compiles a kernel with waverig's compiler and the options the rig
// uses (harness/pass/compile.go: -auto-bindings, Vulkan 1.2, the kernel's extensions).
func ourModule(t *testing.T, k kernels.Kernel) []uint32 {
	t.Helper()
	res, err := compiler.Compile(k.Name+".hlsl", []byte(k.HLSL), compiler.Options{AutoBindings: true, Entry: k.Entry, Vulkan: "1.2", Extensions: k.Extensions})
	if err != nil {
		t.Fatalf("%s: %s", k.Name, res.Render())
	}
	b := res.Find(k.Entry, compiler.SPIRV)
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
	}
	return w
}

// TestCatalogueOnOurKernels: without a device, every mutant applies to the
// whole-wave kernel of at least one operation it names, changes it, and the
// result reassembles; spirv-val accepts it unless the mutant's family is
// scope (Vulkan allows only Subgroup scope for non-uniform group operations:
// those mutants are "rejected by the validator", never planted).
func TestCatalogueOnOurKernels(t *testing.T) {
	for _, tl := range []string{"spirv-dis", "spirv-as", "spirv-val"} {
		tool(t, tl)
	}
	if len(All) < 40 {
		t.Errorf("%d mutants, the issue asks for at least 40", len(All))
	}
	seen := map[string]bool{}
	for _, m := range All {
		if seen[m.Name] {
			t.Errorf("two mutants named %q", m.Name)
		}
		seen[m.Name] = true
		if m.Family == "" || m.Plants == "" || len(m.Ops) == 0 {
			t.Errorf("%q lacks a family, a description or its operations", m.Name)
		}
	}
	ops := map[string]bool{}
	for _, m := range All {
		for _, op := range m.Ops {
			ops[op] = true
		}
	}
	texts := map[string]string{} // op -> disassembly of its base whole kernel
	envs := map[string]string{}
	for op := range ops {
		ks := kernels.Matrix(kernels.Filter{Ops: regexp.MustCompile("^" + regexp.QuoteMeta(op) + "$"), Shapes: []string{"whole"}})
		for _, k := range ks {
			if !strings.Contains(k.Name, "_base_") || (k.Stage != "" && k.Stage != kernels.Compute) {
				continue
			}
			w := ourModule(t, k)
			text, err := Disassemble(w)
			if err != nil {
				t.Fatal(err)
			}
			texts[op], envs[op] = text, Env(w)
		}
	}
	dir := t.TempDir()
	for _, m := range All {
		t.Run(m.Name, func(t *testing.T) {
			applied := 0
			for _, op := range m.Ops {
				text, ok := texts[op]
				if !ok || !m.Applies(text) {
					continue
				}
				applied++
				out, err := m.Apply(text)
				if err != nil {
					t.Fatal(err)
				}
				if out == text {
					t.Fatalf("%s: unchanged", op)
				}
				w, err := Assemble(out, envs[op])
				if err != nil {
					t.Fatalf("%s: %v", op, err)
				}
				f := filepath.Join(dir, "m.spv")
				os.WriteFile(f, toBytes(w), 0o644)
				msg, err := exec.Command("spirv-val", "--target-env", envs[op], f).CombinedOutput()
				if rejected := err != nil; rejected != (m.Family == "scope") {
					t.Errorf("%s: spirv-val rejected=%v for a %s mutant: %s", op, rejected, m.Family, msg)
				}
			}
			if applied == 0 {
				t.Errorf("applies to no kernel of %v", m.Ops)
			}
		})
	}
}

// TestEditKeepsTheLayoutKey: no mutant touches the wave key every kernel
// records (BroadcastFirst of the flat id, stored to %key).
func TestEditKeepsTheLayoutKey(t *testing.T) {
	text := strings.Join([]string{
		"%uint = OpTypeInt 32 0",
		"%uint_3 = OpConstant %uint 3",
		"OpFunction",
		"%k = OpGroupNonUniformBroadcastFirst %uint %uint_3 %id",
		"OpStore %key %k",
		"%r = OpGroupNonUniformBroadcastFirst %uint %uint_3 %x",
	}, "\n")
	for _, name := range []string{"BroadcastFirst->Broadcast lane 0", "BroadcastFirst dropped", "scope Subgroup->Workgroup"} {
		m, ok := Find(name)
		if !ok {
			t.Fatalf("no mutant %q", name)
		}
		out, err := m.Apply(text)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "%k = OpGroupNonUniformBroadcastFirst %uint %uint_3 %id") {
			t.Errorf("%q changed the layout key:\n%s", name, out)
		}
		if strings.Contains(out, "%r = OpGroupNonUniformBroadcastFirst %uint %uint_3 %x") {
			t.Errorf("%q left the operation under test alone:\n%s", name, out)
		}
	}
}
