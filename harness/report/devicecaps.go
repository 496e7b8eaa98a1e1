package report

// The report's capability matrix, read from devices.json (`waverig devices
// -json`: vulkaninfo's structure and field names, masks as numbers and as
// lists of flag names). The report reads the document, not the devices
// package, so that it stays free of cgo and of the Vulkan loader, and reads a
// devices.json written by another waverig version or by hand as well as it can.

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// deviceCaps is one device's part of the page.
type deviceCaps struct {
	Index            int
	Name, Type       string
	API              string
	DriverName       string
	DriverInfo       string
	DriverID         string
	DriverVersion    string
	Conformance      string
	SubgroupSize     uint32
	MinSize, MaxSize uint32 // 0: no VK_EXT_subgroup_size_control
	RequiredStages   []string
	QuadAllStages    bool
	Ops              []capOp    // the matrix's columns
	Stages           []capStage // its rows
	Extensions       []string   // subgroup-related, "name (spec version)"
	ExtensionCount   int
	Features         []capFeature
}

type capOp struct{ Short, Flag string }

type capStage struct {
	Short, Flag string
	Supported   bool
	Cells       []capCell
}

type capCell struct {
	OK    bool
	Title string
}

type capFeature struct {
	Name string
	On   bool
}

type webgpuAdapter struct {
	Index                 int      `json:"index"`
	Name                  string   `json:"name"`
	Backend               string   `json:"backend"`
	Driver                string   `json:"driver"`
	AdapterType           string   `json:"adapterType"`
	Subgroup              bool     `json:"subgroup"`
	SubgroupVertex        bool     `json:"subgroupVertex"`
	ShaderF16             bool     `json:"shaderF16"`
	VertexWritableStorage bool     `json:"vertexWritableStorage"`
	WaveSizes             []uint32 `json:"waveSizes"`
	ProbeError            string   `json:"probeError"`
}

// The flags of VkSubgroupFeatureFlagBits and of the shader stages, in the
// order the matrix shows them, with their bit values (a document with masks
// and no names still reads).
var subgroupOps = []struct {
	Bit         uint64
	Flag, Short string
}{
	{0x1, "VK_SUBGROUP_FEATURE_BASIC_BIT", "basic"},
	{0x2, "VK_SUBGROUP_FEATURE_VOTE_BIT", "vote"},
	{0x4, "VK_SUBGROUP_FEATURE_ARITHMETIC_BIT", "arithmetic"},
	{0x8, "VK_SUBGROUP_FEATURE_BALLOT_BIT", "ballot"},
	{0x10, "VK_SUBGROUP_FEATURE_SHUFFLE_BIT", "shuffle"},
	{0x20, "VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT", "shuffle relative"},
	{0x40, "VK_SUBGROUP_FEATURE_CLUSTERED_BIT", "clustered"},
	{0x80, "VK_SUBGROUP_FEATURE_QUAD_BIT", "quad"},
	{0x100, "VK_SUBGROUP_FEATURE_PARTITIONED_BIT_NV", "partitioned (NV)"},
	{0x200, "VK_SUBGROUP_FEATURE_ROTATE_BIT_KHR", "rotate"},
	{0x400, "VK_SUBGROUP_FEATURE_ROTATE_CLUSTERED_BIT_KHR", "rotate clustered"},
}

var shaderStages = []struct {
	Bit         uint64
	Flag, Short string
	Always      bool // a row even when unsupported: the stages waverig runs
}{
	{0x20, "VK_SHADER_STAGE_COMPUTE_BIT", "compute", true},
	{0x10, "VK_SHADER_STAGE_FRAGMENT_BIT", "fragment (pixel)", true},
	{0x1, "VK_SHADER_STAGE_VERTEX_BIT", "vertex", true},
	{0x2, "VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT", "tessellation control", false},
	{0x4, "VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT", "tessellation evaluation", false},
	{0x8, "VK_SHADER_STAGE_GEOMETRY_BIT", "geometry", false},
	{0x40, "VK_SHADER_STAGE_TASK_BIT_EXT", "task", true},
	{0x80, "VK_SHADER_STAGE_MESH_BIT_EXT", "mesh", true},
	{0x100, "VK_SHADER_STAGE_RAYGEN_BIT_KHR", "ray generation", false},
	{0x200, "VK_SHADER_STAGE_ANY_HIT_BIT_KHR", "any hit", false},
	{0x400, "VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR", "closest hit", false},
	{0x800, "VK_SHADER_STAGE_MISS_BIT_KHR", "miss", false},
	{0x1000, "VK_SHADER_STAGE_INTERSECTION_BIT_KHR", "intersection", false},
	{0x2000, "VK_SHADER_STAGE_CALLABLE_BIT_KHR", "callable", false},
}

// subgroupRelated picks the extensions a wave-intrinsics report cares about.
func subgroupRelated(ext string) bool {
	e := strings.ToLower(ext)
	for _, s := range []string{"subgroup", "quad", "reconvergence", "mesh_shader", "float16_int8", "shader_float_controls", "16bit_storage", "8bit_storage", "vulkan_memory_model"} {
		if strings.Contains(e, s) {
			return true
		}
	}
	return false
}

type devicesDoc struct {
	Devices []struct {
		Index        int `json:"index"`
		Capabilities struct {
			Device struct {
				Extensions map[string]uint32                     `json:"extensions"`
				Features   map[string]map[string]any             `json:"features"`
				Properties map[string]map[string]json.RawMessage `json:"properties"`
			} `json:"device"`
		} `json:"capabilities"`
	} `json:"devices"`
	WebGPU      []webgpuAdapter `json:"webgpu"`
	WebGPUError string          `json:"webgpuError"`
}

