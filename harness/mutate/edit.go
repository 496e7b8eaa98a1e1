package mutate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// inst is one instruction line of spirv-dis text: "%res = OpName %type a b"
// or "OpName a b". Args are the words after the opcode (the result type first
// when the instruction has one).
type inst struct {
	indent, res, op string
	args            []string
}

func parseInst(line string) (inst, bool) {
	s := strings.TrimSpace(line)
	if s == "" || strings.HasPrefix(s, ";") {
		return inst{}, false
	}
	in := inst{indent: line[:len(line)-len(strings.TrimLeft(line, " \t"))]}
	f := strings.Fields(s)
	if len(f) >= 3 && f[1] == "=" {
		in.res, f = f[0], f[2:]
	}
	if !strings.HasPrefix(f[0], "Op") {
		return inst{}, false
	}
	in.op, in.args = f[0], f[1:]
	return in, true
}

func (in inst) String() string {
	s := in.indent
	if in.res != "" {
		s += in.res + " = "
	}
	return s + strings.Join(append([]string{in.op}, in.args...), " ")
}

// module is spirv-dis text being edited: the lines, the layout key's result
// (never mutated: every kernel records WaveReadLaneFirst of the flat id as its
// wave key before any divergence, and breaking it only proves the layout check,
// which the builtin mutants already do), and fresh names for new ids.
type module struct {
	lines []string
	key   string
	fresh int
	// decls are declarations to add at the end of the types, constants and
	// globals section (just before the first function), where every type they
	// use is already declared.
	decls []string
	// declared remembers the names decls already holds.
	declared map[string]bool
}

var storeKeyRE = regexp.MustCompile(`(?m)^\s*OpStore %key (%\w+)$`)

func newModule(t string) *module {
	m := &module{lines: strings.Split(t, "\n"), declared: map[string]bool{}}
	if k := storeKeyRE.FindStringSubmatch(t); k != nil {
		m.key = k[1]
	}
	return m
}

// name returns a fresh id name.
func (m *module) name(what string) string {
	m.fresh++
	return fmt.Sprintf("%%mut_%s_%d", what, m.fresh)
}

// typeOf finds the name of a declared type by its declaration's right-hand side
// ("OpTypeInt 32 0"), or "".
func (m *module) typeOf(decl string) string {
	for _, l := range m.lines {
		in, ok := parseInst(l)
		if ok && in.res != "" && strings.Join(append([]string{in.op}, in.args...), " ") == decl {
			return in.res
		}
	}
	return ""
}

// declare adds a declaration "name = rhs" once, returning name.
func (m *module) declare(name, rhs string) string {
	if !m.declared[name] {
		m.declared[name] = true
		m.decls = append(m.decls, name+" = "+rhs)
	}
	return name
}

// uintConst returns a 32-bit unsigned constant's name.
func (m *module) uintConst(v uint32) string {
	return m.declare(fmt.Sprintf("%%mut_uint_%d", v), fmt.Sprintf("OpConstant %s %d", m.uint(), v))
}

func (m *module) uint() string { return m.typeOf("OpTypeInt 32 0") }

// boolType returns the bool type, declaring one if the module has none.
func (m *module) boolType() string {
	if b := m.typeOf("OpTypeBool"); b != "" {
		return b
	}
	return m.declare("%mut_bool", "OpTypeBool")
}

// constValue is the value of an integer constant id, or -1.
func (m *module) constValue(id string) int64 {
	for _, l := range m.lines {
		in, ok := parseInst(l)
		if ok && in.res == id && in.op == "OpConstant" && len(in.args) == 2 {
			v, err := strconv.ParseInt(in.args[1], 10, 64)
			if err == nil {
				return v
			}
		}
	}
	return -1
}

// edit calls f for every instruction but the layout key's; f returns the lines
// that replace it (nil: unchanged). It returns how many instructions changed.
func (m *module) edit(f func(in inst) []string) int {
	var out []string
	n := 0
	for _, l := range m.lines {
		in, ok := parseInst(l)
		if !ok || (m.key != "" && in.res == m.key) {
			out = append(out, l)
			continue
		}
		r := f(in)
		if r == nil {
			out = append(out, l)
			continue
		}
		n++
		out = append(out, r...)
	}
	m.lines = out
	return n
}

// text is the edited module, with the new declarations before the first function.
func (m *module) text() string {
	if len(m.decls) == 0 {
		return strings.Join(m.lines, "\n")
	}
	var out []string
	done := false
	for _, l := range m.lines {
		if in, ok := parseInst(l); ok && !done && in.op == "OpFunction" {
			out = append(out, m.decls...)
			done = true
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// addCapability declares a capability the mutant's new instructions need.
func (m *module) addCapability(c string) {
	line := "OpCapability " + c
	for _, l := range m.lines {
		if strings.TrimSpace(l) == line {
			return
		}
	}
	m.lines = append([]string{line}, m.lines...)
}

// isGroup says whether an instruction is a group operation named by one of
// the suffixes (OpGroupNonUniform + suffix).
func isGroup(in inst, suffixes ...string) bool {
	for _, s := range suffixes {
		if in.op == "OpGroupNonUniform"+s {
			return true
		}
	}
	return false
}
