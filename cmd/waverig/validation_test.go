package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"waverig/devices"
	"waverig/harness/results"
)

// TestRunValidationCountsEveryProcess: `waverig run -validation` on lavapipe
// loads the layer in the run's own process and in each wave size's child,
// reports 0 messages for waverig's use of Vulkan, says so on the terminal and
// in summary.json, and exits 0. (That the layer's messages are found at all is
// devices' TestValidationLayerLogsMisuse.)
func TestRunValidationCountsEveryProcess(t *testing.T) {
	requireVulkan(t)
	out := t.TempDir()
	// A process of its own: the test binary's shared Vulkan instance is
	// already open without the layer.
	cmd := exec.Command(os.Args[0], "run", "-validation", "-api", "vulkan", "-ops", "^(WaveActiveSum|QuadReadAcrossX)$",
		"-sizes", "4,8", "-compilers", "ours", "-gen-seeds", "1", "-out", out)
	cmd.Env = append(os.Environ(), asMainEnv+"=1")
	stdout, err := cmd.CombinedOutput()
	if strings.Contains(string(stdout), "does not find") {
		t.Skipf("validation layer not installed: %s", stdout)
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	s, _ := readSummary(t, out)
	v := s.Validation
	if v == nil || !strings.HasPrefix(v.Layer, devices.ValidationLayer) {
		t.Fatalf("summary.json has no validation result: %+v", v)
	}
	// The run's process, then one child per lavapipe size (a GPU with size
	// control runs its sizes in the run's process: at least one then).
	if v.Processes < 3 && strings.Contains(s.Device, "llvmpipe") || v.Processes < 1 {
		t.Errorf("layer loaded in %d processes", v.Processes)
	}
	if v.Messages != 0 || !strings.Contains(string(stdout), "0 messages") {
		t.Errorf("validation messages %d (%v):\n%s", v.Messages, v.ByID, stdout)
	}
	if _, err := os.Stat(filepath.Join(out, results.ValidationDir)); !os.IsNotExist(err) {
		t.Errorf("a run with no message keeps no validation/ directory (%v)", err)
	}
}

// TestValidationMessagesFailTheRun: one message is exit 1, whatever the cases said.
func TestValidationMessagesFailTheRun(t *testing.T) {
	sum := results.Summary{Validation: &results.ValidationSummary{Layer: devices.ValidationLayer, Processes: 1, Messages: 1}}
	if exit, _ := judgeRun(&sum, false, false); exit != exitUnexpected || sum.ExitStatus != exitUnexpected {
		t.Fatalf("exit %d with a validation message", exit)
	}
	sum.Validation.Messages = 0
	if exit, _ := judgeRun(&sum, false, false); exit != exitOK {
		t.Fatalf("exit %d with no message", exit)
	}
}
