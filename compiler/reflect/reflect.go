// Package reflect describes each compiled entry point for hosts: stage,
// numthreads, wave-size and helper-lane attributes, the mesh-pipeline interface
// of amplification and mesh shaders (topology, output counts, payload size), the Vulkan subgroup features
// and device features it needs, its resource bindings, push constants,
// specialization constants and stage inputs/outputs. It reads the IR for
// everything except the subgroup bits and device features, which come from the
// capabilities and extensions the SPIR-V back end actually declared (so the
// module and the reflection cannot disagree).
package reflect

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// Reflection is the reflection of a whole compile.
type Reflection struct {
	EntryPoints []*EntryPoint `json:"entryPoints"`
}

// EntryPoint is one entry point's interface.
type EntryPoint struct {
	Name       string  `json:"name"`
	Stage      string  `json:"stage"`
	NumThreads *[3]int `json:"numthreads,omitempty"`
	// WaveSize is the [WaveSize(…)] range a compute entry point requires, nil
	// when it has none. No target encodes it in the module: a Vulkan host passes
	// it as VkPipelineShaderStageRequiredSubgroupSizeCreateInfo (and checks it
	// against minSubgroupSize/maxSubgroupSize); WebGPU and Metal cannot require one.
	WaveSize *WaveSize `json:"waveSize,omitempty"`
	// WaveOpsIncludeHelperLanes is the [WaveOpsIncludeHelperLanes] of a pixel
	// entry point: helper lanes take part in its wave and quad operations. The
	// SPIR-V module requires it (execution modes MaximallyReconvergesKHR and
	// RequireFullQuadsKHR, see VulkanFeatures); WGSL and MSL cannot (W0602, W0702).
	WaveOpsIncludeHelperLanes bool `json:"waveOpsIncludeHelperLanes,omitempty"`
	// Mesh is what a Vulkan or Metal host needs, besides the module, to build the
	// mesh pipeline of an amplification or mesh entry point; nil for other stages.
	Mesh *MeshPipeline `json:"mesh,omitempty"`
	// GroupSharedBytes is the size of the groupshared variables the entry point
	// uses, at natural sizes without padding (a lower bound of what the driver
	// allocates; hosts compare it with maxComputeSharedMemorySize).
	GroupSharedBytes int `json:"groupSharedBytes,omitempty"`
	// SubgroupOperations is the VkSubgroupFeatureFlags mask the SPIR-V module needs.
	SubgroupOperations uint32   `json:"subgroupOperations"`
	SubgroupFeatures   []string `json:"subgroupFeatures"` // names of the set bits, in bit order
	// Capabilities and Extensions declared by the SPIR-V module.
	Capabilities []string `json:"spirvCapabilities,omitempty"`
	Extensions   []string `json:"spirvExtensions,omitempty"`
	// VulkanFeatures lists the device features (Vk…Features structure.member) a
	// Vulkan device must have, and the host enable, for what the SPIR-V module
	// declares beyond the subgroup bits, sorted; see vulkanFeatureOf.
	VulkanFeatures []string `json:"vulkanFeatures,omitempty"`
	// WebGPUFeatures lists the features a WebGPU pipeline needs ("subgroups"; for wgpu-native its native feature).
	WebGPUFeatures []string `json:"webgpuFeatures,omitempty"`
	// MSLArguments is the Metal argument table ([[buffer(n)]] …), when MSL was emitted.
	MSLArguments []MSLArgument `json:"mslArguments,omitempty"`

	Bindings      []Binding      `json:"bindings"`
	PushConstants *Block         `json:"pushConstants,omitempty"`
	SpecConstants []SpecConstant `json:"specConstants,omitempty"`
	Inputs        []IOVar        `json:"inputs,omitempty"`
	Outputs       []IOVar        `json:"outputs,omitempty"`
}

// MeshPipeline describes an amplification or mesh entry point's pipeline
// interface. NumThreads is in EntryPoint, as for compute.
type MeshPipeline struct {
	// OutputTopology ("triangle" or "line"), MaxVertices and MaxPrimitives are a mesh
	// shader's [outputtopology] and the sizes of its out vertices and out indices
	// arrays (the SPIR-V OutputVertices / OutputPrimitivesEXT modes); empty and 0 for
	// an amplification shader.
	OutputTopology string `json:"outputTopology,omitempty"`
	MaxVertices    int    `json:"maxVertices,omitempty"`
	MaxPrimitives  int    `json:"maxPrimitives,omitempty"`
	// Payload names the amplification-to-mesh payload variable (the groupshared
	// struct DispatchMesh sends, or the mesh shader's in payload parameter) and
	// PayloadBytes its size counted as GroupSharedBytes is (natural sizes, no
	// padding; compare with maxTaskPayloadSize, at least 16384). Empty and 0 for a
	// mesh shader without a payload.
	Payload      string `json:"payload,omitempty"`
	PayloadBytes int    `json:"payloadBytes,omitempty"`
}

