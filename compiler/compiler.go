// Package compiler is waverig's HLSL compiler facade: it runs the pipeline
// syntax (preprocess, parse) -> sema (check, lower to IR) -> back ends (SPIR-V,
// WGSL, MSL) -> reflection, one output per entry point and target, and collects
// every diagnostic in one list. cmd/waverig and the harness call only this package.
package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"waverig/compiler/args"
	"waverig/compiler/diag"
	"waverig/compiler/ir"
	"waverig/compiler/msl"
	"waverig/compiler/reflect"
	"waverig/compiler/sema"
	"waverig/compiler/spirv"
	"waverig/compiler/syntax"
	"waverig/compiler/wgsl"
)

// Target is an output language.
type Target int

const (
	SPIRV Target = iota + 1
	WGSL
	MSL
)

func (t Target) String() string {
	switch t {
	case SPIRV:
		return "spirv"
	case WGSL:
		return "wgsl"
	case MSL:
		return "msl"
	}
	return "?"
}

// Ext is the file extension written for the target.
func (t Target) Ext() string {
	switch t {
	case SPIRV:
		return ".spv"
	case WGSL:
		return ".wgsl"
	case MSL:
		return ".metal"
	}
	return ""
}

// ParseTargets parses "spirv,wgsl,msl".
func ParseTargets(s string) ([]Target, error) {
	var out []Target
	for _, name := range strings.Split(s, ",") {
		switch strings.TrimSpace(strings.ToLower(name)) {
		case "spirv", "spv", "spir-v":
			out = append(out, SPIRV)
		case "wgsl":
			out = append(out, WGSL)
		case "msl", "metal":
			out = append(out, MSL)
		default:
			return nil, fmt.Errorf("unknown target %q (use spirv, wgsl or msl)", name)
		}
	}
	return out, nil
}

// Options configure a compile. The zero value compiles every [shader] entry point
// to SPIR-V for Vulkan 1.2 with DXC-compatible bindings.
type Options struct {
	Targets     []Target // default: SPIRV
	Entry       string   // -entry
	Stage       string   // -stage compute|pixel|vertex
	Vulkan      string   // -vulkan 1.1|1.2|1.3 (default 1.2)
	Defines     map[string]string
	IncludeDirs []string
	// Shifts holds -fvk-{b,t,u,s}-shift N M: Shifts[class][space] = N.
	Shifts       map[byte]map[int]int
	AutoBindings bool
	Extensions   []string // -fspv-extension=NAME
	// WGSLDialect is "standard" (default) or "naga" (wgpu / wgpu-native).
	WGSLDialect string
	// WGSLVertexWaveSize is what WaveGetLaneCount returns in a vertex entry
	// point in the naga dialect (wgsl.Options.VertexWaveSize).
	WGSLVertexWaveSize uint32
	// ReadFile replaces the reading of the main file and #includes (tests and
	// fuzzing); nil reads regular files of at most MaxSourceBytes (ReadSource).
	ReadFile func(string) ([]byte, error)
}

// Output is one emitted artefact.
type Output struct {
	Entry  string
	Target Target
	Data   []byte
}

// Result is everything a compile produced. It is returned even when the compile
// failed, so callers can print the diagnostics.
type Result struct {
	Diagnostics []diag.Msg
	Sources     []*diag.Source
	Module      *ir.Module
	Reflection  reflect.Reflection
	Outputs     []Output
}

// Find returns the output for an entry point and target, or nil.
func (r *Result) Find(entry string, t Target) []byte {
	for _, o := range r.Outputs {
		if o.Entry == entry && o.Target == t {
			return o.Data
		}
	}
	return nil
}

