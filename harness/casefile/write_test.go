package casefile

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// What Marshal writes, Load reads back as the same case, a record to a line.
func TestMarshalRoundTrip(t *testing.T) {
	tol := 0.25
	words := []uint32{0, 1, 4294967295, 7, 8, 9}
	expect := Words(words[:5])
	expect[1] = json.RawMessage(AnyValue)
	c := Case{Shader: "k.hlsl", Entry: "CSMain", Defines: map[string]string{"N": "4", "A": "x y"}, Dispatch: [3]uint32{2, 1, 3},
		SubgroupSize: 8, Extensions: []string{"SPV_KHR_quad_control"},
		Buffers: []Buffer{
			{Binding: "u0", Format: "uint32", Count: 8, Data: Words(words), Expect: expect, Record: []string{"a", "b", "c"}},
			{Binding: "t1,space2", Format: "float32", Data: []json.RawMessage{json.RawMessage("1.5"), json.RawMessage(" -0 ")}, Expect: []json.RawMessage{json.RawMessage("1.25")}, Tolerance: &tol},
			{Binding: "b0", Format: "int32", Data: []json.RawMessage{json.RawMessage("-2147483648")}},
		}}
	data, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\n        0,1,4294967295,\n        7,8,9\n") {
		t.Errorf("u0's data is not one record (3 words) to a line:\n%s", data)
	}
	p := writeCase(t, string(data))
	got, err := Load(p)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if got.Shader != c.Shader || got.Entry != c.Entry || !reflect.DeepEqual(got.Defines, c.Defines) || got.Dispatch != c.Dispatch ||
		got.SubgroupSize != c.SubgroupSize || !reflect.DeepEqual(got.Extensions, c.Extensions) || len(got.Buffers) != len(c.Buffers) {
		t.Fatalf("read back %+v\nwrote %+v", got, c)
	}
	for i, b := range got.Buffers {
		w := c.Buffers[i]
		if b.Binding != w.Binding || b.Format != w.Format || b.Count != w.Count || !reflect.DeepEqual(b.Record, w.Record) ||
			(b.Tolerance == nil) != (w.Tolerance == nil) || (b.Tolerance != nil && *b.Tolerance != *w.Tolerance) ||
			!sameValues(b.Data, w.Data) || !sameValues(b.Expect, w.Expect) {
			t.Errorf("buffers[%d]: read back %+v, wrote %+v", i, b, w)
		}
	}
	// The expectations hold for the initial data (t1's 1.5 is within 0.25 of
	// 1.25), whatever u0[1] holds ("any value"); a compared word that
	// changes is a mismatch named by its record.
	bufs := [][]byte{got.Buffers[0].Initial(), got.Buffers[1].Initial(), got.Buffers[2].Initial()}
	bufs[0][4] = 0xaa
	if m := got.Mismatches(bufs); len(m) != 0 {
		t.Errorf("mismatches %v, want none", m)
	}
	bufs[0][16] = 5 // u0[4], record 1 word b
	if m := got.Mismatches(bufs); len(m) != 1 || m[0].String() != "u0[4] (record 1 b): expected 8, actual 5" {
		t.Errorf("mismatches %v, want u0[4] only", m)
	}
	// Words that did not come back are mismatches, not a crash.
	if m := got.Mismatches([][]byte{bufs[0][:8]}); len(m) != 4 || m[0].String() != "u0[2] (record 0 c): expected 4294967295, actual missing" ||
		m[3].Buffer != "t1,space2" || m[3].Actual != "missing" {
		t.Errorf("short buffers: mismatches %v, want u0[2], u0[3], u0[4] and t1,space2[0] missing", m)
	}
}

func sameValues(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.TrimSpace(string(a[i])) != strings.TrimSpace(string(b[i])) {
			return false
		}
	}
	return true
}

// A value that is not one JSON scalar, or a tolerance JSON cannot hold, is an
// error naming the buffer, never a file Load would refuse.
func TestMarshalRefuses(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		buf  Buffer
		want string
	}{
		{Buffer{Binding: "u0", Format: "uint32", Data: []json.RawMessage{json.RawMessage("1"), json.RawMessage("1,2")}}, "buffers[0]: data: value 1"},
		{Buffer{Binding: "u0", Format: "uint32", Count: 1, Expect: []json.RawMessage{json.RawMessage("[1]")}}, "buffers[0]: expect: value 0"},
		{Buffer{Binding: "u0", Format: "uint32", Count: 1, Expect: []json.RawMessage{nil}}, "buffers[0]: expect: value 0"},
		{Buffer{Binding: "u0", Format: "float32", Count: 1, Tolerance: &nan}, "tolerance NaN"},
	} {
		k := Case{Shader: "k.hlsl", Entry: "CSMain", Dispatch: [3]uint32{1, 1, 1}, Buffers: []Buffer{c.buf}}
		if _, err := k.Marshal(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.buf, err, c.want)
		}
	}
}

// Words are the decimal values, each its own slice of one backing array.
func TestWords(t *testing.T) {
	ws := []uint32{0, 10, 4294967295}
	got := Words(ws)
	for i, w := range []string{"0", "10", "4294967295"} {
		if string(got[i]) != w || cap(got[i]) != len(got[i]) {
			t.Errorf("Words[%d] = %q (cap %d), want %q", i, got[i], cap(got[i]), w)
		}
	}
	if len(Words(nil)) != 0 {
		t.Error("Words(nil) is not empty")
	}
}
