package pass

import (
	"waverig/harness/kernels"
	"waverig/harness/repro"
	"waverig/harness/results"
)

// writeRepro hands a kernel's failing records on a target, with the module
// that ran and the buffers it gave back, to harness/repro, which decides
// whether the failures deserve a bundle and writes it under ReproDir.
func (r *Rig) writeRepro(k kernels.Kernel, t target, size uint32, failed []results.Record, out map[string][]byte) error {
	m := r.compile(k, t)
	b := repro.Bundle{Kernel: k, API: t.api, Compiler: t.comp, CompilerSpec: r.cfg.compilerSpec(t.comp), Size: size,
		Device: r.dev, Driver: DriverString(r.dev), SPIRV: m.spirv, WGSL: m.wgsl, Failed: failed, Out: out}
	if m.err == nil {
		b.Binds = func(register string) bool { _, ok := m.binding(register); return ok }
	}
	return repro.Write(r.cfg.ReproDir, b)
}
