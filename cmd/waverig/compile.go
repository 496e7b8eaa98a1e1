package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"waverig/compiler"
	"waverig/compiler/reflect"
)

const compileUsage = `usage: waverig compile [-target spirv[,wgsl,msl]] [-entry NAME] [-stage compute|pixel|vertex]
                       [-vulkan 1.1|1.2|1.3] [-D NAME[=VALUE]] [-I DIR] [-o DIR] [-json]
                       [-fvk-{b,t,u,s}-shift N M] [-auto-bindings] [-fspv-extension=NAME]
                       [-wgsl-dialect standard|naga] FILE.hlsl [FILE.hlsl …]

Compiles FILE.hlsl and prints one line per entry point with the Vulkan subgroup
features it needs, e.g. "CSSum (Compute): Basic, Arithmetic = 0x5".
-o DIR writes NAME.spv, NAME.wgsl, NAME.metal per entry point and target.
Several files compile in one process (as a build system would batch them): each
line is prefixed with the file, -o writes DIR/<file name>/NAME.*, -json prints one
object per file, and a file with errors writes nothing while the others do.
Exit status: 0 ok, 1 compile errors (nothing written), 2 bad flags.
`

// compileArgs is the parsed command line of `waverig compile`.
type compileArgs struct {
	opts   compiler.Options
	outDir string
	json   bool
	files  []string
}

// usageError is a bad command line (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// parseCompileArgs parses the compile flags by hand: the DXC-style flags take two
// values (-fvk-t-shift N M) or use '=' (-fspv-extension=NAME), which the flag
// package cannot express.
func parseCompileArgs(args []string) (*compileArgs, error) {
	c := &compileArgs{opts: compiler.Options{Defines: map[string]string{}}}
	next := func(i *int, name string) (string, error) {
		if *i+1 >= len(args) {
			return "", usageError{fmt.Sprintf("%s needs a value", name)}
		}
		*i++
		return args[*i], nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
		if strings.HasPrefix(name, "--") {
			name = name[1:]
		}
		var err error
		get := func() (string, error) {
			if hasVal {
				return val, nil
			}
			return next(&i, name)
		}
		switch {
		case name == "-target":
			var v string
			if v, err = get(); err == nil {
				c.opts.Targets, err = compiler.ParseTargets(v)
				if err != nil {
					err = usageError{err.Error()}
				}
			}
		case name == "-entry":
			c.opts.Entry, err = get()
		case name == "-stage":
			c.opts.Stage, err = get()
		case name == "-vulkan":
			c.opts.Vulkan, err = get()
		case name == "-o":
			c.outDir, err = get()
		case name == "-json":
			c.json = true
		case name == "-auto-bindings":
			c.opts.AutoBindings = true
		case name == "-wgsl-dialect":
			c.opts.WGSLDialect, err = get()
		case name == "-fspv-extension":
			var v string
			if v, err = get(); err == nil {
				c.opts.Extensions = append(c.opts.Extensions, v)
			}
		case name == "-D" || (strings.HasPrefix(a, "-D") && len(a) > 2):
			def := strings.TrimPrefix(a, "-D")
			if name == "-D" && !hasVal {
				def, err = next(&i, "-D")
			} else if name == "-D" {
				def = strings.TrimPrefix(a, "-D=")
			}
			if err == nil {
				k, v, _ := strings.Cut(def, "=")
				if k == "" {
					err = usageError{"-D needs NAME[=VALUE]"}
				}
				c.opts.Defines[k] = v
			}
		case name == "-I" || (strings.HasPrefix(a, "-I") && len(a) > 2):
			dir := strings.TrimPrefix(a, "-I")
			if dir == "" {
				dir, err = next(&i, "-I")
			}
			c.opts.IncludeDirs = append(c.opts.IncludeDirs, dir)
		case strings.HasPrefix(name, "-fvk-") && strings.HasSuffix(name, "-shift"):
			class := strings.TrimSuffix(strings.TrimPrefix(name, "-fvk-"), "-shift")
			if len(class) != 1 || !strings.Contains("btus", class) {
				return nil, usageError{fmt.Sprintf("unknown flag %s (use -fvk-b-shift, -fvk-t-shift, -fvk-u-shift, -fvk-s-shift)", name)}
			}
			if i+2 >= len(args) {
				return nil, usageError{fmt.Sprintf("%s needs two values: SHIFT SPACE", name)}
			}
			n, err1 := strconv.Atoi(args[i+1])
			m, err2 := strconv.Atoi(args[i+2])
			if err1 != nil || err2 != nil || n < 0 || m < 0 {
				return nil, usageError{fmt.Sprintf("%s %s %s: SHIFT and SPACE must be non-negative integers", name, args[i+1], args[i+2])}
			}
			i += 2
			if c.opts.Shifts == nil {
				c.opts.Shifts = map[byte]map[int]int{}
			}
			if c.opts.Shifts[class[0]] == nil {
				c.opts.Shifts[class[0]] = map[int]int{}
			}
			c.opts.Shifts[class[0]][m] = n
		case a == "-h" || a == "-help" || a == "--help":
			return nil, usageError{""}
		case strings.HasPrefix(a, "-") && a != "-":
			return nil, usageError{fmt.Sprintf("unknown flag %s", a)}
		default:
			c.files = append(c.files, a)
		}
		if err != nil {
			if _, ok := err.(usageError); ok {
				return nil, err
			}
			return nil, usageError{err.Error()}
		}
	}
	if len(c.files) == 0 {
		return nil, usageError{"no input file"}
	}
	return c, nil
}

func runCompile(args []string, stdout, stderr io.Writer) int {
	c, err := parseCompileArgs(args)
	if err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintf(stderr, "waverig compile: %s\n", msg)
		}
		fmt.Fprint(stderr, compileUsage)
		return 2
	}
	exit := 0
	multi := len(c.files) > 1
	var jsonOut []any
	for _, file := range c.files {
		res, err := compiler.CompileFile(file, c.opts)
		fmt.Fprint(stderr, res.Render())
		if err != nil {
			exit = 1
			continue
		}
		if c.outDir != "" {
			dir := c.outDir
			if multi {
				dir = filepath.Join(dir, strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)))
			}
			if _, err := res.WriteOutputs(dir); err != nil {
				fmt.Fprintf(stderr, "waverig compile: %v\n", err)
				exit = 1
				continue
			}
		}
		switch {
		case c.json && multi:
			jsonOut = append(jsonOut, struct {
				File string `json:"file"`
				compilerReflection
			}{file, compilerReflection{res.Reflection}})
		case c.json:
			jsonOut = append(jsonOut, res.Reflection)
		default:
			for _, e := range res.Reflection.EntryPoints {
				if multi {
					fmt.Fprintf(stdout, "%s: ", file)
				}
				fmt.Fprintln(stdout, e.Line())
			}
		}
	}
	if c.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		var v any = jsonOut
		if !multi && len(jsonOut) == 1 {
			v = jsonOut[0]
		}
		if err := enc.Encode(v); err != nil {
			fmt.Fprintf(stderr, "waverig compile: %v\n", err)
			return 1
		}
	}
	return exit
}

// compilerReflection embeds a reflection in the per-file JSON object.
type compilerReflection struct {
	reflect.Reflection
}
