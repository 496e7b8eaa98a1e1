package compiler

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"waverig/compiler/args"
	"waverig/compiler/diag"
)

// TestBindingAtTheLimit: register + shift may reach 4294967295 exactly; the
// SPIR-V Binding decoration then holds 0xffffffff, and one more is E0417
// instead of a binding that wraps around to 0.
func TestBindingAtTheLimit(t *testing.T) {
	src := []byte("StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);\n" +
		"[shader(\"compute\")] [numthreads(1, 1, 1)] void main() { Out[0] = In[0]; }\n")
	a, err := args.Parse([]string{"-fvk-u-shift", "4294967295", "0"})
	if err != nil {
		t.Fatal(err)
	}
	opts, _ := OptionsFromArgs(a)
	res, err := Compile("max.hlsl", src, opts)
	if err != nil {
		t.Fatal(res.Render())
	}
	var got []int
	for _, b := range res.Reflection.EntryPoints[0].Bindings {
		got = append(got, b.Binding)
	}
	if len(got) != 2 || got[0] != 0 || got[1] != 4294967295 {
		t.Fatalf("bindings %v, want [0 4294967295]", got)
	}
	// OpDecorate %Out Binding 0xffffffff: opcode 71 with 4 words, decoration 33.
	var word [4]byte
	binary.LittleEndian.PutUint32(word[:], 33)
	want := append(word[:], 0xff, 0xff, 0xff, 0xff)
	if !bytes.Contains(res.Find("main", SPIRV), want) {
		t.Error("no Binding 0xffffffff decoration in the SPIR-V")
	}

	src = bytes.Replace(src, []byte("register(u0)"), []byte("register(u1)"), 1)
	res, err = Compile("over.hlsl", src, opts)
	if err == nil || len(res.Diagnostics) != 1 || res.Diagnostics[0].Code != diag.ErrBindingRange ||
		!strings.Contains(res.Diagnostics[0].Text, "binding 4294967296") {
		t.Fatalf("u1 shifted by 4294967295: %v\n%s", err, res.Render())
	}
}
