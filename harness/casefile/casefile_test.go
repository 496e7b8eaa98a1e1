package casefile

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"waverig/internal/fsutil"
)

const testShader = "RWStructuredBuffer<uint> Out : register(u0);\n[shader(\"compute\")] [numthreads(1,1,1)]\nvoid CSMain(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.x; }\n"

// writeCase writes a case file and the shader it names into a new directory.
func writeCase(t testing.TB, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "k.hlsl"), []byte(testShader), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "case.json")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// caseJSON is a valid case with one buffer whose JSON is buf.
func caseJSON(buf string) string {
	return `{"shader":"k.hlsl","entry":"CSMain","dispatch":[1,1,1],"buffers":[` + buf + `]}`
}

// Every problem Load can see is a *Error that names the case file
// and says what is wrong; nothing is allocated for sizes over the caps.
func TestLoadCaseFileErrors(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"not JSON", `{"shader":`, "unexpected EOF"},
		{"unknown key", `{"shader":"k.hlsl","entry":"CSMain","dispatch":[1,1,1],"colour":"red","buffers":[]}`, `unknown field "colour"`},
		{"trailing data", caseJSON(`{"binding":"u0","format":"uint32","count":1}`) + ` {}`, "trailing data"},
		{"no entry", `{"shader":"k.hlsl","dispatch":[1,1,1],"buffers":[]}`, `"entry" are required`},
		{"dispatch 0", `{"shader":"k.hlsl","entry":"CSMain","dispatch":[1,0,1],"buffers":[]}`, "dispatch[1] is 0"},
		{"dispatch negative", `{"shader":"k.hlsl","entry":"CSMain","dispatch":[-1,1,1],"buffers":[]}`, "dispatch"},
		{"subgroup size 3", `{"shader":"k.hlsl","entry":"CSMain","dispatch":[1,1,1],"subgroup_size":3,"buffers":[]}`, "powers of two"},
		{"subgroup size 256", `{"shader":"k.hlsl","entry":"CSMain","dispatch":[1,1,1],"subgroup_size":256,"buffers":[]}`, "powers of two"},
		{"format", caseJSON(`{"binding":"u0","format":"uint64","count":1}`), `format "uint64"`},
		{"binding", caseJSON(`{"binding":"x0","format":"uint32","count":1}`), "not an HLSL register"},
		{"neither data nor count", caseJSON(`{"binding":"u0","format":"uint32"}`), `give "data" or "count"`},
		{"negative count", caseJSON(`{"binding":"u0","format":"uint32","count":-4}`), "negative"},
		{"fractional count", caseJSON(`{"binding":"u0","format":"uint32","count":1.5}`), "count"},
		{"count 2^31", caseJSON(`{"binding":"u0","format":"uint32","count":2147483648}`), "at most 256 MiB"},
		{"count 1e12", caseJSON(`{"binding":"u0","format":"uint32","count":1000000000000}`), "at most 256 MiB"},
		{"count 2^62", caseJSON(`{"binding":"u0","format":"uint32","count":4611686018427387904}`), "at most 256 MiB"},
		{"count over int64", caseJSON(`{"binding":"u0","format":"uint32","count":99999999999999999999}`), "count"},
		{"buffers together over the cap", caseJSON(`{"binding":"u0","format":"uint32","count":40000000},{"binding":"u1","format":"uint32","count":40000000}`), "buffers[1]: 40000000 values: the buffers of a case hold at most 256 MiB"},
		{"duplicate register", caseJSON(`{"binding":"u0","format":"uint32","count":1},{"binding":"U0, space0","format":"uint32","count":1}`), "both bind register"},
		{"uint32 negative", caseJSON(`{"binding":"u0","format":"uint32","data":[1,-1]}`), "value 1 (-1): not a uint32"},
		{"uint32 too big", caseJSON(`{"binding":"u0","format":"uint32","data":[4294967296]}`), "not a uint32"},
		{"int32 fraction", caseJSON(`{"binding":"u0","format":"int32","data":[0.5]}`), "not an int32"},
		{"float32 overflow", caseJSON(`{"binding":"u0","format":"float32","data":[1e39]}`), "out of the float32 range"},
		{"float64 overflow", caseJSON(`{"binding":"u0","format":"float32","data":[1e400]}`), "out of range"},
		{"string value", caseJSON(`{"binding":"u0","format":"uint32","data":["1"]}`), "not a number"},
		{"expect out of range", caseJSON(`{"binding":"u0","format":"int32","count":2,"expect":[0,2147483648]}`), "expect[1] (2147483648): not an int32"},
		{"expect longer than buffer", caseJSON(`{"binding":"u0","format":"uint32","data":[1,2],"expect":[1,2,3]}`), "3 expected values but the buffer holds only 2"},
		{"null in data", caseJSON(`{"binding":"u0","format":"uint32","data":[1,null]}`), `data: value 1 is null: null means "any value" and is allowed in expect only`},
		{"record word unnamed", caseJSON(`{"binding":"u0","format":"uint32","count":4,"record":["a",""]}`), "record[1] is empty"},
		{"record too long", caseJSON(`{"binding":"u0","format":"uint32","count":4,"record":[` + strings.Repeat(`"w",`, 256) + `"w"]}`), "record names 257 words, at most 256"},
		{"tolerance on uint32", caseJSON(`{"binding":"u0","format":"uint32","count":1,"tolerance":0.5}`), "float32 buffers only"},
		{"negative tolerance", caseJSON(`{"binding":"u0","format":"float32","count":1,"tolerance":-1}`), "negative"},
		{"too many buffers", caseJSON(strings.Repeat(`{"binding":"u0","format":"uint32","count":1},`, 32) + `{"binding":"u0","format":"uint32","count":1}`), "33 buffers, at most 32"},
		{"missing shader", strings.Replace(caseJSON(`{"binding":"u0","format":"uint32","count":1}`), "k.hlsl", "nope.hlsl", 1), "cannot read shader"},
		{"shader is a directory", strings.Replace(caseJSON(`{"binding":"u0","format":"uint32","count":1}`), "k.hlsl", ".", 1), "not a regular file (a directory)"},
		{"shader is a device", strings.Replace(caseJSON(`{"binding":"u0","format":"uint32","count":1}`), "k.hlsl", "/../../../../../../../../dev/zero", 1), "not a regular file (a device)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeCase(t, c.body)
			_, err := Load(p)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v (%T), want a *Error", err, err)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("err = %v\nwant it to name %s and say %q", err, p, c.want)
			}
		})
	}
}

