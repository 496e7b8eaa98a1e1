// Package icd decides which Vulkan drivers (ICDs) the loader of this process
// and of its children sees: the system's plus the ones scripts/drivers.sh
// provisioned for waverig (lavapipe from Mesa 25.0.7, SwiftShader), unless the
// user named the drivers with VK_DRIVER_FILES or VK_ICD_FILENAMES, which are
// then used exactly; and it gives each lavapipe vector width a Mesa shader
// cache of its own (shadercache.go). It has no cgo and no Vulkan: it only
// reads the drivers folder and sets the loader's and Mesa's environment before
// any Vulkan instance (the devices package's, wgpu-native's, Dawn's helper's)
// is created.
package icd

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Environment variables the Vulkan loader (1.3.207 and later: Debian 12 has
// 1.3.239) reads when an instance is created.
const (
	// DriverFilesEnv replaces the loader's ICD search: a colon list of
	// manifests (or folders of them). A driver team points the rig at its own
	// builds with it.
	DriverFilesEnv = "VK_DRIVER_FILES"
	// LegacyDriverFilesEnv is the older name of DriverFilesEnv; the loader
	// honours it when DriverFilesEnv is unset.
	LegacyDriverFilesEnv = "VK_ICD_FILENAMES"
	// AddDriverFilesEnv adds manifests to the loader's own search.
	AddDriverFilesEnv = "VK_ADD_DRIVER_FILES"
	// DirEnv overrides the drivers folder (Dir).
	DirEnv = "WAVERIG_DRIVERS"
)

// Driver is one driver scripts/drivers.sh provisioned: Dir()/icd.d/NAME.json
// and what the driver reported when setup loaded it (Dir()/NAME/identity.txt,
// vulkaninfo's key=value lines: deviceName, driverName, driverInfo,
// driverVersion, driverID, apiVersion).
type Driver struct {
	Name     string
	Manifest string
	Identity map[string]string
}

// Matches reports whether a physical device is this driver's: the same driver
// name, driver info and driver version as setup recorded. (The device name is
// left out: lavapipe's carries the vector width, which children change.)
func (d Driver) Matches(driverName, driverInfo, driverVersion string) bool {
	id := d.Identity
	return id["driverName"] != "" && id["driverName"] == driverName && id["driverInfo"] == driverInfo &&
		(id["driverVersion"] == "" || id["driverVersion"] == driverVersion)
}

// Dir is the folder scripts/drivers.sh provisions into: $WAVERIG_DRIVERS, or
// ${XDG_DATA_HOME:-$HOME/.local/share}/waverig/drivers.
func Dir() string {
	if d := os.Getenv(DirEnv); d != "" {
		return d
	}
	data := os.Getenv("XDG_DATA_HOME")
	if data == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		data = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(data, "waverig", "drivers")
}

// Provisioned lists the drivers in Dir(), by name. A manifest without its
// identity file is an error: setup writes the identity first, so such a
// folder was not made by setup (or setup was interrupted: run it again).
func Provisioned() ([]Driver, error) {
	dir := Dir()
	if dir == "" {
		return nil, nil
	}
	manifests, err := filepath.Glob(filepath.Join(dir, "icd.d", "*.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(manifests)
	var out []Driver
	for _, m := range manifests {
		name := strings.TrimSuffix(filepath.Base(m), ".json")
		id, err := readIdentity(filepath.Join(dir, name, "identity.txt"))
		if err != nil {
			return nil, fmt.Errorf("icd: driver %s (%s): %w (run scripts/setup.sh again)", name, m, err)
		}
		out = append(out, Driver{Name: name, Manifest: filepath.Clean(m), Identity: id})
	}
	return out, nil
}

func readIdentity(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	id := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			id[k] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if id["driverName"] == "" {
		return nil, fmt.Errorf("%s names no driverName", path)
	}
	return id, nil
}

// Setup is what Configure decided.
type Setup struct {
	// UserFiles is the user's VK_DRIVER_FILES (or VK_ICD_FILENAMES), used
	// exactly; "" when the user named no drivers.
	UserFiles string
	// Added are the provisioned drivers added through VK_ADD_DRIVER_FILES.
	Added []Driver
	// Active are the provisioned drivers the loader sees: Added, or those
	// whose manifest the user's list names.
	Active []Driver
	// Err is why the drivers folder could not be read (the system's drivers
	// are still used).
	Err error
	// ShaderCache is the Mesa shader cache folder of this process's
	// LP_NATIVE_VECTOR_WIDTH ("" without one: Mesa's default; shadercache.go).
	ShaderCache string
}

var (
	once  sync.Once
	setup Setup
)

// Configure sets the loader's environment for this process (and so for the
// children it starts, which inherit it) once, before the first Vulkan
// instance: a Mesa shader cache folder of this process's lavapipe vector width
// (shadercache.go), and, with neither VK_DRIVER_FILES nor VK_ICD_FILENAMES set, every
// provisioned driver's manifest is appended to VK_ADD_DRIVER_FILES (entries
// already there are kept, and a child finds its parent's and adds nothing).
// It returns what it decided; later calls return the same.
func Configure() Setup {
	once.Do(func() { setup = configure() })
	return setup
}

func configure() Setup {
	var s Setup
	s.ShaderCache = separateShaderCache()
	drivers, err := Provisioned()
	s.Err = err
	s.UserFiles = os.Getenv(DriverFilesEnv)
	if s.UserFiles == "" {
		s.UserFiles = os.Getenv(LegacyDriverFilesEnv)
	}
	if s.UserFiles != "" {
		named := splitList(s.UserFiles)
		for _, d := range drivers {
			if slices.Contains(named, d.Manifest) {
				s.Active = append(s.Active, d)
			}
		}
		return s
	}
	add := splitList(os.Getenv(AddDriverFilesEnv))
	for _, d := range drivers {
		if !slices.Contains(add, d.Manifest) {
			add = append(add, d.Manifest)
		}
		s.Added = append(s.Added, d)
	}
	s.Active = s.Added
	if len(add) > 0 {
		os.Setenv(AddDriverFilesEnv, strings.Join(add, string(os.PathListSeparator)))
	}
	return s
}

// splitList splits a colon list, cleaning each path and dropping empties.
func splitList(v string) []string {
	var out []string
	for _, p := range filepath.SplitList(v) {
		if p != "" {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

// RequireEnv, set to 1 (scripts/test.sh sets it), makes the tests of the
// provisioned drivers fail where the drivers are missing instead of skipping.
const RequireEnv = "WAVERIG_REQUIRE_DRIVERS"

// Expected are the drivers scripts/drivers.sh provisions.
var Expected = []string{"lavapipe-mesa-25.0.7", "swiftshader"}

// Missing says which Expected drivers the loader is not given ("" when it has
// them all), and why.
func Missing(s Setup) string {
	if s.UserFiles != "" {
		return DriverFilesEnv + " is set: the rig uses exactly " + s.UserFiles
	}
	var missing []string
	for _, name := range Expected {
		if !slices.ContainsFunc(s.Active, func(d Driver) bool { return d.Name == name }) {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	why := "run scripts/setup.sh"
	if s.Err != nil {
		why = s.Err.Error()
	}
	return fmt.Sprintf("waverig's drivers %s are not installed in %s (%s)", strings.Join(missing, ", "), Dir(), why)
}
