package casefile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// AnyValue is the expect value of a word that is not compared ("any value").
const AnyValue = "null"

// rowValues is how many values of a buffer without a record go on a line.
const rowValues = 24

// Words are uint32 values as the JSON numbers of a buffer's data or expect.
// They share one backing array: a repro bundle's buffers hold millions of
// words, and one allocation each would dominate writing its case file.
func Words(ws []uint32) []json.RawMessage {
	text := make([]byte, 0, 10*len(ws)) // a uint32 has at most 10 digits: text never moves
	out := make([]json.RawMessage, len(ws))
	for i, w := range ws {
		start := len(text)
		text = strconv.AppendUint(text, uint64(w), 10)
		out[i] = json.RawMessage(text[start:len(text):len(text)])
	}
	return out
}

// Marshal writes the case as the JSON Load reads, with each buffer's data and
// expect one record to a line (the words its "record" names, else 24 values)
// so that a person can read it. It does not validate the case (Load does,
// and the writers' tests load what they write): checking every value of a
// large case takes longer than writing it. A value that is not one JSON
// value, or a tolerance JSON cannot hold, is an error.
func (c *Case) Marshal() ([]byte, error) {
	var b bytes.Buffer
	n := 0
	for _, buf := range c.Buffers {
		for _, v := range buf.Data {
			n += len(v) + 1
		}
		for _, v := range buf.Expect {
			n += len(v) + 1
		}
	}
	b.Grow(n + n/16 + 4096) // the values, a newline per row, the rest
	str := func(s string) string {
		q, _ := json.Marshal(s) // a string always marshals
		return string(q)
	}
	fmt.Fprintf(&b, "{\n  \"shader\": %s,\n  \"entry\": %s,\n", str(c.Shader), str(c.Entry))
	if len(c.Defines) > 0 {
		q, _ := json.Marshal(c.Defines) // sorted keys
		fmt.Fprintf(&b, "  \"defines\": %s,\n", q)
	}
	fmt.Fprintf(&b, "  \"dispatch\": [%d, %d, %d],\n", c.Dispatch[0], c.Dispatch[1], c.Dispatch[2])
	if c.SubgroupSize != 0 {
		fmt.Fprintf(&b, "  \"subgroup_size\": %d,\n", c.SubgroupSize)
	}
	if len(c.Extensions) > 0 {
		q, _ := json.Marshal(c.Extensions)
		fmt.Fprintf(&b, "  \"extensions\": %s,\n", q)
	}
	b.WriteString("  \"buffers\": [")
	for i, buf := range c.Buffers {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n    {\n      \"binding\": %s,\n      \"format\": %s", str(buf.Binding), str(buf.Format))
		if buf.Count != 0 {
			fmt.Fprintf(&b, ",\n      \"count\": %d", buf.Count)
		}
		stride := rowValues
		if len(buf.Record) > 0 {
			stride = len(buf.Record)
			q, _ := json.Marshal(buf.Record)
			fmt.Fprintf(&b, ",\n      \"record\": %s", q)
		}
		if t := buf.Tolerance; t != nil {
			if math.IsNaN(*t) || math.IsInf(*t, 0) {
				return nil, fmt.Errorf("buffers[%d]: tolerance %v is not a JSON number", i, *t)
			}
			fmt.Fprintf(&b, ",\n      \"tolerance\": %s", strconv.FormatFloat(*t, 'g', -1, 64))
		}
		for _, field := range []struct {
			name string
			vals []json.RawMessage
		}{{"data", buf.Data}, {"expect", buf.Expect}} {
			if len(field.vals) == 0 {
				continue
			}
			fmt.Fprintf(&b, ",\n      %q: ", field.name)
			if err := writeRows(&b, field.vals, stride); err != nil {
				return nil, fmt.Errorf("buffers[%d]: %s: %v", i, field.name, err)
			}
		}
		b.WriteString("\n    }")
	}
	b.WriteString("\n  ]\n}\n")
	return b.Bytes(), nil
}

// writeRows writes a JSON array, stride values to a line, without spaces
// (the largest kernel's case file is ~8 MiB as it is).
func writeRows(b *bytes.Buffer, vals []json.RawMessage, stride int) error {
	b.WriteString("[")
	for i, v := range vals {
		if !plainNumber(v) {
			v = bytes.TrimSpace(v)
			if !json.Valid(v) || (len(v) > 0 && (v[0] == '{' || v[0] == '[')) {
				return fmt.Errorf("value %d (%.40q) is not one JSON number, string or null", i, v)
			}
		}
		if i%stride == 0 {
			b.WriteString("\n        ")
		}
		b.Write(v)
		if i < len(vals)-1 {
			b.WriteString(",")
		}
	}
	b.WriteString("\n      ]")
	return nil
}

// plainNumber reports whether v is digits with an optional minus sign, the
// values Words makes: valid JSON without asking the JSON scanner, which would
// take most of the time of writing a large case.
func plainNumber(v []byte) bool {
	if len(v) > 0 && v[0] == '-' {
		v = v[1:]
	}
	if len(v) == 0 || (v[0] == '0' && len(v) > 1) {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
