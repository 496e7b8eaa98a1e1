package icd

import (
	"os"
	"path/filepath"
	"strconv"
)

// Mesa's on-disk shader cache, and why each lavapipe vector width gets its own.
//
// llvmpipe names its cache after the CPU's capabilities and the gallivm perf
// flags (lp_screen.c, lp_disk_cache_create: update_cache_sha1_cpu hashes the
// first five dwords of util_cpu_caps), and each shader's key after its NIR and
// variant key. LP_NATIVE_VECTOR_WIDTH, which the rig sets to choose lavapipe's
// wave size, is in neither. So a process at one width loads machine code that
// a process at another width compiled and cached, wherever the NIR does not
// depend on the subgroup size (vertex shaders, quad-only and sampling fragment
// shaders). Seen here (2026-12-07, lavapipe 25.0.7, a fresh cache): PSSlope at
// 8 lanes, then PSSampled at 4 — the second process reused the 8-lane vertex
// shader both draws share, and every fb15x15 draw died with SIGSEGV or SIGBUS;
// with the cache disabled, or with a cache per width, both pass. Worse than a
// crash, a reused shader that happens to run would test another width than
// the one the record names. Each width therefore gets a cache folder of its
// own: code run at a width was compiled at that width.
const (
	// ShaderCacheDirEnv is the folder Mesa keeps its shader cache in
	// (mesa_shader_cache or mesa_shader_cache_db inside it).
	ShaderCacheDirEnv = "MESA_SHADER_CACHE_DIR"
	// VectorWidthEnv is llvmpipe's vector width in bits (wave size × 32).
	VectorWidthEnv = "LP_NATIVE_VECTOR_WIDTH"
	// shaderCacheBaseEnv keeps the user's own MESA_SHADER_CACHE_DIR ("" when
	// unset) for children, whose width may differ from their parent's.
	shaderCacheBaseEnv = "WAVERIG_MESA_SHADER_CACHE_BASE"
)

// separateShaderCache points MESA_SHADER_CACHE_DIR at the folder of this
// process's lavapipe vector width (ShaderCacheDir) and returns it; it changes
// nothing and returns "" without LP_NATIVE_VECTOR_WIDTH.
func separateShaderCache() string {
	base, ok := os.LookupEnv(shaderCacheBaseEnv)
	if !ok {
		base = os.Getenv(ShaderCacheDirEnv)
		os.Setenv(shaderCacheBaseEnv, base)
	}
	dir := ShaderCacheDir(base, os.Getenv(VectorWidthEnv))
	if dir != "" {
		// Mesa creates only the last folder of MESA_SHADER_CACHE_DIR (and
		// disables its cache, saying so on stderr, when the parent is missing).
		os.MkdirAll(dir, 0o755)
		os.Setenv(ShaderCacheDirEnv, dir)
	}
	return dir
}

// ShaderCacheDir is the Mesa shader cache folder of a process whose
// LP_NATIVE_VECTOR_WIDTH is width: lavapipe-width-W inside base (the user's
// MESA_SHADER_CACHE_DIR), or inside Mesa's default root ($XDG_CACHE_HOME, else
// ~/.cache) when base is "". It is "" when width is unset or not a number
// (lavapipe then uses its default width and Mesa its default folder).
func ShaderCacheDir(base, width string) string {
	w, err := strconv.Atoi(width)
	if err != nil || w <= 0 {
		return ""
	}
	if base == "" {
		base = os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return ""
			}
			base = filepath.Join(home, ".cache")
		}
	}
	return filepath.Join(base, "lavapipe-width-"+strconv.Itoa(w))
}
