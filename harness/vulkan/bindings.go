package vulkan

import "fmt"

// ModuleBinding is one buffer, sampled image or sampler an entry point of a SPIR-V module uses, as the
// module itself declares it: its DescriptorSet and Binding decorations, the
// kind its storage class and block decoration make it, and its OpName.
//
// A module the rig did not compile (an external compiler's, a hand-written
// .spvasm) is bound by these, not by any assumption about how its producer
// maps HLSL registers.
type ModuleBinding struct {
	Set, Binding uint32
	Kind         BufferKind
	// Name is the variable's OpName or, where the variable has none (glslang
	// names cbuffer instances ""), its block type's; "" in a stripped module.
	Name string
}

// Descriptor is the Vulkan descriptor type of the binding, spelled as
// reflect.Binding spells it.
func (b ModuleBinding) Descriptor() string {
	switch b.Kind {
	case Uniform:
		return "VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER"
	case SampledImage:
		return "VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE"
	case SamplerBinding:
		return "VK_DESCRIPTOR_TYPE_SAMPLER"
	}
	return "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER"
}

// Execution models by the rig's stage names ("compute", "pixel", "vertex", "task", "mesh").
var stageModels = map[string]uint32{"compute": execModelGLCompute, "pixel": execModelFragment, "vertex": execModelVertex,
	"task": execModelTaskEXT, "amplification": execModelTaskEXT, "mesh": execModelMeshEXT}

// ModuleBindings reads the buffers the entry point of a stage uses from the
// module's decorations, sorted by set and binding. A malformed module, a
// missing entry point or a resource the runner cannot bind (a storage image,
// an array of descriptors) is an error.
func ModuleBindings(words []uint32, entry, stage string) ([]ModuleBinding, error) {
	model, ok := stageModels[stage]
	if !ok {
		return nil, fmt.Errorf("vulkan: unknown stage %q", stage)
	}
	info, err := parseEntry(words, entry, model)
	if err != nil {
		return nil, fmt.Errorf("vulkan: %w", err)
	}
	out := make([]ModuleBinding, 0, len(info.used))
	for _, d := range info.used {
		if d.unsupported != "" {
			return nil, fmt.Errorf("vulkan: set %d binding %d (%s) is %s, which the rig cannot bind", d.set, d.binding, d.name, d.unsupported)
		}
		out = append(out, ModuleBinding{Set: d.set, Binding: d.binding, Kind: d.kind, Name: d.name})
	}
	return out, nil
}
