package wgsl

import (
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/internal/textgen"
	"waverig/compiler/ir"
)

// builtinType is the WGSL type of each builtin value.
func builtinType(b ir.Builtin) ir.Type {
	switch b {
	case ir.BuiltinGlobalInvocationID, ir.BuiltinLocalInvocationID, ir.BuiltinWorkgroupID:
		return ir.Vector{Elem: ir.U32, N: 3}
	case ir.BuiltinPosition:
		return ir.Vector{Elem: ir.F32, N: 4}
	case ir.BuiltinFrontFacing:
		return ir.BoolT
	}
	return ir.U32
}

// builtinStages says where WGSL allows a builtin as an input (in) or output.
func builtinValid(b ir.Builtin, stage ir.Stage, input bool) bool {
	switch b {
	case ir.BuiltinGlobalInvocationID, ir.BuiltinLocalInvocationID, ir.BuiltinWorkgroupID, ir.BuiltinLocalInvocationIndex:
		return stage == ir.Compute && input
	case ir.BuiltinPosition:
		return (stage == ir.Pixel && input) || (stage == ir.Vertex && !input)
	case ir.BuiltinFrontFacing, ir.BuiltinSampleIndex:
		return stage == ir.Pixel && input
	case ir.BuiltinVertexIndex, ir.BuiltinInstanceIndex:
		return stage == ir.Vertex && input
	}
	return false
}

// convertIO converts between a WGSL builtin's type and the IR global's type
// (HLSL allows uint for SV_DispatchThreadID, int3 for SV_GroupThreadID, …).
func (e *emitter) convertIO(text string, from, to ir.Type) string {
	if ir.Equal(from, to) {
		return text
	}
	fn, tn := ir.Components(from), ir.Components(to)
	if tn < fn {
		if tn == 1 {
			text += ".x"
		} else {
			text += "." + "xyzw"[:tn]
		}
		from = ir.WithScalar(ir.VecOf(mustScalar(from), tn), mustScalar(from))
	}
	if ir.Equal(from, to) {
		return text
	}
	return e.typ(to, view{}, e.ep.Pos) + "(" + text + ")"
}

func mustScalar(t ir.Type) ir.Scalar {
	s, _ := ir.ScalarOf(t)
	return s
}

// interpolation: WGSL requires flat interpolation for integer stage IO.
func needsFlat(g *ir.Global) bool {
	if g.Flat {
		return true
	}
	s, ok := ir.ScalarOf(g.Type)
	return ok && s.Kind != ir.Float
}