// parseDevices reads devices.json; note says why there is no matrix (absent,
// unreadable) and is "" when there is one.
func parseDevices(raw json.RawMessage) (caps []deviceCaps, wgpu []webgpuAdapter, wgpuErr, note string) {
	if len(raw) == 0 {
		return nil, nil, "", "No devices.json in the run directory (a run before it was written, or a report of results.jsonl alone): the device's capabilities are not known to this page; `waverig devices -json` prints them."
	}
	var doc devicesDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, nil, "", "devices.json could not be read: " + err.Error()
	}
	for _, dv := range doc.Devices {
		props := dv.Capabilities.Device.Properties
		c := deviceCaps{Index: dv.Index}
		get := func(s, f string, v any) bool {
			m, ok := props[s][f]
			return ok && json.Unmarshal(m, v) == nil
		}
		const pp, sp, sc, dp = "VkPhysicalDeviceProperties", "VkPhysicalDeviceSubgroupProperties",
			"VkPhysicalDeviceSubgroupSizeControlProperties", "VkPhysicalDeviceDriverProperties"
		get(pp, "deviceName", &c.Name)
		get(pp, "deviceType", &c.Type)
		c.Type = strings.TrimPrefix(c.Type, "VK_PHYSICAL_DEVICE_TYPE_")
		get(pp, "apiVersion", &c.API)
		get(pp, "driverVersionText", &c.DriverVersion)
		get(dp, "driverName", &c.DriverName)
		get(dp, "driverInfo", &c.DriverInfo)
		get(dp, "driverID", &c.DriverID)
		get(dp, "conformanceVersion", &c.Conformance)
		get(sp, "subgroupSize", &c.SubgroupSize)
		get(sp, "quadOperationsInAllStages", &c.QuadAllStages)
		get(sc, "minSubgroupSize", &c.MinSize)
		get(sc, "maxSubgroupSize", &c.MaxSize)
		var reqStages []string
		get(sc, "requiredSubgroupSizeStages", &reqStages)
		for _, s := range reqStages {
			c.RequiredStages = append(c.RequiredStages, shortStage(s))
		}
		ops := flagSet(props[sp], "supportedOperations", "supportedOperationsMask", opBits())
		stages := flagSet(props[sp], "supportedStages", "supportedStagesMask", stageBits())
		for _, o := range subgroupOps {
			c.Ops = append(c.Ops, capOp{Short: o.Short, Flag: o.Flag})
		}
		for _, st := range shaderStages {
			if !st.Always && !stages[st.Flag] {
				continue
			}
			row := capStage{Short: st.Short, Flag: st.Flag, Supported: stages[st.Flag]}
			for _, o := range subgroupOps {
				cell := capCell{OK: row.Supported && ops[o.Flag]}
				switch {
				case !row.Supported:
					cell.Title = st.Flag + " is not in supportedStages"
				case !ops[o.Flag]:
					cell.Title = o.Flag + " is not in supportedOperations"
				default:
					cell.Title = o.Flag + " in " + st.Flag
				}
				// Quad operations outside compute and fragment need
				// quadOperationsInAllStages.
				if cell.OK && o.Flag == "VK_SUBGROUP_FEATURE_QUAD_BIT" && !c.QuadAllStages &&
					st.Flag != "VK_SHADER_STAGE_COMPUTE_BIT" && st.Flag != "VK_SHADER_STAGE_FRAGMENT_BIT" {
					cell = capCell{Title: "quad operations only in compute and fragment: quadOperationsInAllStages is false"}
				}
				row.Cells = append(row.Cells, cell)
			}
			c.Stages = append(c.Stages, row)
		}
		exts := dv.Capabilities.Device.Extensions
		c.ExtensionCount = len(exts)
		for name, v := range exts {
			if subgroupRelated(name) {
				c.Extensions = append(c.Extensions, fmt.Sprintf("%s (%d)", name, v))
			}
		}
		sort.Strings(c.Extensions)
		for s, fs := range dv.Capabilities.Device.Features {
			for f, v := range fs {
				if b, ok := v.(bool); ok && featureRelated(s, f) {
					c.Features = append(c.Features, capFeature{f, b})
				}
			}
		}
		sort.Slice(c.Features, func(i, j int) bool { return c.Features[i].Name < c.Features[j].Name })
		caps = append(caps, c)
	}
	return caps, doc.WebGPU, doc.WebGPUError, ""
}

// featureRelated: every feature waverig's devices.json lists is one the rig
// checks, except those of VkPhysicalDeviceFeatures that are not about shaders.
func featureRelated(structure, field string) bool {
	return structure != "VkPhysicalDeviceFeatures" || strings.HasPrefix(field, "shader") || strings.HasSuffix(field, "StoresAndAtomics")
}

// flagSet is the set of flag names a property gives, from its list of names
// and its mask both (either may be missing).
func flagSet(props map[string]json.RawMessage, namesField, maskField string, bits map[uint64]string) map[string]bool {
	set := map[string]bool{}
	var names []string
	if m, ok := props[namesField]; ok && json.Unmarshal(m, &names) == nil {
		for _, n := range names {
			set[n] = true
		}
	}
	var mask uint64
	if m, ok := props[maskField]; ok && json.Unmarshal(m, &mask) == nil {
		for b, n := range bits {
			if mask&b != 0 {
				set[n] = true
			}
		}
	}
	return set
}

func opBits() map[uint64]string {
	m := map[uint64]string{}
	for _, o := range subgroupOps {
		m[o.Bit] = o.Flag
	}
	return m
}

func stageBits() map[uint64]string {
	m := map[uint64]string{}
	for _, s := range shaderStages {
		m[s.Bit] = s.Flag
	}
	return m
}

func shortStage(flag string) string {
	for _, s := range shaderStages {
		if s.Flag == flag {
			return s.Short
		}
	}
	return flag
}
