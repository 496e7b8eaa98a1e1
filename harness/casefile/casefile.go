// Package casefile is the case-file format of `waverig exec`: one compute
// kernel (an HLSL shader, or a SPIR-V or WGSL module), its buffers and the
// values expected after one dispatch. It reads and validates case files
// (Load), compares what a device wrote with the expectations (Mismatches)
// and writes case files (Marshal) for every repro bundle. Running a case on a
// device is the rig's (pass.Rig.ExecCase); this package needs no device.
package casefile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"waverig/compiler"
	"waverig/compiler/reflect"
	"waverig/devices/vkx"
	"waverig/internal/fsutil"
)

// Size caps of `waverig exec`, checked before anything is allocated for a case.
// The device's own limits (maxStorageBufferRange, maxUniformBufferRange, …)
// are checked by pass.Rig.ExecCase once the shader says which buffer is which.
const (
	MaxFileBytes   = 16 << 20                // the case file (as README says; a repro bundle's case.json of the largest kernel is ~8 MiB)
	MaxShaderBytes = compiler.MaxSourceBytes // the shader and each file it #includes (the compiler's rule)
	MaxBufferBytes = 256 << 20               // the buffers of one case, all together
)

// Case is the JSON format of `waverig exec`: one compute kernel, its buffers
// and the values expected after one dispatch. Unknown keys are an error.
type Case struct {
	Shader       string            `json:"shader"` // relative to the case file
	Entry        string            `json:"entry"`
	Defines      map[string]string `json:"defines,omitempty"`
	Dispatch     [3]uint32         `json:"dispatch"`
	SubgroupSize uint32            `json:"subgroup_size,omitempty"`
	// Extensions are SPIR-V extensions waverig's compiler enables
	// (-fspv-extension), as the rig compiles the kernels that test one
	// (partitions, native quad votes); glslang and WGSL ignore them.
	Extensions []string `json:"extensions,omitempty"`
	Buffers    []Buffer `json:"buffers"`

	path string // the case file, for messages
	dir  string
	src  []byte // the shader, read by Load
}

// Buffer is one buffer of a case file.
type Buffer struct {
	Binding string            `json:"binding"` // HLSL register: "t0", "u1,space1", "b0"
	Format  string            `json:"format"`  // uint32, int32, float32
	Data    []json.RawMessage `json:"data,omitempty"`
	Count   int               `json:"count,omitempty"`
	// Expect holds the values the first len(Expect) words must have after the
	// dispatch; null is "any value" (the word is not compared), for words a
	// correct device may leave as it likes (a repro bundle's undefined lanes).
	Expect    []json.RawMessage `json:"expect,omitempty"`
	Tolerance *float64          `json:"tolerance,omitempty"`
	// Record names the words of a fixed-size record that repeats through the
	// buffer (a kernel's per-invocation record); mismatches then say which
	// record and which word ("record 51 out0"), nothing else changes.
	Record []string `json:"record,omitempty"`

	size     int      // bytes: 4 × max(len(Data), Count)
	expect   []uint32 // Expect as words
	anyValue []bool   // anyValue[k]: Expect[k] is null (nil when none is)
}

// Error is a bad case file or a shader that does not compile (exit status 2).
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Skip says the case cannot run here: it exceeds a limit the device
// reports, asks for a subgroup size the device does not offer, or needs a
// tool that is not installed. waverig exec prints "skip: " and the reason and
// exits 0.
type Skip struct{ Reason string }

func (e *Skip) Error() string { return e.Reason }

// Mismatch is one expectation that did not hold.
type Mismatch struct {
	Buffer   string
	Index    int
	Expected string
	Actual   string
	// Where is the word's place in the buffer's record ("record 51 out0")
	// when the buffer names its record's words, else "".
	Where string
}

// String is exec's line for a mismatch: "u0[1240] (record 51 out0): expected
// 7, actual 9".
func (m Mismatch) String() string {
	at := fmt.Sprintf("%s[%d]", m.Buffer, m.Index)
	if m.Where != "" {
		at += " (" + m.Where + ")"
	}
	return fmt.Sprintf("%s: expected %s, actual %s", at, m.Expected, m.Actual)
}