func TestLoadCaseFileValid(t *testing.T) {
	p := writeCase(t, caseJSON(`{"binding":"u0","format":"float32","data":[1.5,-0,1e-50],"count":8,"expect":[1.5,0],"tolerance":0},{"binding":"b0","format":"int32","data":[-2147483648]}`))
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Buffers[0].size != 32 || c.Buffers[1].size != 4 || len(c.Buffers[0].expect) != 2 || c.Buffers[0].expect[0] != 0x3fc00000 {
		t.Errorf("sizes %d %d, expect %x", c.Buffers[0].size, c.Buffers[1].size, c.Buffers[0].expect)
	}
	if string(c.src) != testShader {
		t.Errorf("shader source %q", c.src)
	}
}

// fsutil.ReadRegular refuses what is not a regular file (a device would never
// end, a FIFO would block) and files over the limit, whatever the file system
// says about their size.
func TestReadRegularFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("12345"), 0o644)
	if b, err := fsutil.ReadRegular(small, 5); err != nil || string(b) != "12345" {
		t.Errorf("5 bytes at limit 5: %q, %v", b, err)
	}
	if _, err := fsutil.ReadRegular(small, 4); err == nil || !strings.Contains(err.Error(), "more than the limit") {
		t.Errorf("5 bytes at limit 4: %v", err)
	}
	for path, want := range map[string]string{
		"/dev/zero":                  "a device",
		"/dev/null":                  "a device",
		dir:                          "a directory",
		filepath.Join(dir, "absent"): "no such file",
	} {
		if _, err := fsutil.ReadRegular(path, 1<<20); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", path, err, want)
		}
	}
	// /proc files report size 0 but have content: the read itself is bounded.
	if _, err := os.Stat("/proc/self/status"); err == nil {
		if _, err := fsutil.ReadRegular("/proc/self/status", 10); err == nil || !strings.Contains(err.Error(), "more than the limit") {
			t.Errorf("/proc/self/status at limit 10: %v", err)
		}
	}
}

