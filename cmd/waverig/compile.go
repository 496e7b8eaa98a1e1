package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"waverig/compiler"
	"waverig/compiler/args"
	"waverig/compiler/reflect"
)

const compileUsage = `usage: waverig compile [-target spirv[,wgsl,msl]] [-entry NAME] [-stage compute|pixel|vertex|amplification|mesh]
                       [-vulkan 1.1|1.2|1.3] [-D NAME[=VALUE]] [-I DIR] [-o DIR] [-json]
                       [-fvk-{b,t,u,s}-shift N M] [-auto-bindings] [-fspv-extension=NAME]
                       [-wgsl-dialect standard|naga] FILE.hlsl [FILE.hlsl …]

Compiles FILE.hlsl and prints one line per entry point with the Vulkan subgroup
features it needs, e.g. "CSSum (Compute): Basic, Arithmetic = 0x5".
-o DIR writes NAME.spv, NAME.wgsl, NAME.metal per entry point and target.
Several files compile in one process (as a build system would batch them): each
line is prefixed with the file, -o writes DIR/<file name>/NAME.* (two files with
one name, or a name such as "..hlsl", are refused: exit 2), -json prints one
object per file, and a file with errors writes nothing while the others do.
Flags and files may come in any order; after "--" everything is a file.
Exit status: 0 ok, 1 compile errors (nothing written), 2 bad flags or flag
values (nothing compiled).
`

// compileArgs is the parsed command line of `waverig compile`.
type compileArgs struct {
	opts   compiler.Options
	outDir string
	json   bool
	files  []string
	// dirs is, with -o and several files, each file's output directory.
	dirs []string
}

// errCompileHelp is -h: the usage on stdout, exit 0.
var errCompileHelp = usageError{"help"}

// usageError is a bad command line (exit 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// parseCompileArgs turns the DXC-style flags (parsed by compiler/args, the same
// parser the fixture tests use) into compiler options. Flags and files may be
// interleaved (args.Parse reads the whole list, so a file name never hides the
// flags after it). Every flag value is checked here, before anything compiles,
// so a bad one is exit 2 like a bad flag.
func parseCompileArgs(list []string) (*compileArgs, error) {
	a, err := args.Parse(list)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	if a.Help {
		return nil, errCompileHelp
	}
	opts, err := compiler.OptionsFromArgs(a)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	if len(a.Files) == 0 {
		return nil, usageError{"no input file"}
	}
	c := &compileArgs{opts: opts, outDir: a.OutDir, json: a.JSON, files: a.Files}
	if c.outDir != "" && len(c.files) > 1 {
		if c.dirs, err = outputDirs(c.outDir, c.files); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// outputDirs gives each file its own directory under dir, named after the file
// without its extension: DIR/<name>. A name that would not be a plain
// directory inside dir ("..hlsl", "...hlsl", ".hlsl") is refused, and so are
// two files with one name in different folders (or differing only in case,
// which share a directory on case-insensitive file systems): one would
// silently overwrite the other. Both are usage errors, found before anything
// compiles.
func outputDirs(dir string, files []string) ([]string, error) {
	dirs := make([]string, len(files))
	first := map[string]string{} // lower-cased name -> first file
	for i, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		if name == "" || name == "." || name == ".." || !filepath.IsLocal(name) || strings.ContainsRune(name, filepath.Separator) {
			return nil, usageError{fmt.Sprintf("-o %s: %s cannot name an output directory inside %s (its name without the extension is %q); rename the file", dir, f, dir, name)}
		}
		key := strings.ToLower(name)
		if prev, dup := first[key]; dup {
			return nil, usageError{fmt.Sprintf("-o %s: %s and %s would both write to %s; rename one, or compile them with separate -o directories",
				dir, prev, f, filepath.Join(dir, name))}
		}
		first[key] = f
		dirs[i] = filepath.Join(dir, name)
	}
	return dirs, nil
}

func runCompile(args []string, stdout, stderr io.Writer) int {
	c, err := parseCompileArgs(args)
	if err == errCompileHelp {
		fmt.Fprint(stdout, compileUsage)
		return exitOK
	}
	if err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintf(stderr, "waverig compile: %s\n", msg)
		}
		fmt.Fprint(stderr, compileUsage)
		return exitUsage
	}
	exit := exitOK
	multi := len(c.files) > 1
	var jsonOut []any
	for i, file := range c.files {
		res, err := compiler.CompileFile(file, c.opts)
		fmt.Fprint(stderr, res.Render())
		if err != nil {
			exit = 1
			continue
		}
		if c.outDir != "" {
			dir := c.outDir
			if multi {
				dir = c.dirs[i]
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