// registerRE is an HLSL register as case files name it (any number; glslang's
// map, checked when -compiler glslang is used, allows fewer). Compiled on first
// use, not at start-up.
var registerRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[btus]\d+(?:,space\d+)?$`) })

// Load reads and validates a case file and reads its shader. Every
// problem with either is a *Error; nothing is allocated beyond the size
// caps (MaxFileBytes, MaxShaderBytes, MaxBufferBytes).
func Load(path string) (*Case, error) {
	data, err := fsutil.ReadRegular(path, MaxFileBytes)
	if err != nil {
		return nil, &Error{fmt.Sprintf("cannot read case file: %v", err)}
	}
	c, err := parse(path, data)
	if err != nil {
		return nil, err
	}
	c.src, err = compiler.ReadSource(filepath.Join(c.dir, c.Shader))
	if err != nil {
		return nil, &Error{fmt.Sprintf("%s: cannot read shader: %v", path, err)}
	}
	return c, nil
}

// parse decodes and validates the JSON of a case file.
func parse(path string, data []byte) (*Case, error) {
	bad := func(format string, args ...any) error {
		return &Error{path + ": " + fmt.Sprintf(format, args...)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Case
	if err := dec.Decode(&c); err != nil {
		return nil, bad("%v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad("trailing data after the case object")
	}
	c.path, c.dir = path, filepath.Dir(path)
	if err := c.Check(); err != nil {
		return nil, err
	}
	return &c, nil
}

// Check validates the decoded case and fills in each buffer's size and
// expected words.
func (c *Case) Check() error {
	if c.Shader == "" || c.Entry == "" {
		return c.Errorf(`"shader" and "entry" are required`)
	}
	for i, d := range c.Dispatch {
		if d == 0 {
			return c.Errorf("dispatch[%d] is 0 (each dimension must be at least 1)", i)
		}
	}
	if s := c.SubgroupSize; s != 0 && (s > 128 || s&(s-1) != 0) {
		return c.Errorf("subgroup_size %d: Vulkan subgroup sizes are powers of two from 1 to 128 (0 = the device default)", s)
	}
	if len(c.Buffers) > vkx.MaxBuffers {
		return c.Errorf("%d buffers, at most %d", len(c.Buffers), vkx.MaxBuffers)
	}
	if err := c.checkModuleCase(); err != nil {
		return err
	}
	seen := map[string]int{}
	total := 0
	for i := range c.Buffers {
		b := &c.Buffers[i]
		if err := checkBuffer(b, total, ShaderKind(c.Shader) != ShaderHLSL); err != nil {
			return c.Errorf("buffers[%d]: %v", i, err)
		}
		reg := reflect.NormalizeRegister(b.Binding)
		if j, dup := seen[reg]; dup {
			return c.Errorf("buffers[%d] and buffers[%d] both bind %s %s", j, i, c.BindingWord(), b.Binding)
		}
		seen[reg] = i
		total += b.size
	}
	return nil
}

// Errorf is a *Error naming the case file.
func (c *Case) Errorf(format string, args ...any) error {
	name := c.path
	if name == "" {
		name = "case"
	}
	return &Error{name + ": " + fmt.Sprintf(format, args...)}
}

// checkBuffer validates one buffer of a case whose earlier buffers take
// before bytes, and fills in its size and expected words. A module shader's
// buffers name "SET:BINDING", an HLSL shader's a register.
func checkBuffer(b *Buffer, before int, moduleShader bool) error {
	switch b.Format {
	case "uint32", "int32", "float32":
	default:
		return fmt.Errorf("format %q (use uint32, int32 or float32)", b.Format)
	}
	switch {
	case moduleShader && !moduleBindingRE().MatchString(b.Binding):
		return fmt.Errorf(`binding %q: a module shader's buffers are named by set and binding, like "0:1"`, b.Binding)
	case !moduleShader && !registerRE().MatchString(reflect.NormalizeRegister(b.Binding)):
		return fmt.Errorf("binding %q is not an HLSL register like t0, u1 or b0,space1", b.Binding)
	}
	switch {
	case b.Count < 0:
		return fmt.Errorf("count %d is negative", b.Count)
	case b.Count > (MaxBufferBytes-before)/4 || len(b.Data) > (MaxBufferBytes-before)/4:
		return fmt.Errorf("%d values: the buffers of a case hold at most %d MiB together", max(b.Count, len(b.Data)), MaxBufferBytes>>20)
	case len(b.Data) == 0 && b.Count == 0:
		return fmt.Errorf(`give "data" or "count"`)
	}
	b.size = 4 * max(b.Count, len(b.Data))
	if _, err := encodeValues(b.Format, b.Data); err != nil {
		return fmt.Errorf("data: %v", err)
	}
	if len(b.Expect) > b.size/4 {
		return fmt.Errorf("%d expected values but the buffer holds only %d", len(b.Expect), b.size/4)
	}
	b.expect, b.anyValue = make([]uint32, len(b.Expect)), nil
	for k, v := range b.Expect {
		if isNull(v) {
			if b.anyValue == nil {
				b.anyValue = make([]bool, len(b.Expect))
			}
			b.anyValue[k] = true
			continue
		}
		w, err := word(b.Format, v)
		if err != nil {
			return fmt.Errorf("expect[%d] (%s): %v", k, v, err)
		}
		b.expect[k] = w
	}
	if len(b.Record) > 0 {
		if len(b.Record) > MaxRecordWords {
			return fmt.Errorf("record names %d words, at most %d", len(b.Record), MaxRecordWords)
		}
		for k, name := range b.Record {
			if name == "" {
				return fmt.Errorf("record[%d] is empty (name every word of the record)", k)
			}
		}
	}
	if t := b.Tolerance; t != nil {
		if b.Format != "float32" {
			return fmt.Errorf("tolerance applies to float32 buffers only, not %s", b.Format)
		}
		if *t < 0 {
			return fmt.Errorf("tolerance %v is negative", *t)
		}
	}
	return nil
}

