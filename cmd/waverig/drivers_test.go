package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"waverig/devices"
	"waverig/devices/icd"
	"waverig/harness/expect"
	"waverig/harness/pass"
	"waverig/harness/report"
	"waverig/harness/results"
)

// threeCPUDrivers are the system's lavapipe, setup's lavapipe 25.0.7 and
// SwiftShader; it skips (fails under WAVERIG_REQUIRE_DRIVERS=1) without them.
func threeCPUDrivers(t *testing.T) (all []devices.Device, lvp22, lvp25, ss devices.Device) {
	t.Helper()
	requireVulkan(t)
	if why := icd.Missing(devices.Drivers()); why != "" {
		if os.Getenv(icd.RequireEnv) == "1" {
			t.Fatalf("%s=1: %s", icd.RequireEnv, why)
		}
		t.Skip(why)
	}
	all, err := devices.Enumerate()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range all {
		switch {
		case d.Provisioned == "lavapipe-mesa-25.0.7":
			lvp25 = d
		case d.Provisioned == "swiftshader":
			ss = d
		case d.Provisioned == "" && d.DriverIDName == "VK_DRIVER_ID_MESA_LLVMPIPE" && lvp22.Name == "":
			lvp22 = d
		}
	}
	if lvp22.Name == "" || lvp25.Name == "" || ss.Name == "" {
		t.Fatalf("want three CPU drivers, have %d devices", len(all))
	}
	return all, lvp22, lvp25, ss
}

// TestDriverIdentity: the two lavapipes share name and ids; -device, the run's
// device names, and the baselines tell them apart by driver.
func TestDriverIdentity(t *testing.T) {
	all, lvp22, lvp25, ss := threeCPUDrivers(t)
	if report.DeviceIdentity(lvp22.Name) != report.DeviceIdentity(lvp25.Name) || pass.DriverString(lvp22) == pass.DriverString(lvp25) {
		t.Fatalf("identities %q / %q, drivers %q / %q", lvp22.Name, lvp25.Name, pass.DriverString(lvp22), pass.DriverString(lvp25))
	}
	for sel, want := range map[string]devices.Device{"Mesa 25": lvp25, "25.0.7": lvp25, "bpo12": lvp25, "Mesa 22.3": lvp22,
		"llvmpipe": all[0], "SwiftShader": ss, "swiftshader driver | 5.0": ss} {
		got, err := pickDevice(all, sel)
		if err != nil || got != want.Index {
			t.Errorf("-device %q: %d %v, want %d (%s)", sel, got, err, want.Index, pass.DriverString(want))
		}
	}
	if _, err := pickDevice(all, "Mesa 99"); err == nil || !strings.Contains(err.Error(), "25.0.7") {
		t.Errorf("-device \"Mesa 99\": %v (the error should list the devices)", err)
	}
	idxs, err := pickDevices(all, "Mesa 22,Mesa 25,SwiftShader")
	if err != nil || len(idxs) != 3 {
		t.Fatalf("pickDevices: %v %v", idxs, err)
	}
	names := deviceNames(all, idxs)
	if names[lvp22.Index] == names[lvp25.Index] || !strings.Contains(names[lvp25.Index], "[Mesa 25.0.7") || names[ss.Index] != ss.Name {
		t.Errorf("device names %v", names)
	}
	// Built-in baselines: each driver gets its own (lavapipe 22.3.6's is not
	// lavapipe 25's); glslang's (a compiler's) is every driver's.
	sets, err := expect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []devices.Device{lvp22, lvp25, ss} {
		var applied []string
		for _, s := range sets {
			if s.Applies(pass.DeviceString(d)) {
				applied = append(applied, s.Name)
			}
		}
		want := map[int]string{
			lvp22.Index: "builtin:glslang-12 builtin:lavapipe-mesa-22.3.6",
			lvp25.Index: "builtin:glslang-12 builtin:lavapipe-mesa-25.0.7",
			ss.Index:    "builtin:glslang-12 builtin:swiftshader-5.0.0",
		}[d.Index]
		if got := strings.Join(applied, " "); got != want {
			t.Errorf("%s: baselines %q, want %q", pass.DeviceString(d), got, want)
		}
		// waverig baseline's driver.txt of this device matches it alone.
		pat := regexp.MustCompile(driverPattern(report.DeviceIdentity(d.Name), pass.DriverString(d)))
		for _, o := range []devices.Device{lvp22, lvp25, ss} {
			if pat.MatchString(pass.DeviceString(o)) != (o.Index == d.Index) {
				t.Errorf("driver.txt %q of %s on %s: %v", pat, pass.DriverString(d), pass.DeviceString(o), !(o.Index == d.Index))
			}
		}
	}
}

