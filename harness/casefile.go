package harness

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"waverig/compiler"
	"waverig/compiler/reflect"
	"waverig/harness/vulkan"
)

// CaseFile is the JSON format of `waverig exec`: one compute kernel, its buffers
// and the values expected after one dispatch. Unknown keys are an error.
type CaseFile struct {
	Shader       string            `json:"shader"` // relative to the case file
	Entry        string            `json:"entry"`
	Defines      map[string]string `json:"defines,omitempty"`
	Dispatch     [3]uint32         `json:"dispatch"`
	SubgroupSize uint32            `json:"subgroup_size,omitempty"`
	Buffers      []CaseBuffer      `json:"buffers"`

	dir string
}

// CaseBuffer is one buffer of a case file.
type CaseBuffer struct {
	Binding   string            `json:"binding"` // HLSL register: "t0", "u1,space1", "b0"
	Format    string            `json:"format"`  // uint32, int32, float32
	Data      []json.RawMessage `json:"data,omitempty"`
	Count     int               `json:"count,omitempty"`
	Expect    []json.RawMessage `json:"expect,omitempty"`
	Tolerance *float64          `json:"tolerance,omitempty"`
}

// CaseError is a bad case file or a shader that does not compile (exit status 2).
type CaseError struct{ Msg string }

func (e *CaseError) Error() string { return e.Msg }

// Mismatch is one expectation that did not hold.
type Mismatch struct {
	Buffer   string
	Index    int
	Expected string
	Actual   string
}

