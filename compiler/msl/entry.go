package msl

import (
	"strings"

	"waverig/compiler/diag"
	"waverig/compiler/internal/textgen"
	"waverig/compiler/ir"
)

// builtinAttr is the Metal attribute of an IR builtin and the parameter types
// Metal accepts for it (the first is used when the IR type is not one of them).
func builtinAttr(b ir.Builtin) (attr string, types []string) {
	ids := []string{"uint3", "uint2", "uint"}
	switch b {
	case ir.BuiltinGlobalInvocationID:
		return "thread_position_in_grid", ids
	case ir.BuiltinLocalInvocationID:
		return "thread_position_in_threadgroup", ids
	case ir.BuiltinWorkgroupID:
		return "threadgroup_position_in_grid", ids
	case ir.BuiltinLocalInvocationIndex:
		return "thread_index_in_threadgroup", []string{"uint"}
	case ir.BuiltinPosition:
		return "position", []string{"float4"}
	case ir.BuiltinFrontFacing:
		return "front_facing", []string{"bool"}
	case ir.BuiltinSampleIndex:
		return "sample_id", []string{"uint"}
	case ir.BuiltinVertexIndex:
		return "vertex_id", []string{"uint"}
	case ir.BuiltinInstanceIndex:
		return "instance_id", []string{"uint"}
	}
	return "", nil
}

// entry prints the stage-IO structs and the entry function.
func (e *emitter) entry() {
	ep := e.ep
	f := ep.Func
	e.beginFunction(f, true)
	name := e.funcNames[f]
	in := e.info[f]

	var params, prologue []string
	// Resources, in argument order.
	byName := map[string]*ir.Global{}
	for _, g := range in.globals {
		if isResource(g) {
			byName[e.globalNames[g]] = g
		}
	}
	for _, a := range e.args {
		if g, ok := byName[a.Name]; ok {
			params = append(params, e.globalParam(g)+" [["+a.Kind+"("+textgen.Dec(a.Index)+")]]")
		} else if a.Name == "_buffer_sizes" {
			params = append(params, "constant uint* _buffer_sizes [[buffer("+textgen.Dec(a.Index)+")]]")
		}
	}

	// Stage inputs: builtins as attributed parameters, user inputs through [[stage_in]].
	var stageIn []string
	for _, g := range ep.Inputs {
		n := e.globalNames[g]
		t := e.typeName(g.Type)
		if g.Builtin != ir.BuiltinNone {
			attr, types := builtinAttr(g.Builtin)
			if attr == "" {
				e.errorf(g.Pos, diag.ErrMSLUnsupported, "input %s: builtin %s is not supported as a %s input", g.Name, g.Builtin, ep.Stage)
				continue
			}
			native := false
			for _, ty := range types {
				native = native || ty == t
			}
			if native {
				params = append(params, t+" "+n+" [["+attr+"]]")
			} else {
				params = append(params, types[0]+" "+n+"_in [["+attr+"]]")
				prologue = append(prologue, t+" "+n+" = "+t+"("+n+"_in);")
			}
			continue
		}
		attr := "user(loc" + textgen.Dec(g.Location) + ")"
		if ep.Stage == ir.Vertex {
			attr = "attribute(" + textgen.Dec(g.Location) + ")"
		}
		if g.Flat && ep.Stage == ir.Pixel {
			attr += ", flat"
		}
		stageIn = append(stageIn, "    "+t+" "+n+" [["+attr+"]];")
		prologue = append(prologue, t+" "+n+" = _wr_in."+n+";")
	}
	if len(stageIn) > 0 {
		sn := e.inStruct
		textgen.Write(e.out, "struct ", sn, "\n{\n", strings.Join(stageIn, "\n"), "\n};\n\n")
		params = append(params, sn+" _wr_in [[stage_in]]")
	}
	if in.laneCount {
		params = append(params, "uint _wr_lane_count [[threads_per_simdgroup]]")
	}
	if in.laneIndex {
		params = append(params, "uint _wr_lane_index [[thread_index_in_simdgroup]]")
	}
	var mesh *meshInterface
	if isMeshStage(ep.Stage) {
		if ep.Stage == ir.Mesh && hasReturn(f.Body) {
			e.errorf(ep.Pos, diag.ErrMSLMalformedInput, "mesh entry function %s returns before its end, where its outputs are gathered", ep.Name)
			return
		}
		mesh = e.meshEntryParams(&params, &prologue)
		if ep.Stage == ir.Mesh && mesh == nil {
			return
		}
	}

	// Stage outputs: a returned struct.
	result := "void"
	var outFields, outNames []string
	for _, g := range ep.Outputs {
		if mesh != nil {
			break // the mesh object, not a returned struct (mesh.go)
		}
		n := e.globalNames[g]
		var attr string
		switch {
		case g.Builtin == ir.BuiltinPosition:
			attr = "position"
		case g.Builtin != ir.BuiltinNone:
			e.errorf(g.Pos, diag.ErrMSLUnsupported, "output %s: builtin %s is not supported as a %s output", g.Name, g.Builtin, ep.Stage)
			continue
		case ep.Stage == ir.Pixel:
			attr = "color(" + textgen.Dec(g.Location) + ")"
		default:
			attr = "user(loc" + textgen.Dec(g.Location) + ")"
		}
		outFields = append(outFields, "    "+e.typeName(g.Type)+" "+n+" [["+attr+"]];")
		outNames = append(outNames, n)
		prologue = append(prologue, e.typeName(g.Type)+" "+n+" = {};")
	}
	if len(outFields) > 0 {
		result = e.outStruct
		textgen.Write(e.out, "struct ", result, "\n{\n", strings.Join(outFields, "\n"), "\n};\n\n")
		e.entryReturn = "return " + result + "{" + strings.Join(outNames, ", ") + "};"
	} else {
		e.entryReturn = "return;"
	}

	qual := map[ir.Stage]string{ir.Compute: "kernel", ir.Pixel: "fragment", ir.Vertex: "vertex",
		ir.Amplification: "[[object]]", ir.Mesh: "[[mesh]]"}[ep.Stage]
	textgen.Write(e.out, qual, " ", result, " ", name, "(", strings.Join(params, ", "), ")\n{\n")
	e.indent = 1
	// Module-scope state Metal keeps per invocation or per threadgroup lives here.
	for _, g := range in.globals {
		switch g.Space {
		case ir.SpacePrivate:
			init := "{}"
			if g.Init != nil {
				init = e.expr(g.Init)
			}
			e.lineS(e.typeName(g.Type), " ", e.globalNames[g], " = ", init, ";")
		case ir.SpaceWorkgroup:
			e.lineS("threadgroup ", e.typeName(g.Type), " ", e.globalNames[g], ";")
		case ir.SpaceOutput:
			if mesh != nil {
				e.lineS("threadgroup ", e.typeName(g.Type), " ", e.globalNames[g], ";")
			}
		}
	}
	if mesh != nil {
		e.meshPrologue()
	}
	for _, p := range prologue {
		e.lineS(p)
	}
	for _, l := range f.Locals {
		e.lineS(e.typeName(l.Type), " ", e.localNames[l], " = {};")
	}
	e.block(f.Body)
	if mesh != nil {
		e.meshGather(mesh)
	}
	if result != "void" && !endsInReturn(f.Body) {
		e.lineS(e.entryReturn)
	}
	e.out.WriteString("}\n")
}

func endsInReturn(b ir.Block) bool {
	if len(b) == 0 {
		return false
	}
	_, ok := b[len(b)-1].(*ir.Return)
	return ok
}
