package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"waverig/devices"
	"waverig/harness/webgpu"
)

// runDevices is `waverig devices [-json]`: the Vulkan devices, then the
// WebGPU (wgpu-native) adapters with their probed wave sizes.
func runDevices(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("devices", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print JSON laid out like vulkaninfo --json, plus a \"webgpu\" array")
	pos, code, cont := parseArgs(fs, args, stdout)
	if !cont {
		return code
	}
	if !wantArgs("devices", pos, 0, 0, "waverig devices [-json]", stderr) {
		return exitUsage
	}
	devs, err := devices.Enumerate()
	if err != nil {
		fmt.Fprintf(stderr, "waverig devices: %v\n", err)
		return exitIncomplete
	}
	adapters, wgpuErr := webgpu.Adapters(true)
	if *asJSON {
		err = writeDevicesJSON(stdout, devs, adapters, wgpuErr)
	} else {
		// Which drivers the loader was given comes first: a driver team
		// pointing VK_DRIVER_FILES at its build sees it used exactly.
		fmt.Fprintf(stdout, "%s\n\n", devices.DriversLine(devices.Drivers()))
		if err = devices.WriteTable(stdout, devs); err == nil {
			err = writeAdapterTable(stdout, adapters, wgpuErr)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "waverig devices: %v\n", err)
		return 1
	}
	return 0
}

// writeDevicesJSON writes devices.WriteJSON's document unchanged with two
// keys added at its end: "webgpu", the adapters (an empty array when wgpu-native
// found none), and "webgpuError" when it failed.
func writeDevicesJSON(w io.Writer, devs []devices.Device, adapters []webgpu.Adapter, wgpuErr error) error {
	var vk bytes.Buffer
	if err := devices.WriteJSON(&vk, devs); err != nil {
		return err
	}
	doc := bytes.TrimRight(vk.Bytes(), "\n")
	if len(doc) == 0 || doc[len(doc)-1] != '}' {
		return fmt.Errorf("the Vulkan JSON is not an object")
	}
	if adapters == nil {
		adapters = []webgpu.Adapter{}
	}
	list, err := json.MarshalIndent(adapters, "  ", "  ")
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.Write(bytes.TrimRight(doc[:len(doc)-1], "\n "))
	fmt.Fprintf(&b, ",\n  \"webgpu\": %s", list)
	if wgpuErr != nil {
		msg, _ := json.Marshal(wgpuErr.Error())
		fmt.Fprintf(&b, ",\n  \"webgpuError\": %s", msg)
	}
	b.WriteString("\n}\n")
	_, err = w.Write(b.Bytes())
	return err
}

func writeAdapterTable(w io.Writer, adapters []webgpu.Adapter, wgpuErr error) error {
	var b strings.Builder
	b.WriteString("\nWebGPU adapters (wgpu-native)\n")
	if wgpuErr != nil {
		fmt.Fprintf(&b, "  none: %v\n", wgpuErr)
	}
	for _, a := range adapters {
		fmt.Fprintf(&b, "  [%d] %s (%s, %s)\n", a.Index, a.Name, a.Backend, a.AdapterType)
		fmt.Fprintf(&b, "      vendor/device: %04x:%04x", a.VendorID, a.DeviceID)
		if a.Vendor != "" {
			fmt.Fprintf(&b, " (%s)", a.Vendor)
		}
		if a.Driver != "" {
			fmt.Fprintf(&b, ", driver %s", a.Driver)
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "      subgroup: %s, subgroup in vertex: %s, shader-f16: %s, vertex-writable storage: %s\n",
			yesNo(a.Subgroup), yesNo(a.SubgroupVertex), yesNo(a.ShaderF16), yesNo(a.VertexWritableStorage))
		switch {
		case len(a.WaveSizes) > 0:
			sizes := make([]string, len(a.WaveSizes))
			for i, s := range a.WaveSizes {
				sizes[i] = fmt.Sprint(s)
			}
			fmt.Fprintf(&b, "      wave sizes (measured): %s\n", strings.Join(sizes, " "))
		case a.ProbeError != "":
			fmt.Fprintf(&b, "      wave sizes: %s\n", firstLine(a.ProbeError))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