// LoadCaseFile reads and validates a case file.
func LoadCaseFile(path string) (*CaseFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &CaseError{fmt.Sprintf("cannot read case file: %v", err)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c CaseFile
	if err := dec.Decode(&c); err != nil {
		return nil, &CaseError{fmt.Sprintf("%s: %v", path, err)}
	}
	if dec.More() {
		return nil, &CaseError{fmt.Sprintf("%s: trailing data after the case object", path)}
	}
	c.dir = filepath.Dir(path)
	if c.Shader == "" || c.Entry == "" {
		return nil, &CaseError{fmt.Sprintf("%s: \"shader\" and \"entry\" are required", path)}
	}
	for i, d := range c.Dispatch {
		if d == 0 {
			return nil, &CaseError{fmt.Sprintf("%s: dispatch[%d] is 0 (each dimension must be at least 1)", path, i)}
		}
	}
	for i, b := range c.Buffers {
		switch b.Format {
		case "uint32", "int32", "float32":
		default:
			return nil, &CaseError{fmt.Sprintf("%s: buffers[%d]: format %q (use uint32, int32 or float32)", path, i, b.Format)}
		}
		if !registerRE().MatchString(reflect.NormalizeRegister(b.Binding)) {
			return nil, &CaseError{fmt.Sprintf("%s: buffers[%d]: binding %q is not an HLSL register like t0, u1 or b0,space1", path, i, b.Binding)}
		}
		if len(b.Data) == 0 && b.Count == 0 {
			return nil, &CaseError{fmt.Sprintf("%s: buffers[%d]: give \"data\" or \"count\"", path, i)}
		}
	}
	return &c, nil
}

// encode turns the JSON values of a buffer into little-endian 32-bit words.
func encodeValues(format string, vals []json.RawMessage) ([]byte, error) {
	out := make([]byte, 4*len(vals))
	for i, v := range vals {
		w, err := word(format, v)
		if err != nil {
			return nil, fmt.Errorf("value %d (%s): %v", i, v, err)
		}
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
	return out, nil
}

func word(format string, v json.RawMessage) (uint32, error) {
	var f float64
	if err := json.Unmarshal(v, &f); err != nil {
		return 0, fmt.Errorf("not a number")
	}
	switch format {
	case "uint32":
		if f < 0 || f > math.MaxUint32 || f != math.Trunc(f) {
			return 0, fmt.Errorf("not a uint32")
		}
		return uint32(f), nil
	case "int32":
		if f < math.MinInt32 || f > math.MaxInt32 || f != math.Trunc(f) {
			return 0, fmt.Errorf("not an int32")
		}
		return uint32(int32(f)), nil
	}
	return math.Float32bits(float32(f)), nil
}

func formatWord(format string, w uint32) string {
	switch format {
	case "int32":
		return fmt.Sprint(int32(w))
	case "float32":
		return fmt.Sprint(math.Float32frombits(w))
	}
	return fmt.Sprint(w)
}

// ExecCase compiles the case's shader (compiler "ours" or "glslang"), runs it on
// the rig's device and returns every mismatch (nil when all expectations hold).
func (r *Rig) ExecCase(c *CaseFile, comp string) ([]Mismatch, error) {
	shaderPath := filepath.Join(c.dir, c.Shader)
	src, err := os.ReadFile(shaderPath)
	if err != nil {
		return nil, &CaseError{fmt.Sprintf("cannot read shader: %v", err)}
	}
	var mod *compiled
	switch comp {
	case "", Ours:
		res, err := compiler.CompileFile(shaderPath, compiler.Options{Entry: c.Entry, Stage: "compute", Defines: c.Defines, AutoBindings: true})
		if err != nil {
			return nil, &CaseError{fmt.Sprintf("shader does not compile:\n%s", res.Render())}
		}
		mod = fromResult(res, err, c.Entry)
	case Glslang:
		text := string(src)
		var defs []string
		for k, v := range c.Defines {
			defs = append(defs, fmt.Sprintf("#define %s %s\n", k, v))
		}
		mod = compileGlslangText(strings.Join(defs, "")+text, c.Entry, registersOf(c))
		if mod.err != nil {
			return nil, &CaseError{mod.err.Error()}
		}
		if mod.skip != "" {
			return nil, &CaseError{mod.skip}
		}
	default:
		return nil, &CaseError{fmt.Sprintf("unknown compiler %q (use ours or glslang)", comp)}
	}
	if why, err := validateSPIRV(mod.spirv, r.cfg.RequireTools); err != nil {
		return nil, err
	} else if why != "" {
		return nil, &CaseError{why}
	}
	job := vulkan.Job{SPIRV: mod.spirv, Entry: c.Entry, Groups: c.Dispatch}
	if c.SubgroupSize != 0 && c.SubgroupSize != r.dev.SubgroupSize {
		legal := false
		for _, s := range r.dev.LegalSubgroupSizes() {
			legal = legal || s == c.SubgroupSize
		}
		if !legal {
			return nil, skipError(fmt.Sprintf("subgroup_size %d is not legal on %s (legal: %v)", c.SubgroupSize, r.dev.Name, r.dev.LegalSubgroupSizes()))
		}
		job.RequiredSubgroupSize = c.SubgroupSize
	}
	var order []int
	for i, b := range c.Buffers {
		bd, ok := mod.bindings[reflect.NormalizeRegister(b.Binding)]
		if !ok {
			return nil, &CaseError{fmt.Sprintf("buffers[%d]: the shader has no resource at register %s", i, b.Binding)}
		}
		data, err := encodeValues(b.Format, b.Data)
		if err != nil {
			return nil, &CaseError{fmt.Sprintf("buffers[%d]: %v", i, err)}
		}
		if n := 4 * b.Count; n > len(data) {
			data = append(data, make([]byte, n-len(data))...)
		}
		if len(b.Expect)*4 > len(data) {
			return nil, &CaseError{fmt.Sprintf("buffers[%d]: %d expected values but the buffer holds only %d", i, len(b.Expect), len(data)/4)}
		}
		kind := vulkan.Storage
		if strings.HasPrefix(bd.Descriptor, "VK_DESCRIPTOR_TYPE_UNIFORM") {
			kind = vulkan.Uniform
		}
		job.Buffers = append(job.Buffers, vulkan.Buffer{Set: uint32(bd.Set), Binding: uint32(bd.Binding), Kind: kind, Data: data})
		order = append(order, i)
	}
	res, err := r.runner.Run(job)
	if err != nil {
		return nil, err
	}
	var mism []Mismatch
	for j, i := range order {
		b := c.Buffers[i]
		got := res.Buffers[j]
		for k, ev := range b.Expect {
			want, err := word(b.Format, ev)
			if err != nil {
				return nil, &CaseError{fmt.Sprintf("buffers[%d].expect[%d]: %v", i, k, err)}
			}
			have := binary.LittleEndian.Uint32(got[4*k:])
			if !wordsMatch(b.Format, want, have, b.Tolerance) {
				mism = append(mism, Mismatch{Buffer: b.Binding, Index: k, Expected: formatWord(b.Format, want), Actual: formatWord(b.Format, have)})
			}
		}
	}
	return mism, nil
}

func wordsMatch(format string, want, have uint32, tol *float64) bool {
	if format != "float32" || tol == nil {
		if format == "float32" && tol == nil {
			// Exact comparison of values (so -0 == +0), not of bit patterns.
			return math.Float32frombits(want) == math.Float32frombits(have)
		}
		return want == have
	}
	return math.Abs(float64(math.Float32frombits(want))-float64(math.Float32frombits(have))) <= *tol
}

func registersOf(c *CaseFile) []string {
	var regs []string
	for _, b := range c.Buffers {
		regs = append(regs, b.Binding)
	}
	return regs
}