// meshFeature is the VkPhysicalDeviceMeshShaderFeaturesEXT member a stage needs.
var meshFeature = map[ir.Stage]string{
	ir.Amplification: "VkPhysicalDeviceMeshShaderFeaturesEXT.taskShader",
	ir.Mesh:          "VkPhysicalDeviceMeshShaderFeaturesEXT.meshShader",
}

// WaveSize is a required wave (subgroup) size range: [WaveSize(N)] is
// min = max = preferred = N; [WaveSize(min, max)] has no preferred size (0, omitted).
type WaveSize struct {
	Min       int `json:"min"`
	Max       int `json:"max"`
	Preferred int `json:"preferred,omitempty"`
}

// Binding is one descriptor.
type Binding struct {
	Name        string   `json:"name"`
	Register    string   `json:"register,omitempty"` // HLSL register ("t0", "u1,space2")
	Set         int      `json:"set"`
	Binding     int      `json:"binding"`
	Kind        string   `json:"kind"`                  // HLSL resource class: RWStructuredBuffer, ConstantBuffer, …
	Descriptor  string   `json:"descriptorType"`        // Vulkan descriptor type
	ElementType string   `json:"elementType,omitempty"` // structured buffers: the element; cbuffers: the block
	Stride      int      `json:"stride,omitempty"`      // bytes per element (buffers)
	Size        int      `json:"size,omitempty"`        // fixed size in bytes (cbuffers), 0 for runtime-sized
	ReadOnly    bool     `json:"readOnly"`
	Atomic      bool     `json:"atomic,omitempty"` // target of Interlocked* operations
	Members     []Member `json:"members,omitempty"`
}

// Block is a push-constant or uniform block layout.
type Block struct {
	Name    string   `json:"name"`
	Size    int      `json:"size"`
	Members []Member `json:"members"`
}

// Member is one laid-out member of a block.
type Member struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Offset int    `json:"offset"`
}

// SpecConstant is a [[vk::constant_id]] constant.
type SpecConstant struct {
	Name    string `json:"name"`
	ID      int    `json:"constantId"`
	Type    string `json:"type"`
	Default string `json:"default"`
}

// MSLArgument is one entry of the Metal argument table.
type MSLArgument struct {
	Kind    string `json:"kind"`
	Index   int    `json:"index"`
	Set     int    `json:"set"`
	Binding int    `json:"binding"`
	Name    string `json:"name"`
}

// IOVar is a stage input or output.
type IOVar struct {
	Name     string `json:"name"`
	Semantic string `json:"semantic,omitempty"`
	Builtin  string `json:"builtin,omitempty"`
	Location *int   `json:"location,omitempty"`
	Type     string `json:"type"`
}

// Line renders the one-line summary the CLI prints:
// `CSSum (Compute): Basic, Arithmetic = 0x5`, followed by the wave size an
// entry point requires: ` [WaveSize 32]`, ` [WaveSize 16..64]`, ` [WaveSize 16..64, 32]`,
// ` [WaveOpsIncludeHelperLanes]` when it has that attribute, and for the mesh
// stages their pipeline interface: ` [triangle, 64 vertices, 32 primitives; payload 132 bytes]`.
func (e *EntryPoint) Line() string {
	names := e.SubgroupFeatures
	list := "None"
	if len(names) > 0 {
		list = strings.Join(names, ", ")
	}
	s := fmt.Sprintf("%s (%s): %s = %#x", e.Name, e.Stage, list, e.SubgroupOperations)
	if w := e.WaveSize; w != nil {
		s += " [WaveSize " + (&ir.WaveSize{Min: w.Min, Max: w.Max, Preferred: w.Preferred}).String() + "]"
	}
	if e.WaveOpsIncludeHelperLanes {
		s += " [WaveOpsIncludeHelperLanes]"
	}
	if m := e.Mesh; m != nil {
		var parts []string
		if m.OutputTopology != "" {
			parts = append(parts, fmt.Sprintf("%s, %d vertices, %d primitives", m.OutputTopology, m.MaxVertices, m.MaxPrimitives))
		}
		if m.Payload != "" {
			parts = append(parts, fmt.Sprintf("payload %d bytes", m.PayloadBytes))
		}
		if len(parts) > 0 {
			s += " [" + strings.Join(parts, "; ") + "]"
		}
	}
	return s
}

