package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"waverig/devices"
	"waverig/harness/webgpu"
)

// TestDevicesWebGPU: the JSON keeps the Vulkan document as devices.WriteJSON
// writes it and adds "webgpu"; the table adds a WebGPU section.
func TestDevicesWebGPU(t *testing.T) {
	requireVulkan(t)
	code, out, errs := runCLI("devices", "-json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Comment string            `json:"$comment"`
		Devices []json.RawMessage `json:"devices"`
		WebGPU  []webgpu.Adapter  `json:"webgpu"`
		Error   string            `json:"webgpuError"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	devs, _ := devices.Enumerate()
	var vk bytes.Buffer
	devices.WriteJSON(&vk, devs)
	if prefix := strings.TrimSuffix(strings.TrimSpace(vk.String()), "\n}"); !strings.HasPrefix(out, prefix) {
		t.Error("the Vulkan part of the JSON changed")
	}
	if len(doc.Devices) != len(devs) || doc.Comment == "" {
		t.Errorf("%d Vulkan devices in the JSON, %d enumerated", len(doc.Devices), len(devs))
	}
	if doc.Error == "" && len(doc.WebGPU) == 0 {
		t.Error("no WebGPU adapter and no reason")
	}
	matched := false
	for _, a := range doc.WebGPU {
		if a.Backend == "vulkan" && a.Subgroup && a.SameDevice(devs[0].Name, devs[0].VendorID, devs[0].DeviceID) {
			matched = len(a.WaveSizes) > 0
		}
	}
	if doc.Error == "" && !matched {
		t.Errorf("no probed Vulkan-backend adapter matches %q: %+v", devs[0].Name, doc.WebGPU)
	}

	code, out, _ = runCLI("devices")
	if code != 0 || !strings.Contains(out, "WebGPU adapters") || (doc.Error == "" && !strings.Contains(out, "wave sizes (measured)")) {
		t.Errorf("table: exit %d\n%s", code, out)
	}
}

func TestDevicesJSONWithoutWebGPU(t *testing.T) {
	var b bytes.Buffer
	err := writeDevicesJSON(&b, nil, nil, fmt.Errorf("%w (no adapter at all)", webgpu.ErrNoAdapter))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if string(doc["webgpu"]) != "[]" || !strings.Contains(string(doc["webgpuError"]), "no adapter at all") || string(doc["devices"]) != "[]" {
		t.Errorf("got %s", b.String())
	}
	var tb strings.Builder
	writeAdapterTable(&tb, nil, webgpu.ErrNoAdapter)
	if !strings.Contains(tb.String(), "none: webgpu: no adapter") {
		t.Errorf("table without adapters: %q", tb.String())
	}
}
