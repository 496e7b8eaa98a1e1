package devices

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	vk "github.com/vulkan-go/vulkan"

	"waverig/devices/icd"
)

// ValidationDirEnv, when set to a directory, makes every waverig process that
// opens Vulkan (the run and each of its child processes, which inherit the
// variable) enable the Khronos validation layer on its instance and log the
// layer's messages to DIR/<pid>.log. The layer is enabled on waverig's own
// instance only (not through VK_INSTANCE_LAYERS), so what it reports is about
// waverig's use of Vulkan, not wgpu-native's, which makes its own instance.
const ValidationDirEnv = "WAVERIG_VALIDATION_DIR"

// ValidationLayer is the layer ValidationDirEnv enables.
const ValidationLayer = "VK_LAYER_KHRONOS_validation"

// validationSettings are the layer's settings (vk_layer_settings.txt, found
// through VK_LAYER_SETTINGS_PATH): errors and warnings only (the layer's own
// default report flags), each logged as text to the process's own file. A
// file per process because the layer truncates its log when it opens it.
const validationSettings = `khronos_validation.report_flags = error,warn
khronos_validation.debug_action = VK_DBG_LAYER_ACTION_LOG_MSG
khronos_validation.log_filename = %s
`

// validationLayers returns the layers to enable: none unless ValidationDirEnv
// is set; then the validation layer, after writing its settings. A missing
// layer is an error, never a silent unvalidated run.
func validationLayers() ([]string, error) {
	dir := os.Getenv(ValidationDirEnv)
	if dir == "" {
		return nil, nil
	}
	addProvisionedLayers()
	if !layerInstalled(ValidationLayer) {
		return nil, fmt.Errorf("devices: %s=%s asks for %s, which the Vulkan loader does not find (on Debian: apt-get install vulkan-validationlayers)", ValidationDirEnv, dir, ValidationLayer)
	}
	pid := strconv.Itoa(os.Getpid())
	settings := filepath.Join(dir, "settings-"+pid)
	if err := os.MkdirAll(settings, 0o755); err != nil {
		return nil, fmt.Errorf("devices: validation settings: %v", err)
	}
	text := fmt.Sprintf(validationSettings, filepath.Join(dir, pid+".log"))
	if err := os.WriteFile(filepath.Join(settings, "vk_layer_settings.txt"), []byte(text), 0o644); err != nil {
		return nil, fmt.Errorf("devices: validation settings: %v", err)
	}
	// Read by the layer when the instance is created; this process makes one
	// instance, and children get their own directory from their own pid.
	os.Setenv("VK_LAYER_SETTINGS_PATH", settings)
	return []string{ValidationLayer + "\x00"}, nil
}

// addProvisionedLayers puts the layers scripts/drivers.sh provisioned (the
// validation layer chromium-common ships, newer than Debian's) first in the
// loader's search, through VK_ADD_LAYER_PATH, unless the user chose the layer
// path with VK_LAYER_PATH. Children inherit it.
func addProvisionedLayers() {
	if os.Getenv("VK_LAYER_PATH") != "" {
		return
	}
	dir := filepath.Join(icd.Dir(), "layers")
	if _, err := os.Stat(filepath.Join(dir, "VkLayer_khronos_validation.json")); err != nil {
		return
	}
	add := filepath.SplitList(os.Getenv("VK_ADD_LAYER_PATH"))
	for _, p := range add {
		if filepath.Clean(p) == dir {
			return
		}
	}
	os.Setenv("VK_ADD_LAYER_PATH", strings.Join(append([]string{dir}, add...), string(os.PathListSeparator)))
}

// layerInstalled reports whether the loader lists an instance layer.
func layerInstalled(name string) bool { return layerDescription(name) != "" }

// layerDescription is the first instance layer of a name the loader lists (the
// one it loads), as "NAME SPECVERSION (DESCRIPTION)", or "" when none.
func layerDescription(name string) string {
	var n uint32
	if vk.EnumerateInstanceLayerProperties(&n, nil) != vk.Success || n == 0 {
		return ""
	}
	props := make([]vk.LayerProperties, n)
	if res := vk.EnumerateInstanceLayerProperties(&n, props); res != vk.Success && res != vk.Incomplete {
		return ""
	}
	cstr := func(b []byte) string {
		if i := bytes.IndexByte(b, 0); i >= 0 {
			b = b[:i]
		}
		return string(b)
	}
	for _, p := range props[:n] {
		p.Deref()
		if cstr(p.LayerName[:]) == name {
			v := p.SpecVersion
			return fmt.Sprintf("%s %d.%d.%d (%s)", name, v>>22, (v>>12)&0x3ff, v&0xfff, cstr(p.Description[:]))
		}
	}
	return ""
}

// messageLine is the first line of one message in the layer's text log, in
// the format of the layers up to 2023 (Debian's 1.3.239):
// "VUID-VkBufferCreateInfo-size-00912(ERROR / SPEC): msgNum: … - Validation Error: …",
// and in today's (1.4, as Chromium ships it):
// "Validation Error: [ VUID-VkBufferCreateInfo-size-00912 ] | MessageID = 0x7c54445e".
var messageLine = regexp.MustCompile(`^(?:(\S+)\([A-Z]+[^)]*\): msgNum: |Validation [A-Za-z ]+: \[ (\S+) \])`)

// CountValidationMessages adds one log's messages to byID (by VUID, or the
// layer's UNASSIGNED-… name) and returns how many it holds.
func CountValidationMessages(path string, byID map[string]int) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if m := messageLine.FindStringSubmatch(sc.Text()); m != nil {
			byID[m[1]+m[2]]++ // one of the two groups is empty
			n++
		}
	}
	return n, sc.Err()
}

// ValidationAvailable says which validation layer a validated process loads
// ("NAME VERSION (DESCRIPTION)"), or why none can be loaded: no Vulkan, or no
// layer the loader finds.
func ValidationAvailable() (string, error) {
	if _, err := open(); err != nil {
		return "", err
	}
	addProvisionedLayers()
	d := layerDescription(ValidationLayer)
	if d == "" {
		return "", fmt.Errorf("the Vulkan loader does not find %s (on Debian: apt-get install vulkan-validationlayers)", ValidationLayer)
	}
	return d, nil
}
