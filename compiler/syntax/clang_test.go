package syntax

import (
	"os/exec"
	"strings"
	"testing"

	"waverig/compiler/diag"
)

// clangCases are preprocessor inputs whose expansion is compared with clang's
// (`clang -E -P -x c`): the examples of C11 6.10.3.5 plus HLSL-shaped ones.
var clangCases = []string{
	// C11 6.10.3.5 example 3.
	`#define x 3
#define f(a) f(x * (a))
#undef x
#define x 2
#define g f
#define z z[0]
#define h g(~
#define m(a) a(w)
#define w 0,1
#define t(a) a
#define p() int
#define q(x) x
#define r(x,y) x ## y
#define str(x) # x
f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);
g(x+(3,4)-w) | h 5) & m
(f)^m(m);
p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };
char c[2][6] = { str(hello), str() };`,
	// Example 4.
	`#define str(s) # s
#define xstr(s) str(s)
#define debug(s, t) printf("x" # s "= %d, x" # t "= %s", \
 x ## s, x ## t)
#define INCFILE(n) vers ## n
#define glue(a, b) a ## b
#define xglue(a, b) glue(a, b)
#define HIGHLOW "hello"
#define LOW LOW ", world"
debug(1, 2);
fputs(str(strncmp("abc\0d", "abc", '\4') // this goes away
 == 0) str(: @\n), s);
xstr(INCFILE(2).h)
glue(HIGH, LOW);
xglue(HIGH, LOW)`,
	// Example 5 (placemarkers) and the hash_hash example.
	`#define t(x,y,z) x ## y ## z
int j[] = { t(1,2,3), t(,4,5), t(6,,7), t(8,9,),
 t(10,,), t(,11,), t(,,12), t(,,) };
#define hash_hash # ## #
#define mkstr(a) # a
#define in_between(a) mkstr(a)
#define join(c, d) in_between(c hash_hash d)
char p[] = join(x, y);`,
	// Example 7 (variadic).
	`#define debug(...) fprintf(stderr, __VA_ARGS__)
#define showlist(...) puts(#__VA_ARGS__)
#define report(test, ...) ((test)?puts(#test): printf(__VA_ARGS__))
debug("Flag");
debug("X = %d\n", x);
showlist(The first, second, and third items.);
report(x>y, "x is %d but y is %d", x, y);`,
	// HLSL-shaped macros.
	`#define GROUP 64
#define REG(c, n) register(c ## n)
#define BUF(T, name, n) RWStructuredBuffer<T> name : REG(u, n)
#define WAVE_OP(op, x) Wave ## op(x)
#define STR(x) #x
#define XSTR(x) STR(x)
BUF(uint, Out, 1);
[numthreads(GROUP, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = WAVE_OP(ActiveSum, id.x) + sizeof(XSTR(GROUP)); }
#if GROUP % 32 == 0 && defined(GROUP) && (GROUP << 1) > 100 && -1 < 0 && (1 ? 2 : 3) == 2
ok
#elif 1
bad
#endif
#define EMPTY
#define F(a, b) [a|b]
F(EMPTY, ) F((1, 2), [3]) F(F(1, 2), F(, ))`,
	// Rescanning and painted-blue corner cases.
	`#define A B
#define B A
#define C(x) x C
#define ID(x) x
#define LPAREN (
#define SELF(x) SELF(x)
A B C(1)(2) ID(ID)(3) ID(ID LPAREN 4)) SELF(SELF(5))
#define obj (x)
#define fn(x) obj x
fn(fn)(1)
#define AA BB
#define BB AA CC
#define CC AA
AA BB CC`,
}

// TestPreprocessorMatchesClang compares token streams with clang's preprocessor
// (skipped where clang is not installed).
func TestPreprocessorMatchesClang(t *testing.T) {
	clang, err := exec.LookPath("clang")
	if err != nil {
		t.Skip("clang not installed")
	}
	for i, src := range clangCases {
		cmd := exec.Command(clang, "-E", "-P", "-x", "c", "-w", "-")
		cmd.Stdin = strings.NewReader(src + "\n")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("case %d: clang: %v", i, err)
		}
		var log diag.Log
		var want []string
		for _, tk := range lexAll(diag.NewSource("clang", string(out)), &log) {
			want = append(want, tk.Text)
		}
		got, plog := ppText(src, Options{})
		if plog.HasErrors() {
			t.Errorf("case %d: %v", i, msgs(plog))
		}
		if w := strings.Join(want, " "); got != w {
			t.Errorf("case %d:\n got: %s\nwant: %s", i, got, w)
		}
	}
}
