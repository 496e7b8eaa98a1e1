package webgpu

import (
	"os"
	"path/filepath"
	"testing"
)

// The fallback XDG_RUNTIME_DIR is created private, reused, and refused when
// it is anything but a 0700 directory of this user (a link, a file, a
// directory others can enter).
func TestPrivateRuntimeDir(t *testing.T) {
	base := t.TempDir()
	uid := os.Getuid()
	dir, err := privateRuntimeDir(base, uid)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 || filepath.Dir(dir) != base {
		t.Fatalf("%s: %v, %v", dir, fi, err)
	}
	if again, err := privateRuntimeDir(base, uid); err != nil || again != dir {
		t.Fatalf("second call: %q, %v (want %q reused)", again, err, dir)
	}
	if _, err := privateRuntimeDir(base, uid+1); err == nil {
		t.Error("a directory of another uid was accepted")
	}
	os.Chmod(dir, 0o755)
	if _, err := privateRuntimeDir(base, uid); err == nil {
		t.Error("a 0755 directory was accepted")
	}

	linked := t.TempDir()
	target := t.TempDir()
	os.Chmod(target, 0o700)
	if err := os.Symlink(target, filepath.Join(linked, runtimeDirName(uid))); err != nil {
		t.Fatal(err)
	}
	if _, err := privateRuntimeDir(linked, uid); err == nil {
		t.Error("a symbolic link was accepted")
	}
	file := t.TempDir()
	os.WriteFile(filepath.Join(file, runtimeDirName(uid)), nil, 0o700)
	if _, err := privateRuntimeDir(file, uid); err == nil {
		t.Error("a regular file was accepted")
	}
}