// entry prints the WGSL entry function: stage IO as parameters and a returned
// struct, copied from/to the private variables the IR functions use.
func (e *emitter) entry(b *strings.Builder) {
	ep := e.ep
	n := newNamer(e.names)
	var attrs string
	switch ep.Stage {
	case ir.Compute:
		nt := ep.NumThreads
		for i := range nt {
			if nt[i] <= 0 {
				nt[i] = 1
			}
		}
		attrs = "@compute @workgroup_size(" + textgen.Dec(nt[0]) + ", " + textgen.Dec(nt[1]) + ", " + textgen.Dec(nt[2]) + ")"
	case ir.Pixel:
		attrs = "@fragment"
	case ir.Vertex:
		attrs = "@vertex"
	default:
		e.errorf(ep.Pos, diag.ErrWGSLInternal, "entry point %s has unknown stage %v", ep.Name, ep.Stage)
	}
	var params, body []string
	for _, g := range ep.Inputs {
		name := e.globalNames[g]
		pn := n.fresh(name + "_in")
		if g.Builtin != ir.BuiltinNone {
			if !builtinValid(g.Builtin, ep.Stage, true) {
				e.errorf(g.Pos, diag.ErrWGSLStage, "%s (%s) is not a %s shader input in WGSL", g.Name, g.Semantic, stageWord(ep.Stage))
				continue
			}
			bt := builtinType(g.Builtin)
			params = append(params, "@builtin("+g.Builtin.String()+") "+pn+": "+e.typ(bt, view{}, g.Pos))
			body = append(body, name+" = "+e.convertIO(pn, bt, g.Type)+";")
			continue
		}
		interp := ""
		if ep.Stage == ir.Pixel && needsFlat(g) {
			interp = "@interpolate(flat) "
		}
		params = append(params, "@location("+textgen.Dec(g.Location)+") "+interp+pn+": "+e.typ(g.Type, view{}, g.Pos))
		body = append(body, name+" = "+pn+";")
	}
	vertexNaga := ep.Stage == ir.Vertex && e.opts.Dialect == Naga
	switch {
	case e.usesLaneIndex && vertexNaga:
		// naga 29 has no subgroup_invocation_id in vertex shaders. At the
		// entry every invocation of the wave is active, and the exclusive
		// count of the active invocations below an invocation, taken in
		// invocation order (WGSL's scans are), names the set bit of the
		// ballot that is its own: its subgroup invocation id, exactly.
		body = append(body, e.laneIndexVar+" = "+e.vertexLaneHelper()+"();")
	case e.usesLaneIndex:
		pn := n.internal("wr_subgroup_invocation_id")
		params = append(params, "@builtin(subgroup_invocation_id) "+pn+": u32")
		body = append(body, e.laneIndexVar+" = "+pn+";")
	}
	switch {
	case e.usesLaneCount && vertexNaga && e.opts.VertexWaveSize == 0:
		e.errorf(ep.Pos, diag.ErrWGSLVertexLaneCount, "WaveGetLaneCount in vertex shader %s: naga has no subgroup_size built-in in vertex shaders, and no wave size was given for it", ep.Name)
	case e.usesLaneCount && vertexNaga:
		body = append(body, e.laneCountVar+" = "+textgen.Dec(e.opts.VertexWaveSize)+"u; // the device's subgroupSize (naga has no subgroup_size here)")
	case e.usesLaneCount:
		pn := n.internal("wr_subgroup_size")
		params = append(params, "@builtin(subgroup_size) "+pn+": u32")
		body = append(body, e.laneCountVar+" = "+pn+";")
	}
	body = append(body, e.funcNames[ep.Func]+"();")

	result := ""
	if len(ep.Outputs) > 0 {
		sname := e.names.fresh(ep.Name + "_Output")
		var fields, values []string
		fn := newNamer(nil)
		for _, g := range ep.Outputs {
			name := e.globalNames[g]
			if g.Builtin != ir.BuiltinNone {
				if !builtinValid(g.Builtin, ep.Stage, false) {
					e.errorf(g.Pos, diag.ErrWGSLStage, "%s (%s) is not a %s shader output in WGSL", g.Name, g.Semantic, stageWord(ep.Stage))
					continue
				}
				bt := builtinType(g.Builtin)
				fields = append(fields, "  @builtin("+g.Builtin.String()+") "+fn.fresh(g.Name)+": "+e.typ(bt, view{}, g.Pos)+",")
				values = append(values, e.convertIO(name, g.Type, bt))
				continue
			}
			if s, ok := ir.ScalarOf(g.Type); ok && s.Kind == ir.Bool {
				e.errorf(g.Pos, diag.ErrWGSLType, "output %s: bool is not a WGSL stage output type", g.Name)
				continue
			}
			interp := ""
			if ep.Stage == ir.Vertex && needsFlat(g) {
				interp = "@interpolate(flat) "
			}
			fields = append(fields, "  @location("+textgen.Dec(g.Location)+") "+interp+fn.fresh(g.Name)+": "+e.typ(g.Type, view{}, g.Pos)+",")
			values = append(values, name)
		}
		e.structDecls = append(e.structDecls, "// Stage outputs of "+ep.Name+".\nstruct "+sname+" {\n"+strings.Join(fields, "\n")+"\n}\n")
		result = " -> " + sname
		body = append(body, "return "+sname+"("+strings.Join(values, ", ")+");")
	}

	textgen.Write(b, attrs, "\nfn ", ep.Name, "(")
	if len(params) > 0 {
		b.WriteString("\n  " + strings.Join(params, ",\n  ") + ",\n")
	}
	textgen.Write(b, ")", result, " {\n")
	for _, s := range body {
		b.WriteString("  " + s + "\n")
	}
	b.WriteString("}\n")
}

func stageWord(s ir.Stage) string {
	switch s {
	case ir.Compute:
		return "compute"
	case ir.Pixel:
		return "pixel"
	}
	return "vertex"
}

// vertexLaneHelper is the function that finds an invocation's subgroup
// invocation id without the built-in (naga's vertex stage): the position of
// the set bit of subgroupBallot(true) whose rank among the set bits is the
// invocation's subgroupExclusiveAdd(1u).
func (e *emitter) vertexLaneHelper() string {
	return e.helper("vertex_lane_index", func(name string) string {
		return "fn " + name + "() -> u32 {\n" +
			"  let mask = subgroupBallot(true);\n" +
			"  var rank = subgroupExclusiveAdd(1u);\n" +
			"  for (var w = 0u; w < 4u; w = w + 1u) {\n" +
			"    let n = countOneBits(mask[w]);\n" +
			"    if (rank < n) {\n" +
			"      var bits = mask[w];\n" +
			"      for (var k = 0u; k < rank; k = k + 1u) {\n" +
			"        bits = bits & (bits - 1u);\n" +
			"      }\n" +
			"      return w * 32u + firstTrailingBit(bits);\n" +
			"    }\n" +
			"    rank = rank - n;\n" +
			"  }\n" +
			"  return 0u;\n" +
			"}\n"
	})
}
