package devices

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"waverig/devices/icd"
)

// needDrivers skips where waverig's provisioned drivers are missing, saying
// so, and fails instead under WAVERIG_REQUIRE_DRIVERS=1 (scripts/test.sh).
func needDrivers(t *testing.T) {
	t.Helper()
	if why := icd.Missing(Drivers()); why != "" {
		if os.Getenv(icd.RequireEnv) == "1" {
			t.Fatalf("%s=1: %s", icd.RequireEnv, why)
		}
		t.Skip(why)
	}
}

// cpuDrivers are the three CPU drivers of a machine that ran scripts/setup.sh:
// the system's lavapipe and the two setup provisions, in the rig's order.
func cpuDrivers(t *testing.T) (system, lvp25, swiftshader Device) {
	t.Helper()
	ds := enumerate(t)
	needDrivers(t)
	var seen []string
	for _, d := range ds {
		seen = append(seen, d.Name+" | "+d.DriverInfo+" | "+d.Provisioned)
		switch {
		case d.Provisioned == "lavapipe-mesa-25.0.7":
			lvp25 = d
		case d.Provisioned == "swiftshader":
			swiftshader = d
		case d.Provisioned == "" && d.DriverIDName == "VK_DRIVER_ID_MESA_LLVMPIPE" && system.Name == "":
			system = d
		}
	}
	if system.Name == "" || lvp25.Name == "" || swiftshader.Name == "" {
		t.Fatalf("want the system's lavapipe, lavapipe 25.0.7 and SwiftShader; devices: %s", strings.Join(seen, "; "))
	}
	return system, lvp25, swiftshader
}

// TestProvisionedDrivers: with nothing set by the user, the loader sees the
// system's drivers and both of setup's, each told apart by its driver, and
// every system device comes before setup's (index 0 stays the system's).
func TestProvisionedDrivers(t *testing.T) {
	system, lvp25, ss := cpuDrivers(t)
	if !strings.HasPrefix(lvp25.DriverInfo, "Mesa 25.0.7") || lvp25.APIVersion < "1.4" || !lvp25.Supports(OpClustered|OpRotate) {
		t.Errorf("lavapipe 25: driver %q, Vulkan %s, ops 0x%x", lvp25.DriverInfo, lvp25.APIVersion, lvp25.SupportedOperations)
	}
	if strings.HasPrefix(system.DriverInfo, "Mesa 25.0.7") {
		t.Errorf("the system's lavapipe reports %q: the private Mesa went over the system's", system.DriverInfo)
	}
	if ss.DriverIDName != "VK_DRIVER_ID_GOOGLE_SWIFTSHADER" || ss.SubgroupSize != 4 || ss.SupportedStages&StageVertex == 0 {
		t.Errorf("SwiftShader: %s, size %d, stages 0x%x", ss.DriverIDName, ss.SubgroupSize, ss.SupportedStages)
	}
	if system.Name != lvp25.Name || system.VendorID != lvp25.VendorID || system.DeviceID != lvp25.DeviceID {
		t.Logf("the two lavapipes differ in name or ids (%q, %q): the driver is still what tells them apart", system.Name, lvp25.Name)
	}
	for _, d := range enumerate(t) {
		if d.Provisioned == "" && d.Index > min(lvp25.Index, ss.Index) {
			t.Errorf("system device %d (%s) comes after a provisioned one", d.Index, d.Name)
		}
	}
	add := os.Getenv(icd.AddDriverFilesEnv)
	for _, d := range Drivers().Active {
		if !strings.Contains(add, d.Manifest) {
			t.Errorf("%s=%q lacks %s", icd.AddDriverFilesEnv, add, d.Manifest)
		}
	}
	line := DriversLine(Drivers())
	if !strings.Contains(line, "lavapipe-mesa-25.0.7") || !strings.Contains(line, "swiftshader") {
		t.Errorf("DriversLine: %s", line)
	}
}

// TestChildSeesSameDrivers: a child process (another lavapipe width, as the
// rig's children have) inherits the loader environment and lists the same
// drivers at the same indices.
func TestChildSeesSameDrivers(t *testing.T) {
	cpuDrivers(t)
	var want []string
	for _, d := range enumerate(t) {
		want = append(want, strings.TrimSpace(d.DriverName+" "+d.DriverInfo+" "+d.Provisioned))
	}
	out := child(t, "TestHelperListDrivers", "WAVERIG_LIST_DRIVERS=1", "LP_NATIVE_VECTOR_WIDTH=128")
	got := listed(out)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the child lists\n%s\nthe parent\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(out, "128 bits") {
		t.Errorf("the child's lavapipes did not get its width:\n%s", out)
	}
}

