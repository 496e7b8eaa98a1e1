package vulkan

import (
	"fmt"
	"strings"
	"testing"
)

func TestModuleBindings(t *testing.T) {
	// The module's own decorations, whatever produced it: params.comp puts a
	// uniform block at set 1 binding 3, which no register rule would guess.
	bs, err := ModuleBindings(compileGLSL(t, "params.comp"), "main", "compute")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range bs {
		got = append(got, fmt.Sprintf("%d:%d %s %s %s", b.Set, b.Binding, b.Kind, b.Name, b.Descriptor()))
	}
	want := "0:0 storage Data VK_DESCRIPTOR_TYPE_STORAGE_BUFFER|1:3 uniform params VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER"
	if strings.Join(got, "|") != want {
		t.Errorf("bindings %q, want %q", strings.Join(got, "|"), want)
	}
	if _, err := ModuleBindings(compileGLSL(t, "params.comp"), "main", "pixel"); err == nil || !strings.Contains(err.Error(), "not a Fragment shader") {
		t.Errorf("a compute entry asked for as a pixel one: %v", err)
	}
	if _, err := ModuleBindings(compileGLSL(t, "params.comp"), "main", "geometry"); err == nil {
		t.Error("an unknown stage was accepted")
	}
	if _, err := ModuleBindings([]uint32{1, 2}, "main", "compute"); err == nil {
		t.Error("a truncated module was accepted")
	}
}
