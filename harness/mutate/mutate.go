// Package mutate plants bugs in SPIR-V modules, the way a broken compiler or
// driver would, so the rig can prove that its checks catch them. It works on
// spirv-dis text (friendly names) and reassembles with spirv-as, so each mutation
// reads like the bug it stands for.
package mutate

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Mutation is one planted bug: a small, named transformation of the spirv-dis
// text of a waverig-compiled kernel.
type Mutation struct {
	Name string
	// Family groups the mutants by what they break (opcode, group operation,
	// lane index, broadcast, quad, ballot, vote, scope, builtin, identity,
	// control flow, data flow, signedness): the score is reported per family.
	Family string
	// Plants says, in words, the bug the mutant stands for.
	Plants string
	// Ops are the intrinsics (kernels.Case.OpName) whose kernels carry what the
	// mutant edits: the score runs it against those kernels only.
	Ops []string
	// Applies reports whether the module contains what the mutation changes.
	Applies func(text string) bool
	// Apply returns the mutated disassembly.
	Apply func(text string) (string, error)
}

// Find returns the mutant of a name.
func Find(name string) (Mutation, bool) {
	for _, m := range All {
		if m.Name == name {
			return m, true
		}
	}
	return Mutation{}, false
}

var (
	exclusiveRE = regexp.MustCompile(`(?m)^(\s*)(%\w+) = (OpGroupNonUniform(?:IAdd|IMul)) (%\w+) (%\w+) ExclusiveScan (%\w+)$`)
	intTypeRE   = regexp.MustCompile(`(?m)^\s*(%\w+) = OpTypeInt 32 [01]$`)
	boolTypeRE  = regexp.MustCompile(`(?m)^\s*(%\w+) = OpTypeBool$`)
)

// guardingBranch finds the conditional branch whose true target is the block that
// holds the first wave operation: the "if (lane is active) { op }" of a kernel.
func guardingBranch(t string) (line string, block string, ok bool) {
	lines := strings.Split(t, "\n")
	cur := ""
	opBlock := ""
	for _, l := range lines {
		s := strings.TrimSpace(l)
		if strings.HasSuffix(s, "= OpLabel") {
			cur = strings.Fields(s)[0]
		}
		if strings.Contains(s, "OpGroupNonUniform") && !strings.Contains(s, "OpGroupNonUniformBroadcastFirst") && opBlock == "" {
			// The layout recording (BroadcastFirst of the flat id) runs before the
			// divergence; the operation under test is the first other group op.
			opBlock = cur
		}
	}
	if opBlock == "" {
		return "", "", false
	}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) >= 4 && f[0] == "OpBranchConditional" && f[2] == opBlock {
			return l, opBlock, true
		}
	}
	return "", "", false
}

// invertGuard swaps the targets of the branch that guards the operation, so the
// inactive lanes run it and the active ones skip it.
func invertGuard(t string) (string, error) {
	line, _, ok := guardingBranch(t)
	if !ok {
		return "", fmt.Errorf("no guarding branch")
	}
	f := strings.Fields(line)
	f[2], f[3] = f[3], f[2]
	indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
	return strings.Replace(t, line, indent+strings.Join(f, " "), 1), nil
}

