package icd

import (
	"os"
	"path/filepath"
	"testing"
)

// TestShaderCacheDirPerWidth: every lavapipe width has its own folder, under
// the user's MESA_SHADER_CACHE_DIR when set, else under XDG_CACHE_HOME; no
// width (or a malformed one) leaves Mesa's default alone.
func TestShaderCacheDirPerWidth(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/x")
	dirs := map[string]bool{}
	for _, w := range []string{"128", "256", "512"} {
		d := ShaderCacheDir("", w)
		if filepath.Dir(d) != "/x" || dirs[d] {
			t.Fatalf("width %s: %q (seen %v)", w, d, dirs)
		}
		dirs[d] = true
	}
	if d := ShaderCacheDir("/mine", "256"); d != "/mine/lavapipe-width-256" {
		t.Errorf("under the user's folder: %q", d)
	}
	for _, w := range []string{"", "wide", "-8", "0", "../../etc"} {
		if d := ShaderCacheDir("/mine", w); d != "" {
			t.Errorf("width %q: %q, want Mesa's default", w, d)
		}
	}
}

// TestSeparateShaderCacheKeepsTheUsersBase: a child at another width than its
// parent gets its own width's folder under the user's base, not a folder
// inside the parent's width folder.
func TestSeparateShaderCacheKeepsTheUsersBase(t *testing.T) {
	mine := t.TempDir()
	t.Setenv(ShaderCacheDirEnv, mine)
	t.Setenv(shaderCacheBaseEnv, "")
	unsetForTest(t, shaderCacheBaseEnv)
	t.Setenv(VectorWidthEnv, "128")
	if d := separateShaderCache(); d != filepath.Join(mine, "lavapipe-width-128") || os.Getenv(ShaderCacheDirEnv) != d {
		t.Fatalf("parent: %q", d)
	}
	if _, err := os.Stat(filepath.Join(mine, "lavapipe-width-128")); err != nil {
		t.Fatalf("the width's folder was not made (Mesa makes only the last folder of its path): %v", err)
	}
	t.Setenv(VectorWidthEnv, "512") // the child's environment: inherited, plus its width
	if d := separateShaderCache(); d != filepath.Join(mine, "lavapipe-width-512") || os.Getenv(ShaderCacheDirEnv) != d {
		t.Fatalf("child: %q", d)
	}
}

// unsetForTest unsets an environment variable for the rest of the test (after
// t.Setenv, which restores it at the end).
func unsetForTest(t *testing.T, key string) {
	t.Helper()
	if err := os.Unsetenv(key); err != nil {
		t.Fatal(err)
	}
}