// FuzzLoadCaseFile: Load never panics, its errors are *Error, and
// a case it accepts respects the size caps and round-trips its values through
// encodeValues/formatWord/word.
func FuzzLoadCaseFile(f *testing.F) {
	seeds, _ := filepath.Glob("../../fixtures/cases/*.json")
	if len(seeds) == 0 {
		f.Fatal("no seeds in fixtures/cases")
	}
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(caseJSON(`{"binding":"u0","format":"float32","data":[1.5,-0,3.4028235e38,1e-45],"expect":[0.1]}`)))
	f.Add([]byte(caseJSON(`{"binding":"u0","format":"uint32","count":67108864}`)))
	dir := f.TempDir()
	shader, err := os.ReadFile("../../fixtures/cases/prefix.hlsl")
	if err != nil {
		f.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "prefix.hlsl"), shader, 0o644)
	os.WriteFile(filepath.Join(dir, "k.hlsl"), []byte(testShader), 0o644)
	path := filepath.Join(dir, "case.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(path)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is a %T, not a *Error", err, err)
			}
			return
		}
		for i, d := range c.Dispatch {
			if d == 0 {
				t.Fatalf("dispatch[%d] = 0 accepted", i)
			}
		}
		total := 0
		for i, b := range c.Buffers {
			total += b.size
			if b.size <= 0 || b.size > MaxBufferBytes || total > MaxBufferBytes {
				t.Fatalf("buffers[%d]: size %d (all so far %d) accepted; the cap is %d", i, b.size, total, MaxBufferBytes)
			}
			enc, err := encodeValues(b.Format, b.Data)
			if err != nil || len(enc) != 4*len(b.Data) || len(enc) > b.size {
				t.Fatalf("buffers[%d]: encodeValues of an accepted buffer: %d bytes, %v", i, len(enc), err)
			}
			if len(b.expect) != len(b.Expect) || 4*len(b.expect) > b.size {
				t.Fatalf("buffers[%d]: %d expected words for %d values in %d bytes", i, len(b.expect), len(b.Expect), b.size)
			}
			words := make([]json.RawMessage, len(b.Data))
			for k := range words {
				words[k] = json.RawMessage(formatWord(b.Format, uint32(enc[4*k])|uint32(enc[4*k+1])<<8|uint32(enc[4*k+2])<<16|uint32(enc[4*k+3])<<24))
			}
			again, err := encodeValues(b.Format, words)
			if err != nil || string(again) != string(enc) {
				t.Fatalf("buffers[%d]: %s values do not round-trip: %v\n%x\n%x", i, b.Format, err, enc, again)
			}
		}
	})
}

// null in expect is "any value": the word is not compared, whatever the device
// wrote; the other words still are, and a buffer that names its record's words
// says in each mismatch which record and word it is.
func TestCaseExpectAnyValue(t *testing.T) {
	p := writeCase(t, caseJSON(`{"binding":"u0","format":"uint32","count":6,"expect":[1, null ,3,null,5,6],"record":["key","lane","out"]}`))
	c, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	b := c.Buffers[0]
	if len(b.expect) != 6 || !b.anyValue[1] || !b.anyValue[3] || b.anyValue[0] || b.expect[2] != 3 {
		t.Fatalf("expect %v, any %v", b.expect, b.anyValue)
	}
	le := func(ws ...uint32) []byte {
		out := make([]byte, 4*len(ws))
		for i, w := range ws {
			out[4*i], out[4*i+1], out[4*i+2], out[4*i+3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
		}
		return out
	}
	if m := c.Mismatches([][]byte{le(1, 0xdead, 3, 7, 5, 6)}); len(m) != 0 {
		t.Errorf("null words compared: %v", m)
	}
	m := c.Mismatches([][]byte{le(1, 2, 3, 4, 5, 9)})
	if len(m) != 1 || m[0].Index != 5 || m[0].Where != "record 1 out" {
		t.Fatalf("mismatches %+v, want one at u0[5] (record 1 out)", m)
	}
	if got, want := m[0].String(), "u0[5] (record 1 out): expected 6, actual 9"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	// Without record names a mismatch is only the index, as before.
	p = writeCase(t, caseJSON(`{"binding":"u0","format":"int32","count":2,"expect":[null,-1]}`))
	if c, err = Load(p); err != nil {
		t.Fatal(err)
	}
	if m := c.Mismatches([][]byte{le(5, 1)}); len(m) != 1 || m[0].String() != "u0[1]: expected -1, actual 1" {
		t.Errorf("mismatches %+v", m)
	}
}
