package syntax

import (
	"strings"
	"testing"

	"waverig/compiler/diag"
)

func lexKinds(src string) string {
	var log diag.Log
	var parts []string
	for _, t := range lexAll(diag.NewSource("t", src), &log) {
		k := map[tokKind]string{tIdent: "id", tNumber: "num", tString: "str", tChar: "chr", tPunct: "p",
			tBadChar: "bad", tBadString: "badstr"}[t.Kind]
		flags := ""
		if t.BOL {
			flags += "^"
		}
		if t.Space {
			flags += "_"
		}
		parts = append(parts, flags+k+":"+t.Text)
	}
	return strings.Join(parts, " ")
}

func TestLexer(t *testing.T) {
	cases := []struct{ src, want string }{
		{"a::b->c", "^id:a p::: id:b p:-> id:c"},
		{"x<<=1>>=2", "^id:x p:<<= num:1 p:>>= num:2"},
		{"a[b[0]]", "^id:a p:[ id:b p:[ num:0 p:] p:]"}, // never a single [[ or ]] token
		{"[[vk::binding(0)]]", "^p:[ p:[ id:vk p::: id:binding p:( num:0 p:) p:] p:]"},
		{"1.5f .5 1e-3 0x1Fu 1.0L 7ull 1.xyz", "^num:1.5f _num:.5 _num:1e-3 _num:0x1Fu _num:1.0L _num:7ull _num:1.xyz"},
		{"0x1e+1", "^num:0x1e p:+ num:1"}, // 'e' is a hex digit, not an exponent
		{"a.b", "^id:a p:. id:b"},
		{"\"s\\\"q\" 'c'", "^str:\"s\\\"q\" _chr:'c'"},
		{"\"open\nnext", "^badstr:\"open ^id:next"},
		{"a @ b", "^id:a _bad:@ _id:b"},
		{"é", "^bad:é"},
		{"a // c\n  b /* x\n */ c", "^id:a ^_id:b _id:c"},
		{"#define X \\\n 1\nY", "^p:# id:define _id:X _num:1 ^id:Y"},
		{"a++ + ++b", "^id:a p:++ _p:+ _p:++ id:b"},
		{"a ## b # c", "^id:a _p:## _id:b _p:# _id:c"},
	}
	for _, c := range cases {
		if got := lexKinds(c.src); got != c.want {
			t.Errorf("lex %q:\n got: %s\nwant: %s", c.src, got, c.want)
		}
	}
}

func TestSplitNumber(t *testing.T) {
	cases := []struct {
		text, digits, suffix string
		float, ok            bool
	}{
		{"12", "12", "", false, true},
		{"12U", "12", "u", false, true},
		{"12uLL", "12", "ull", false, true},
		{"0x1F", "0x1F", "", false, true},
		{"0XffUl", "0Xff", "ul", false, true},
		{"017", "017", "", false, true},
		{"1.", "1.", "", true, true},
		{".5", ".5", "", true, true},
		{"1e-3", "1e-3", "", true, true},
		{"1.5f", "1.5", "f", true, true},
		{"2.0H", "2.0", "h", true, true},
		{"1.0l", "1.0", "l", true, true},
		{"3e2F", "3e2", "f", true, true},
		{"09", "09", "", false, false},
		{"1.0u", "1.0", "u", true, false},
		{"1ux", "1", "ux", false, false},
		{"1e", "1", "e", false, false},
		{"0x", "0x", "", false, false},
	}
	for _, c := range cases {
		l, ok := splitNumber(c.text)
		if l.digits != c.digits || l.suffix != c.suffix || l.float != c.float || ok != c.ok {
			t.Errorf("splitNumber(%q) = %+v, %v", c.text, l, ok)
		}
	}
}

func TestBuiltinTypeNames(t *testing.T) {
	for _, n := range []string{"float", "float4", "int2x3", "uint64_t", "min16float3", "half4x4", "bool1", "vector", "matrix",
		"RWStructuredBuffer", "Texture2D", "SamplerState", "ByteAddressBuffer", "dword2", "float16_t2"} {
		if !isBuiltinType(n) {
			t.Errorf("%s should be a type", n)
		}
	}
	for _, n := range []string{"float5", "float4x5", "floatx", "x4", "Foo", "int0", "main", "float4x"} {
		if isBuiltinType(n) {
			t.Errorf("%s should not be a type", n)
		}
	}
}
