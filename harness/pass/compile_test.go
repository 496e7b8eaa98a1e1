package pass

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waverig/harness/produce"
)

// A rig finds its compilers by the NAME records give them, lists them among its
// targets after the built-ins, and names them on a repro command line by
// their full spec.
func TestConfigCommandCompilers(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "cc.sh")
	if err := os.WriteFile(ok, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := produce.ParseCompilers("ours,glslang,cmd:mine=" + ok)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Compilers: got}
	r := &Rig{cfg: cfg}
	if cc, found := r.compilers()["mine"].(produce.CommandCompiler); !found || cc.Path != ok {
		t.Errorf("compilers()[mine] = %+v %v", cc, found)
	}
	if _, found := r.compilers()[Glslang].(produce.GlslangCompiler); !found {
		t.Errorf("compilers() lacks glslang: %v", r.compilers())
	}
	if ts := cfg.targets(); len(ts) != 3 || ts[2] != (target{Vulkan, "mine"}) {
		t.Errorf("targets %v", ts)
	}
	if s := cfg.compilerSpec("mine"); s != "cmd:mine="+ok {
		t.Errorf("spec %q", s)
	}
}

func TestWGSLBindings(t *testing.T) {
	src := `// @group(9) @binding(9) var<storage> Commented: array<u32>;
@binding(2) @group(1) var<storage, read_write> Out: array<u32>;
@group(0)
@binding(0) var<uniform> P: Params;
/* @compute fn other() {} */
@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {}
`
	bs, err := wgslBindings(src, "main")
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 || bs["1:2"].Name != "Out" || bs["1:2"].Descriptor != "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER" ||
		bs["0:0"].Name != "P" || bs["0:0"].Descriptor != "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER" {
		t.Errorf("bindings %+v", bs)
	}
	if _, err := wgslBindings(src, "other"); err == nil || !strings.Contains(err.Error(), `no @compute entry point named "other"`) {
		t.Errorf("commented-out entry: %v", err)
	}
	if _, err := wgslBindings("@group(0) var<storage> X: u32;\n@compute @workgroup_size(1) fn main() {}", "main"); err == nil || !strings.Contains(err.Error(), "lacks @group or @binding") {
		t.Errorf("no binding: %v", err)
	}
}