// vulkanFeatureOf maps a SPIR-V capability or extension name to the Vulkan
// device feature that a module declaring it needs enabled. The subgroup
// capabilities are not here: they are the subgroup bits. SPV_KHR_maximal_reconvergence
// has no capability (only its execution mode), so its extension names it.
var vulkanFeatureOf = map[string]string{
	"QuadControlKHR":                "VkPhysicalDeviceShaderQuadControlFeaturesKHR.shaderQuadControl",
	"SPV_KHR_maximal_reconvergence": "VkPhysicalDeviceShaderMaximalReconvergenceFeaturesKHR.shaderMaximalReconvergence",
	"DemoteToHelperInvocation":      "VkPhysicalDeviceShaderDemoteToHelperInvocationFeatures.shaderDemoteToHelperInvocation",
}

// vulkanFeatures returns the device features the declared capabilities and
// extensions need, sorted, or nil.
func vulkanFeatures(caps, exts []string) []string {
	var fs []string
	for _, list := range [][]string{caps, exts} {
		for _, n := range list {
			if f, ok := vulkanFeatureOf[n]; ok {
				fs = append(fs, f)
			}
		}
	}
	sort.Strings(fs)
	return fs
}

// FeatureNames returns the names of the bits set in a VkSubgroupFeatureFlags mask.
func FeatureNames(mask uint32) []string {
	names := []string{}
	for _, b := range intrinsics.VkBitNames {
		if mask&b.Bit != 0 {
			names = append(names, b.Name)
		}
	}
	return names
}

// Build reflects one entry point of m. subgroupBits, caps and exts come from the
// SPIR-V module emitted for it.
func Build(m *ir.Module, ep *ir.EntryPoint, subgroupBits uint32, caps []string, exts []string) *EntryPoint {
	r := &EntryPoint{
		Name:               ep.Name,
		Stage:              ep.Stage.String(),
		SubgroupOperations: subgroupBits,
		SubgroupFeatures:   FeatureNames(subgroupBits),
		Capabilities:       caps,
		Extensions:         exts,
		VulkanFeatures:     vulkanFeatures(caps, exts),
		Bindings:           []Binding{},

		WaveOpsIncludeHelperLanes: ep.WaveOpsIncludeHelperLanes,
	}
	if ep.Stage.HasThreadGroups() {
		nt := ep.NumThreads
		r.NumThreads = &nt
	}
	if mi := ep.Mesh; mi != nil {
		r.Mesh = &MeshPipeline{OutputTopology: mi.Topology.String(), MaxVertices: mi.MaxVertices, MaxPrimitives: mi.MaxPrimitives}
		if g := mi.Payload; g != nil {
			r.Mesh.Payload, r.Mesh.PayloadBytes = g.Name, GroupSharedSize(g.Type)
		}
	}
	if f, ok := meshFeature[ep.Stage]; ok {
		r.VulkanFeatures = append(r.VulkanFeatures, f)
		sort.Strings(r.VulkanFeatures)
	}
	if w := ep.WaveSize; w != nil {
		r.WaveSize = &WaveSize{Min: w.Min, Max: w.Max, Preferred: w.Preferred}
		if w.Min == w.Max {
			r.WaveSize.Preferred = w.Min
		}
	}
	for _, g := range UsedGlobals(ep) {
		switch {
		case g.Binding != nil:
			r.Bindings = append(r.Bindings, binding(g))
		case g.Space == ir.SpacePushConstant:
			if st, ok := g.Type.(*ir.Struct); ok {
				r.PushConstants = &Block{Name: g.Name, Size: st.Size, Members: members(st)}
			}
		case g.Space == ir.SpaceWorkgroup:
			r.GroupSharedBytes = satAdd(r.GroupSharedBytes, GroupSharedSize(g.Type))
		case g.Spec:
			sc := SpecConstant{Name: g.Name, ID: g.SpecID, Type: g.Type.String()}
			if c, ok := g.Init.(*ir.Const); ok {
				sc.Default = ir.ConstString(c)
			}
			r.SpecConstants = append(r.SpecConstants, sc)
		}
	}
	sort.Slice(r.Bindings, func(i, j int) bool {
		a, b := r.Bindings[i], r.Bindings[j]
		if a.Set != b.Set {
			return a.Set < b.Set
		}
		return a.Binding < b.Binding
	})
	sort.Slice(r.SpecConstants, func(i, j int) bool { return r.SpecConstants[i].ID < r.SpecConstants[j].ID })
	for _, g := range ep.Inputs {
		r.Inputs = append(r.Inputs, ioVar(g))
	}
	for _, g := range ep.Outputs {
		r.Outputs = append(r.Outputs, ioVar(g))
	}
	return r
}