// TestDriverFilesUsedExactly: VK_DRIVER_FILES (a driver team's own builds)
// is used as given: setup's drivers are not added, and a manifest of one of
// them named there is still recognised as it.
func TestDriverFilesUsedExactly(t *testing.T) {
	cpuDrivers(t)
	var lvp icd.Driver
	for _, d := range Drivers().Active {
		if d.Name == "lavapipe-mesa-25.0.7" {
			lvp = d
		}
	}
	env := []string{"WAVERIG_LIST_DRIVERS=1", icd.DriverFilesEnv + "=" + lvp.Manifest, icd.AddDriverFilesEnv + "="}
	got := listed(child(t, "TestHelperListDrivers", env...))
	if len(got) != 1 || !strings.Contains(got[0], "Mesa 25.0.7") || !strings.HasSuffix(got[0], " lavapipe-mesa-25.0.7") {
		t.Errorf("VK_DRIVER_FILES=%s: devices %q", lvp.Manifest, got)
	}
	// An empty drivers folder: the system's drivers only, and the line says why.
	empty := t.TempDir()
	out := child(t, "TestHelperListDrivers", "WAVERIG_LIST_DRIVERS=1", icd.DirEnv+"="+empty, icd.AddDriverFilesEnv+"=")
	for _, l := range listed(out) {
		if strings.Contains(l, "25.0.7") || strings.Contains(l, "SwiftShader") {
			t.Errorf("with %s=%s the child still lists %s", icd.DirEnv, empty, l)
		}
	}
	if !strings.Contains(out, "none installed in "+empty) {
		t.Errorf("the drivers line does not say none are installed:\n%s", out)
	}
}

// TestBrokenDriversFolder: a manifest without the identity setup writes is
// reported, not guessed at.
func TestBrokenDriversFolder(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "icd.d"), 0o755)
	os.WriteFile(filepath.Join(dir, "icd.d", "x.json"), []byte("{}"), 0o644)
	t.Setenv(icd.DirEnv, dir)
	if _, err := icd.Provisioned(); err == nil || !strings.Contains(err.Error(), "setup.sh") {
		t.Errorf("Provisioned: %v", err)
	}
}

func listed(out string) []string {
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(l), "drivers_test.go"); ok {
			if _, rest, ok := strings.Cut(s, "device: "); ok {
				got = append(got, strings.TrimSpace(rest))
			}
		}
	}
	return got
}

// TestHelperListDrivers is the child of the tests above.
func TestHelperListDrivers(t *testing.T) {
	if os.Getenv("WAVERIG_LIST_DRIVERS") == "" {
		t.Skip("run by TestChildSeesSameDrivers and TestDriverFilesUsedExactly")
	}
	t.Log(DriversLine(Drivers()))
	for _, d := range enumerate(t) {
		t.Logf("device: %s", d.DriverName+" "+d.DriverInfo+" "+d.Provisioned)
		if strings.Contains(d.Name, "bits)") {
			t.Logf("name: %s", d.Name)
		}
	}
}

// TestMeshShaderCaps: VK_EXT_mesh_shader as the three CPU drivers report it.
// lavapipe 25.0.7 has the extension, both features, wave operations in both
// stages (0xf0: fragment, compute, task, mesh) and required sizes in
// fragment and compute only; Debian's lavapipe 22.3.6 and SwiftShader have no
// extension, and then nothing else of it is reported. The table line and the
// profile JSON carry what was read.
func TestMeshShaderCaps(t *testing.T) {
	system, lvp25, ss := cpuDrivers(t)
	m := lvp25.Mesh
	if !m.Extension || !m.TaskShader || !m.MeshShader {
		t.Fatalf("lavapipe 25: mesh shader %+v", m)
	}
	if lvp25.SupportedStages&(StageTask|StageMesh) != StageTask|StageMesh {
		t.Errorf("lavapipe 25: supported stages 0x%x lack task or mesh", lvp25.SupportedStages)
	}
	if lvp25.SizeControl.RequiredSubgroupSizeStages&(StageTask|StageMesh) != 0 {
		t.Errorf("lavapipe 25: requiredSubgroupSizeStages 0x%x names task or mesh", lvp25.SizeControl.RequiredSubgroupSizeStages)
	}
	// The spec's minimums (Vulkan, "Required Limits", VK_EXT_mesh_shader).
	if m.MaxTaskWorkGroupInvocations < 128 || m.MaxMeshWorkGroupInvocations < 128 || m.MaxTaskPayloadSize < 16384 ||
		m.MaxMeshOutputVertices < 256 || m.MaxMeshOutputPrimitives < 256 || m.MaxPreferredTaskWorkGroupInvocations == 0 {
		t.Errorf("lavapipe 25: limits below the spec's minimums: %+v", m)
	}
	for _, d := range []Device{system, ss} {
		if d.Mesh != (MeshShader{}) || d.Extensions[MeshExtension] {
			t.Errorf("%s (%s): mesh shader %+v", d.Name, d.DriverInfo, d.Mesh)
		}
	}
	var table, js strings.Builder
	if err := WriteTable(&table, []Device{lvp25, ss}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mesh shaders            task yes, mesh yes", "mesh shaders            no (VK_EXT_mesh_shader absent)"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	if err := WriteJSON(&js, []Device{lvp25, ss}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(js.String(), `"VkPhysicalDeviceMeshShaderFeaturesEXT"`); n != 1 {
		t.Errorf("JSON names the mesh features struct %d times, want once (lavapipe 25 only)", n)
	}
	if !strings.Contains(js.String(), `"maxPreferredTaskWorkGroupInvocations"`) {
		t.Errorf("JSON lacks the mesh properties")
	}
}
