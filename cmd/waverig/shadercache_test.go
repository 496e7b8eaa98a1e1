package main

import (
	"os"
	"testing"

	"waverig/devices/icd"
)

// TestLavapipeWidthsKeepTheirOwnShaderCache replays the sequence that crashed
// the suites' sampling draws (docs/suites.md): with one fresh cache folder,
// the seed's PSSlope at 8 lanes, then PSSampled at 4 on lavapipe 25.0.7. The
// two draws share a vertex shader whose NIR does not depend on the width, and
// Mesa's cache is not keyed by LP_NATIVE_VECTOR_WIDTH: with one cache for all
// widths the 4-lane process ran the 8-lane process's machine code and every
// fb15x15 draw died (SIGSEGV, SIGBUS). Each width has its own folder now, so
// both runs pass, and each width's folder is where its process cached.
func TestLavapipeWidthsKeepTheirOwnShaderCache(t *testing.T) {
	_, _, lvp25, _ := threeCPUDrivers(t)
	cache := t.TempDir()
	env := append(os.Environ(), "XDG_CACHE_HOME="+cache, asMainEnv+"=1")
	for _, step := range []struct{ ops, size string }{{"^PSSlope$", "8"}, {"^PSSampled$", "4"}} {
		code, text := waverig(t, env, "run", "-device", lvp25.DriverInfo, "-api", "vulkan", "-compilers", "ours",
			"-ops", step.ops, "-sizes", step.size, "-out", t.TempDir())
		if code != exitOK {
			t.Fatalf("%s at %s lanes after the other width's run: exit %d\n%s", step.ops, step.size, code, text)
		}
	}
	for _, width := range []string{"128", "256"} {
		dir := icd.ShaderCacheDir(cache, width)
		if entries, err := os.ReadDir(dir); err != nil || len(entries) == 0 {
			t.Errorf("width %s cached nothing in its own folder %s (%v)", width, dir, err)
		}
	}
}