// TestThreeDriversRun: one narrow run on the three CPU drivers: each device's
// records carry its driver, summary.json names them apart, the baseline of
// lavapipe 22.3.6 is applied to it alone, and `waverig diff` of the run with
// itself pairs every device with its own driver.
func TestThreeDriversRun(t *testing.T) {
	_, lvp22, lvp25, ss := threeCPUDrivers(t)
	out := t.TempDir()
	env := append(os.Environ(), asMainEnv+"=1")
	code, text := waverig(t, env, "run", "-device", "Mesa 22,Mesa 25,SwiftShader", "-api", "vulkan,webgpu", "-stages", "compute",
		"-compilers", "ours", "-sizes", "4", "-ops", "^WaveActiveSum$", "-out", out)
	if code == exitUsage || code == exitIncomplete {
		t.Fatalf("exit %d\n%s", code, text)
	}
	recs, _, err := results.ReadRunDir(out)
	if err != nil {
		t.Fatal(err)
	}
	drivers := map[int]map[string]bool{}
	webgpu := map[int]int{}
	for _, r := range recs {
		if drivers[r.DeviceIndex] == nil {
			drivers[r.DeviceIndex] = map[string]bool{}
		}
		drivers[r.DeviceIndex][r.Driver] = true
		if r.API == pass.WebGPU && r.Status != results.Skip {
			webgpu[r.DeviceIndex]++
		}
	}
	for _, d := range []devices.Device{lvp22, lvp25, ss} {
		if want := pass.DriverString(d); len(drivers[d.Index]) != 1 || !drivers[d.Index][want] {
			t.Errorf("device %d records' drivers %v, want %q", d.Index, drivers[d.Index], want)
		}
		if webgpu[d.Index] == 0 {
			t.Errorf("device %d (%s): no WebGPU case ran\n%s", d.Index, pass.DriverString(d), text)
		}
	}
	s, _ := readSummary(t, out)
	seen := map[string]bool{}
	for _, ds := range s.Devices {
		if seen[ds.Name] {
			t.Errorf("summary.json names two devices %q", ds.Name)
		}
		seen[ds.Name] = true
		lavapipe22 := ds.Index == lvp22.Index
		if strings.Contains(strings.Join(ds.Expectations, " "), "lavapipe-mesa-22.3.6") != lavapipe22 {
			t.Errorf("device %d (%s): baselines %v", ds.Index, ds.Driver, ds.Expectations)
		}
	}
	if len(s.Devices) != 3 {
		t.Errorf("summary.json has %d devices", len(s.Devices))
	}
	junit, _ := os.ReadFile(filepath.Join(out, results.JUnitFile))
	for _, want := range []string{"[Mesa 22.3.6]/vulkan/compute/ours/wave4", "[Mesa 25.0.7-2~bpo12+1]/vulkan/compute/ours/wave4", "SwiftShader Device (Subzero)/vulkan/compute/ours/wave4"} {
		if !strings.Contains(string(junit), want) {
			t.Errorf("JUnit has no suite %q", want)
		}
	}
	html, _ := os.ReadFile(filepath.Join(out, results.HTMLFile))
	if !strings.Contains(string(html), "Mesa 25.0.7") {
		t.Error("report.html does not name lavapipe 25's driver")
	}
	code, text = waverig(t, env, "diff", out, out)
	if code != exitOK || strings.Count(text, "[Mesa ") < 2 {
		t.Errorf("diff of a run with itself: exit %d\n%s", code, text)
	}
}