// UsedGlobals returns the globals referenced by code reachable from ep, in module order.
func UsedGlobals(ep *ir.EntryPoint) []*ir.Global {
	seen := map[*ir.Global]bool{}
	var order []*ir.Global
	add := func(g *ir.Global) {
		if !seen[g] {
			seen[g] = true
			order = append(order, g)
		}
	}
	for _, f := range ir.Reachable(ep.Func) {
		ir.WalkBlock(f.Body, nil, func(e ir.Expr) {
			if r, ok := e.(*ir.GlobalRef); ok {
				add(r.G)
				if r.G.Init != nil {
					ir.WalkExpr(r.G.Init, func(e ir.Expr) {
						if r2, ok := e.(*ir.GlobalRef); ok {
							add(r2.G)
						}
					})
				}
			}
		})
	}
	return order
}

func binding(g *ir.Global) Binding {
	b := Binding{Name: g.Name, Register: g.Binding.Register, Set: g.Binding.Set, Binding: g.Binding.Binding,
		Kind: g.Resource.String(), Atomic: g.Atomic}
	switch g.Resource {
	case ir.ResConstantBuffer:
		b.Descriptor, b.ReadOnly = "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER", true
	case ir.ResStructuredBuffer, ir.ResByteAddressBuffer:
		b.Descriptor, b.ReadOnly = "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", true
	case ir.ResRWStructuredBuffer, ir.ResRWByteAddressBuffer:
		b.Descriptor = "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER"
	case ir.ResTexture2D:
		b.Descriptor, b.ReadOnly = "VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE", true
	case ir.ResRWTexture2D:
		b.Descriptor = "VK_DESCRIPTOR_TYPE_STORAGE_IMAGE"
	case ir.ResSampler:
		b.Descriptor, b.ReadOnly = "VK_DESCRIPTOR_TYPE_SAMPLER", true
	}
	switch t := g.Type.(type) {
	case *ir.Array:
		b.ElementType, b.Stride = t.Elem.String(), t.Stride
		if t.Len > 0 {
			b.Size = t.Len * t.Stride
		}
		if st, ok := t.Elem.(*ir.Struct); ok {
			b.Members = members(st)
		}
	case *ir.Struct:
		b.ElementType, b.Size = t.Name, t.Size
		b.Members = members(t)
	case ir.Texture2D:
		b.ElementType = ir.VecOf(t.Elem, t.Components).String()
	}
	return b
}

// GroupSharedSize is the unpadded byte size of a groupshared value: scalars at
// their width (bool as 4 bytes, half as 2), aggregates as the sum of their
// parts (float3 is 12 bytes). It is a lower bound of what a driver allocates,
// and what the compiler holds against the 32768-byte groupshared limit (E0416),
// so that limit never refuses a kernel that fits. It saturates at math.MaxInt.
func GroupSharedSize(t ir.Type) int {
	switch t := t.(type) {
	case ir.Scalar:
		if t.Kind == ir.Bool {
			return 4
		}
		return t.Bits / 8
	case ir.Vector:
		return t.N * GroupSharedSize(t.Elem)
	case ir.Matrix:
		return t.Rows * t.Cols * GroupSharedSize(t.Elem)
	case *ir.Array:
		return satMul(GroupSharedSize(t.Elem), t.Len)
	case *ir.Struct:
		n := 0
		for _, f := range t.Fields {
			n = satAdd(n, GroupSharedSize(f.Type))
		}
		return n
	}
	return 0
}

func satAdd(a, b int) int {
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

func satMul(a, n int) int {
	if n != 0 && a > math.MaxInt/n {
		return math.MaxInt
	}
	return a * n
}

func members(st *ir.Struct) []Member {
	var ms []Member
	for _, f := range st.Fields {
		ms = append(ms, Member{Name: f.Name, Type: f.Type.String(), Offset: f.Offset})
	}
	return ms
}

func ioVar(g *ir.Global) IOVar {
	v := IOVar{Name: g.Name, Semantic: g.Semantic, Type: g.Type.String()}
	if g.Builtin != ir.BuiltinNone {
		v.Builtin = g.Builtin.String()
	} else {
		loc := g.Location
		v.Location = &loc
	}
	return v
}

// FindBinding returns the binding whose HLSL register matches reg ("u1", "t0,space1";
// "u1,space0" equals "u1"), or nil.
func (e *EntryPoint) FindBinding(reg string) *Binding {
	want := NormalizeRegister(reg)
	for i := range e.Bindings {
		if NormalizeRegister(e.Bindings[i].Register) == want {
			return &e.Bindings[i]
		}
	}
	return nil
}

// NormalizeRegister canonicalises a register spelling: lower case, no spaces, ",space0" dropped.
func NormalizeRegister(reg string) string {
	r := strings.ToLower(strings.ReplaceAll(reg, " ", ""))
	return strings.TrimSuffix(r, ",space0")
}