// wrongIdentity adds 1 to the exclusive scan's result in the first active lane,
// i.e. the empty prefix yields 1 instead of the identity (0 for sums, 1 for
// products becomes 2). It applies to scans of 32-bit integer scalars.
func wrongIdentity(t string) (string, error) {
	m, typ := scalarIntScan(t)
	if m == nil {
		return "", fmt.Errorf("no exclusive scan of a 32-bit integer scalar")
	}
	one, zero := "%mut_one", "%mut_zero"
	decl := typ.line + fmt.Sprintf("\n%s = OpConstant %s 1\n%s = OpConstant %s 0", one, typ.name, zero, typ.name)
	if boolTypeRE.FindStringSubmatch(t) == nil {
		decl += "\n%mut_bool = OpTypeBool"
	}
	t = strings.Replace(t, typ.line, decl, 1)
	if !strings.Contains(t, "OpCapability GroupNonUniform\n") {
		// Elect needs the basic subgroup capability.
		i := strings.Index(t, "OpCapability")
		t = t[:i] + "OpCapability GroupNonUniform\n" + t[i:]
	}
	b := boolTypeRE.FindStringSubmatch(t)
	return strings.Replace(t, m[0], fmt.Sprintf("%[1]s%%mut_scan = %[3]s %[4]s %[5]s ExclusiveScan %[6]s\n"+
		"%[1]s%%mut_first = OpGroupNonUniformElect %[7]s %[5]s\n"+
		"%[1]s%%mut_bump = OpSelect %[4]s %%mut_first %[8]s %[9]s\n"+
		"%[1]s%[2]s = OpIAdd %[4]s %%mut_scan %%mut_bump", m[1], m[2], m[3], m[4], m[5], m[6], b[1], one, zero), 1), nil
}

type intType struct{ name, line string }

// scalarIntScan finds an exclusive integer scan whose result type is a 32-bit
// integer scalar, and that type's declaration line.
func scalarIntScan(t string) ([]string, *intType) {
	types := map[string]string{}
	for _, m := range intTypeRE.FindAllStringSubmatch(t, -1) {
		types[m[1]] = m[0]
	}
	for _, m := range exclusiveRE.FindAllStringSubmatch(t, -1) {
		if line, ok := types[m[4]]; ok {
			return m, &intType{name: m[4], line: line}
		}
	}
	return nil, nil
}

// Disassemble returns spirv-dis text of a module.
func Disassemble(words []uint32) (string, error) {
	dir, err := os.MkdirTemp("", "waverig-mutate")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "in.spv")
	os.WriteFile(in, toBytes(words), 0o644)
	out, err := exec.Command("spirv-dis", "--no-header", in).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("spirv-dis: %v: %s", err, out)
	}
	return string(out), nil
}

// Assemble turns spirv-dis text back into a module for the given target env.
func Assemble(text, env string) ([]uint32, error) {
	dir, err := os.MkdirTemp("", "waverig-mutate")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "m.spvasm")
	out := filepath.Join(dir, "m.spv")
	os.WriteFile(src, []byte(text), 0o644)
	if msg, err := exec.Command("spirv-as", "--target-env", env, "-o", out, src).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("spirv-as: %v: %s", err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	w := make([]uint32, len(data)/4)
	for i := range w {
		w[i] = uint32(data[4*i]) | uint32(data[4*i+1])<<8 | uint32(data[4*i+2])<<16 | uint32(data[4*i+3])<<24
	}
	return w, nil
}

// Env is the spirv-as/spirv-val target environment of a module, from its
// SPIR-V version (spirv-dis --no-header drops the version, so a reassembled
// module gets it back from the environment).
func Env(words []uint32) string {
	if len(words) < 2 {
		return "vulkan1.1"
	}
	switch minor := words[1] >> 8 & 0xff; {
	case minor >= 6:
		return "vulkan1.3"
	case minor >= 4:
		return "vulkan1.2"
	}
	return "vulkan1.1"
}

// ApplyTo mutates a module: disassemble, edit, reassemble.
func (m Mutation) ApplyTo(words []uint32, env string) ([]uint32, error) {
	text, err := Disassemble(words)
	if err != nil {
		return nil, err
	}
	if !m.Applies(text) {
		return nil, fmt.Errorf("mutation %q does not apply to this module", m.Name)
	}
	mut, err := m.Apply(text)
	if err != nil {
		return nil, err
	}
	if mut == text {
		return nil, fmt.Errorf("mutation %q changed nothing", m.Name)
	}
	return Assemble(mut, env)
}

func toBytes(w []uint32) []byte {
	var b bytes.Buffer
	for _, x := range w {
		b.Write([]byte{byte(x), byte(x >> 8), byte(x >> 16), byte(x >> 24)})
	}
	return b.Bytes()
}