// MaxRecordWords is the longest record a buffer's "record" may name.
const MaxRecordWords = 256

// isNull reports whether a JSON value is null: "any value" in expect.
func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }

// encodeValues turns the JSON values of a buffer into little-endian 32-bit words.
// null is refused: in data it would silently be 0, and it means "any value"
// only in expect.
func encodeValues(format string, vals []json.RawMessage) ([]byte, error) {
	out := make([]byte, 4*len(vals))
	for i, v := range vals {
		if isNull(v) {
			return nil, fmt.Errorf("value %d is null: null means \"any value\" and is allowed in expect only", i)
		}
		w, err := word(format, v)
		if err != nil {
			return nil, fmt.Errorf("value %d (%s): %v", i, v, err)
		}
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
	return out, nil
}

func word(format string, v json.RawMessage) (uint32, error) {
	// Fast path for the plain numbers case files are made of (a repro bundle
	// holds millions): a value strconv takes is a JSON number, since the
	// decoder hands over only valid JSON and strings are quoted. Anything else
	// goes the slow way, which also words the errors.
	switch format {
	case "uint32":
		if u, err := strconv.ParseUint(string(v), 10, 32); err == nil {
			return uint32(u), nil
		}
	case "int32":
		if i, err := strconv.ParseInt(string(v), 10, 32); err == nil {
			return uint32(int32(i)), nil
		}
	}
	var f float64
	if err := json.Unmarshal(v, &f); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && strings.HasPrefix(te.Value, "number") {
			return 0, fmt.Errorf("out of range")
		}
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
	// Rounded once, to float32 (through float64 it could round twice). JSON
	// numbers are valid Go float syntax.
	f32, err := strconv.ParseFloat(string(bytes.TrimSpace(v)), 32)
	if err != nil {
		return 0, fmt.Errorf("out of the float32 range")
	}
	return math.Float32bits(float32(f32)), nil
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

// Mismatches compares the buffers that came back (bufs[i] is Buffers[i] after
// the dispatch) with the case's expectations. An expected word that did not
// come back (a short or missing buffer) is a mismatch whose actual value is
// "missing".
func (c *Case) Mismatches(bufs [][]byte) []Mismatch {
	var mism []Mismatch
	for i, b := range c.Buffers {
		var got []byte
		if i < len(bufs) {
			got = bufs[i]
		}
		for k, want := range b.expect {
			if b.anyValue != nil && b.anyValue[k] {
				continue
			}
			actual := "missing"
			if 4*k+4 <= len(got) {
				have := binary.LittleEndian.Uint32(got[4*k:])
				if wordsMatch(b.Format, want, have, b.Tolerance) {
					continue
				}
				actual = formatWord(b.Format, have)
			}
			m := Mismatch{Buffer: b.Binding, Index: k, Expected: formatWord(b.Format, want), Actual: actual}
			if n := len(b.Record); n > 0 {
				m.Where = fmt.Sprintf("record %d %s", k/n, b.Record[k%n])
			}
			mism = append(mism, m)
		}
	}
	return mism
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

// Registers lists the buffers' bindings, in order (what a compiler is asked
// to bind).
func (c *Case) Registers() []string {
	var regs []string
	for _, b := range c.Buffers {
		regs = append(regs, b.Binding)
	}
	return regs
}

// Initial is a buffer's contents before the dispatch: its data, zero-filled to
// its size (the values were checked by Load).
func (b *Buffer) Initial() []byte {
	data := make([]byte, b.size)
	enc, _ := encodeValues(b.Format, b.Data)
	copy(data, enc)
	return data
}

// Size is the buffer's size in bytes (valid once the case was checked).
func (b *Buffer) Size() int { return b.size }

// ShaderPath is the case's shader: Shader, relative to the case file.
func (c *Case) ShaderPath() string { return filepath.Join(c.dir, c.Shader) }

// Source is the shader as Load read it (nil for a case made otherwise).
func (c *Case) Source() []byte { return c.src }
