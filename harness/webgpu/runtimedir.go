package webgpu

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Without XDG_RUNTIME_DIR (a CI job, a container, `sudo`, ssh without a
// login session) every wgpu-native Vulkan instance made libwayland-client
// print "error: XDG_RUNTIME_DIR is invalid or not set in the environment."
// twice per physical-device enumeration, in the parent and in every child
// process (292 lines in a default lavapipe run). The chain, seen with
// `strace -k`: wgpu-hal enables every surface extension the loader offers,
// VK_KHR_wayland_surface among them; Mesa's implicit VK_LAYER_MESA_device_select
// layer sees that extension and, in vkEnumeratePhysicalDevices, calls
// wl_display_connect(NULL) to find the compositor's GPU; libwayland needs
// XDG_RUNTIME_DIR to find the socket and says so on stderr. Asking wgpu for
// the Vulkan backend only does not help (it is the Vulkan backend), and
// disabling the layer (NODEVICE_SELECT) would change the device order other
// Vulkan users of the process see. So a process without a usable
// XDG_RUNTIME_DIR gets one: a private 0700 directory, as the XDG base
// directory spec tells applications to fall back to. It holds no Wayland
// socket, so the connection fails quietly, exactly as it fails (loudly) now;
// no display could have been reached without it. The directory's name is
// fixed per user, so children inherit it and repeated runs reuse it; one
// that is not a directory of ours with mode 0700 is not used.

var runtimeDirOnce sync.Once

// ensureRuntimeDir gives the process a private XDG_RUNTIME_DIR when it has
// none (or a relative one, which libwayland refuses too), once, before the
// first wgpu instance.
func ensureRuntimeDir() {
	runtimeDirOnce.Do(func() {
		if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
			return
		}
		dir, err := privateRuntimeDir(os.TempDir(), os.Getuid())
		if err != nil {
			return // libwayland's line is all that is lost
		}
		os.Setenv("XDG_RUNTIME_DIR", dir)
	})
}

// privateRuntimeDir returns base/waverig-runtime-UID, created 0700 if
// missing; an existing one must be a real directory (not a link) owned by
// uid with no access for anyone else.
func privateRuntimeDir(base string, uid int) (string, error) {
	dir := filepath.Join(base, runtimeDirName(uid))
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return "", err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return "", fmt.Errorf("%s is not a directory", dir)
	case !ok || int(st.Uid) != uid:
		return "", fmt.Errorf("%s is not owned by uid %d", dir, uid)
	case fi.Mode().Perm() != 0o700:
		return "", fmt.Errorf("%s has mode %v, not 0700", dir, fi.Mode().Perm())
	}
	return dir, nil
}

func runtimeDirName(uid int) string { return fmt.Sprintf("waverig-runtime-%d", uid) }
