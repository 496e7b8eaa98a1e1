// Package args parses the DXC-style flags of `waverig compile` (-D, -I,
// -fvk-t-shift N M, -fspv-extension=NAME, …) into a plain struct. It is the one
// parser of those flags: the command line uses it, and so do the fixture tests,
// whose `// waverig-args:` first line holds the same flags.
package args

import (
	"fmt"
	"strconv"
	"strings"
)

// Args is a parsed command line.
type Args struct {
	Targets      []string // -target a,b (names as written; the compiler validates them)
	Entry        string
	Stage        string
	Vulkan       string
	Defines      map[string]string
	IncludeDirs  []string
	Shifts       map[byte]map[int]int // -fvk-{b,t,u,s}-shift N M: Shifts[class][space] = N
	AutoBindings bool
	Extensions   []string
	WGSLDialect  string
	OutDir       string
	JSON         bool
	Help         bool
	Files        []string
}

// HasExtension reports whether -fspv-extension=name was given.
func (a *Args) HasExtension(name string) bool {
	for _, e := range a.Extensions {
		if e == name {
			return true
		}
	}
	return false
}

// UsageError is a bad command line.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usage(format string, a ...any) error { return &UsageError{fmt.Sprintf(format, a...)} }

// Parse parses flags and file names in any order: a file name never ends the
// flags (Go's flag package would silently drop every flag after it). After
// "--" every argument is a file, even one starting with '-'. Flags with a
// value take it as the next argument or after '=' (-entry=main); -D and -I
// also take it attached (-DN=4, -Iinc); -fvk-X-shift takes two values.
func Parse(list []string) (*Args, error) {
	a := &Args{Defines: map[string]string{}}
	for i := 0; i < len(list); i++ {
		arg := list[i]
		if arg == "--" {
			a.Files = append(a.Files, list[i+1:]...)
			break
		}
		name, val, hasVal := strings.Cut(arg, "=")
		if strings.HasPrefix(name, "--") {
			name = name[1:]
		}
		value := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(list) {
				return "", usage("%s needs a value", name)
			}
			i++
			return list[i], nil
		}
		var err error
		var v string
		switch {
		case name == "-target":
			if v, err = value(); err == nil {
				a.Targets = strings.Split(v, ",")
			}
		case name == "-entry":
			a.Entry, err = value()
		case name == "-stage":
			a.Stage, err = value()
		case name == "-vulkan":
			a.Vulkan, err = value()
		case name == "-o":
			a.OutDir, err = value()
		case name == "-wgsl-dialect":
			a.WGSLDialect, err = value()
		case name == "-fspv-extension":
			if v, err = value(); err == nil {
				a.Extensions = append(a.Extensions, v)
			}
		case arg == "-json":
			a.JSON = true
		case arg == "-auto-bindings":
			a.AutoBindings = true
		case arg == "-h" || arg == "-help" || arg == "--help":
			a.Help = true
		case strings.HasPrefix(arg, "-D"):
			def := strings.TrimPrefix(strings.TrimPrefix(arg, "-D"), "=")
			if def == "" {
				if i+1 >= len(list) {
					return nil, usage("-D needs NAME[=VALUE]")
				}
				i++
				def = list[i]
			}
			k, v, _ := strings.Cut(def, "=")
			if k == "" {
				return nil, usage("-D needs NAME[=VALUE]")
			}
			a.Defines[k] = v
		case strings.HasPrefix(arg, "-I"):
			dir := strings.TrimPrefix(strings.TrimPrefix(arg, "-I"), "=")
			if dir == "" {
				if i+1 >= len(list) {
					return nil, usage("-I needs a directory")
				}
				i++
				dir = list[i]
			}
			a.IncludeDirs = append(a.IncludeDirs, dir)
		case strings.HasPrefix(arg, "-fvk-") && strings.HasSuffix(arg, "-shift"):
			class := strings.TrimSuffix(strings.TrimPrefix(arg, "-fvk-"), "-shift")
			if len(class) != 1 || !strings.Contains("btus", class) {
				return nil, usage("unknown flag %s (use -fvk-b-shift, -fvk-t-shift, -fvk-u-shift, -fvk-s-shift)", arg)
			}
			if i+2 >= len(list) {
				return nil, usage("%s needs two values: SHIFT SPACE", arg)
			}
			// Both are 32-bit numbers in SPIR-V (a binding, a descriptor set);
			// the compiler also checks that register + SHIFT still fits.
			n, err1 := strconv.ParseUint(list[i+1], 10, 32)
			m, err2 := strconv.ParseUint(list[i+2], 10, 32)
			if err1 != nil || err2 != nil {
				return nil, usage("%s %s %s: SHIFT and SPACE must be integers from 0 to 4294967295", arg, list[i+1], list[i+2])
			}
			i += 2
			if a.Shifts == nil {
				a.Shifts = map[byte]map[int]int{}
			}
			if a.Shifts[class[0]] == nil {
				a.Shifts[class[0]] = map[int]int{}
			}
			a.Shifts[class[0]][int(m)] = int(n)
		case strings.HasPrefix(arg, "-") && arg != "-":
			return nil, usage("unknown flag %s", arg)
		default:
			a.Files = append(a.Files, arg)
		}
		if err != nil {
			return nil, err
		}
	}
	return a, nil
}

// FixtureLine returns the flags of a fixture's optional first line
// `// waverig-args: …`, and whether it has one.
func FixtureLine(src string) ([]string, bool) {
	first, _, _ := strings.Cut(src, "\n")
	rest, ok := strings.CutPrefix(strings.TrimSpace(first), "// waverig-args:")
	if !ok {
		return nil, false
	}
	return strings.Fields(rest), true
}