// Entry returns the reflection of an entry point, or nil.
func (r *Result) Entry(name string) *reflect.EntryPoint {
	for _, e := range r.Reflection.EntryPoints {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// CompileFile compiles the HLSL file at path.
func CompileFile(path string, opts Options) (*Result, error) {
	return compile(path, nil, opts)
}

// Compile compiles in-memory HLSL; name is used in positions and to resolve #include.
func Compile(name string, src []byte, opts Options) (*Result, error) {
	if src == nil {
		src = []byte{}
	}
	return compile(name, src, opts)
}

func compile(name string, src []byte, opts Options) (res *Result, err error) {
	log := &diag.Log{}
	res = &Result{}
	// A panic anywhere below is a compiler bug; report it as a coded internal error
	// instead of taking the caller (a long rig run) down with it.
	defer func() {
		if p := recover(); p != nil {
			log.Errorf(diag.Pos{}, diag.ErrInternal, "internal compiler error: %v", p)
			res.Diagnostics = log.Sorted()
			err = &diag.Errors{Msgs: errorsOf(res.Diagnostics)}
		}
	}()
	if err := validate(&opts); err != nil {
		log.Errorf(diag.Pos{}, diag.ErrBadOption, "%v", err)
		res.Diagnostics = log.Sorted()
		return res, &diag.Errors{Msgs: res.Diagnostics}
	}
	sopts := syntax.Options{Defines: opts.Defines, IncludeDirs: opts.IncludeDirs, ReadFile: opts.ReadFile}
	var file *syntax.File
	if src == nil {
		file, res.Sources = syntax.ParseFile(name, sopts, log)
	} else {
		file, res.Sources = syntax.Parse(name, src, sopts, log)
	}
	var mod *ir.Module
	if !log.HasErrors() {
		mod = sema.Check(file, sema.Options{
			Entry: opts.Entry, Stage: opts.Stage, Shifts: opts.Shifts, AutoBindings: opts.AutoBindings,
			PartitionedNV: hasExt(opts.Extensions, "SPV_NV_shader_subgroup_partitioned"),
		}, log)
	}
	res.Module = mod
	if mod != nil && !log.HasErrors() {
		emit(mod, opts, res, log)
	}
	res.Diagnostics = log.Sorted()
	if log.HasErrors() {
		res.Outputs = nil
		return res, &diag.Errors{Msgs: errorsOf(res.Diagnostics)}
	}
	return res, nil
}

func emit(mod *ir.Module, opts Options, res *Result, log *diag.Log) {
	targets := opts.Targets
	if len(targets) == 0 {
		targets = []Target{SPIRV}
	}
	spvOpts := spirv.Options{Vulkan: opts.Vulkan, PartitionedNV: hasExt(opts.Extensions, "SPV_NV_shader_subgroup_partitioned"), Extensions: opts.Extensions}
	dialect := wgsl.Standard
	if opts.WGSLDialect == "naga" {
		dialect = wgsl.Naga
	}
	for _, ep := range mod.EntryPoints {
		// SPIR-V is always emitted: the reflection's subgroup bits are read off its
		// declared capabilities, even when only WGSL or MSL was asked for.
		spv, err := spirv.EmitEntry(mod, ep, spvOpts)
		if err != nil {
			addErr(log, err)
			continue
		}
		r := reflect.Build(mod, ep, spv.SubgroupBits, capabilityNames(spv.Capabilities), spv.Extensions)
		res.Reflection.EntryPoints = append(res.Reflection.EntryPoints, r)
		for _, t := range targets {
			switch t {
			case SPIRV:
				res.Outputs = append(res.Outputs, Output{ep.Name, SPIRV, spv.Bytes()})
			case WGSL:
				out, err := wgsl.EmitEntry(mod, ep, wgsl.Options{Dialect: dialect, VertexWaveSize: opts.WGSLVertexWaveSize})
				if err != nil {
					addErr(log, err)
					continue
				}
				r.WebGPUFeatures = out.RequiredFeatures
				addWarnings(log, out.Warnings)
				res.Outputs = append(res.Outputs, Output{ep.Name, WGSL, []byte(out.Source)})
			case MSL:
				out, err := msl.EmitEntry(mod, ep, msl.Options{})
				if err != nil {
					addErr(log, err)
					continue
				}
				addWarnings(log, out.Warnings)
				for _, a := range out.Arguments {
					r.MSLArguments = append(r.MSLArguments, reflect.MSLArgument{Kind: a.Kind, Index: a.Index, Set: a.Set, Binding: a.Binding, Name: a.Name})
				}
				res.Outputs = append(res.Outputs, Output{ep.Name, MSL, []byte(out.Source)})
			}
		}
	}
}

// addErr moves a back end's error into the log, keeping codes and positions.
func addErr(log *diag.Log, err error) {
	if de, ok := err.(*diag.Errors); ok {
		for _, m := range de.Msgs {
			log.Add(m)
		}
		return
	}
	log.Errorf(diag.Pos{}, diag.ErrInternal, "%v", err)
}

// addWarnings moves a back end's warnings into the log.
func addWarnings(log *diag.Log, ws []diag.Msg) {
	for _, m := range ws {
		log.Add(m)
	}
}

func errorsOf(ms []diag.Msg) []diag.Msg {
	var out []diag.Msg
	for _, m := range ms {
		if m.Severity == diag.Error {
			out = append(out, m)
		}
	}
	return out
}

// supportedExtensions are the SPIR-V extensions -fspv-extension may enable:
// the partitioned operations (WaveMatch, WaveMultiPrefix*) and the quad votes'
// own instructions (QuadAny, QuadAll; without it they use QuadSwap).
var supportedExtensions = []string{"SPV_NV_shader_subgroup_partitioned", "SPV_KHR_quad_control"}

func hasExt(exts []string, name string) bool {
	for _, e := range exts {
		if e == name {
			return true
		}
	}
	return false
}

func validate(o *Options) error {
	switch o.Vulkan {
	case "", "1.1", "1.2", "1.3":
	default:
		return fmt.Errorf("-vulkan %q: use 1.1, 1.2 or 1.3", o.Vulkan)
	}
	switch o.Stage {
	case "", "compute", "pixel", "vertex", "amplification", "mesh":
	default:
		return fmt.Errorf("-stage %q: use compute, pixel, vertex, amplification or mesh", o.Stage)
	}
	if o.Stage != "" && o.Entry == "" {
		return fmt.Errorf("-stage needs -entry")
	}
	switch o.WGSLDialect {
	case "", "standard", "naga":
	default:
		return fmt.Errorf("-wgsl-dialect %q: use standard or naga", o.WGSLDialect)
	}
	for _, e := range o.Extensions {
		if !hasExt(supportedExtensions, e) {
			return fmt.Errorf("-fspv-extension=%s is not supported (supported: %s)", e, strings.Join(supportedExtensions, ", "))
		}
	}
	return nil
}

// OptionsFromArgs turns parsed command-line flags into compile options and
// checks every value (-vulkan, -stage, -target, …), so that a command line
// reports a bad value before it compiles anything.
func OptionsFromArgs(a *args.Args) (Options, error) {
	o := Options{Entry: a.Entry, Stage: a.Stage, Vulkan: a.Vulkan, Defines: a.Defines, IncludeDirs: a.IncludeDirs,
		Shifts: a.Shifts, AutoBindings: a.AutoBindings, Extensions: a.Extensions, WGSLDialect: a.WGSLDialect}
	if len(a.Targets) > 0 {
		ts, err := ParseTargets(strings.Join(a.Targets, ","))
		if err != nil {
			return o, err
		}
		o.Targets = ts
	}
	return o, validate(&o)
}

// WriteOutputs writes NAME.spv / NAME.wgsl / NAME.metal into dir.
func (r *Result) WriteOutputs(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	for _, o := range r.Outputs {
		p := filepath.Join(dir, o.Entry+o.Target.Ext())
		if err := os.WriteFile(p, o.Data, 0o644); err != nil {
			return written, err
		}
		written = append(written, p)
	}
	return written, nil
}

// Render renders all diagnostics (with source lines and carets) for a terminal.
func (r *Result) Render() string {
	var b strings.Builder
	for _, m := range r.Diagnostics {
		b.WriteString(m.Render())
	}
	return b.String()
}
