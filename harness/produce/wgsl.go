package produce

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"

	"waverig/harness/vulkan"
)

// WGSL declarations the binding reader understands: attributes, then a
// storage or uniform variable.
var (
	wgslVarRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`((?:@\s*\w+\s*(?:\([^)]*\))?\s*)+)var\s*<\s*(storage|uniform)\s*(?:,\s*\w+\s*)?>\s*(\w+)`)
	})
	wgslAttrRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`@\s*(group|binding)\s*\(\s*(\d+)\s*\)`) })
	wgslEntryRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`@\s*(compute|fragment|vertex)\b[^;{]*?\bfn\s+(\w+)`) })
	wgslComment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)//[^\n]*|/\*.*?\*/`) })
)

// wgslStageAttr is the WGSL attribute of each of the rig's stages.
var wgslStageAttr = map[string]string{"compute": "compute", "pixel": "fragment", "vertex": "vertex"}

// WGSLModuleBindings reads the buffers a WGSL module declares, as
// vulkan.ModuleBindings reads a SPIR-V module's, and checks that it has an
// entry point called entry for the stage. Every declared buffer counts as
// used (WGSL reflection of what an entry point reaches is wgpu's, not the
// rig's), so a job binds them all.
func WGSLModuleBindings(src, entry, stage string) ([]vulkan.ModuleBinding, error) {
	src = wgslComment().ReplaceAllString(src, " ")
	attr := wgslStageAttr[stage]
	found := false
	for _, m := range wgslEntryRE().FindAllStringSubmatch(src, -1) {
		found = found || (m[1] == attr && m[2] == entry)
	}
	if !found {
		return nil, fmt.Errorf("no @%s entry point named %q", attr, entry)
	}
	var out []vulkan.ModuleBinding
	seen := map[[2]uint32]bool{}
	for _, m := range wgslVarRE().FindAllStringSubmatch(src, -1) {
		group, binding := -1, -1
		for _, a := range wgslAttrRE().FindAllStringSubmatch(m[1], -1) {
			n, err := strconv.Atoi(a[2])
			if err != nil || n > 1<<16 {
				return nil, fmt.Errorf("var %s: @%s(%s) is out of range", m[3], a[1], a[2])
			}
			if a[1] == "group" {
				group = n
			} else {
				binding = n
			}
		}
		if group < 0 || binding < 0 {
			return nil, fmt.Errorf("var<%s> %s lacks @group or @binding", m[2], m[3])
		}
		at := [2]uint32{uint32(group), uint32(binding)}
		if seen[at] {
			return nil, fmt.Errorf("two variables at @group(%d) @binding(%d)", group, binding)
		}
		seen[at] = true
		b := vulkan.ModuleBinding{Set: at[0], Binding: at[1], Kind: vulkan.Storage, Name: m[3]}
		if m[2] == "uniform" {
			b.Kind = vulkan.Uniform
		}
		out = append(out, b)
	}
	return out, nil
}
