package kernels

import (
	"fmt"
	"strings"

	"waverig/compiler/intrinsics"
	"waverig/harness/models"
)

// Task (amplification) and mesh kernels. Both stages run workgroups as
// compute does (SV_GroupID, SV_GroupIndex, [numthreads]), so an operation
// kernel of either stage is a compute kernel's record body in a task or mesh
// entry point: the same records, the same pre-written inputs and sentinels,
// and the same checker and models (Check), per stage. A task kernel launches
// no mesh group (DispatchMesh(0, 1, 1, ...)) and carries a mesh entry that does
// nothing; a mesh kernel is drawn without a task stage, its grid launching the
// mesh workgroups directly. Mesh entries write no output
// (SetMeshOutputCounts(0, 0) and no vertex or index store): mesh-output writes
// are reported to crash lavapipe before Mesa 26.2.
//
// The meshlet-compaction kernels (MeshletCompaction, mesh_check.go) are what
// engines write (the DirectX sample MeshletCull): each task invocation has a
// visible bit, writes WavePrefixCountBits, WaveActiveCountBits and
// WaveActiveBallot of it, and the group calls
// DispatchMesh(WaveActiveCountBits(visible), 1, 1, payload) — a value that
// differs between the group's waves when the group is larger than a wave.

// MeshDraw describes how a task or mesh kernel is drawn.
type MeshDraw struct {
	// TaskEntry is the task (amplification) entry point; "" for mesh kernels,
	// which are drawn without a task stage.
	TaskEntry string
	// MeshEntry is the mesh entry point.
	MeshEntry string
	// Groups is vkCmdDrawMeshTasksEXT's grid: task workgroups, or mesh
	// workgroups without a task stage.
	Groups [3]uint32
}

// The task and mesh kernels' entry points.
const (
	asEntry = "ASMain"
	msEntry = "MSMain"
)

// MeshShapes are the operation kernels' workgroups in both stages: whole waves
// at every legal size up to 64, a partial last wave at every size, and the
// 27-invocation groups on a 2×2×2 grid (a 3-D grid of workgroups; a 3-lane
// last wave at 4 and 8 lanes). Every shape fits the spec's minimum
// maxTaskWorkGroupInvocations and maxMeshWorkGroupInvocations (128).
var MeshShapes = []Shape{Shapes[0], Shapes[1], ExtraShapes[len(ExtraShapes)-1]}

// MeshMatrix is the task or mesh matrix, filtered, in a fixed order: one
// kernel per (operation, shape) for the 32-bit types (Wave24 order), then for
// the task stage the meshlet-compaction kernels. Any other stage gives nil.
func MeshMatrix(stage Stage, f Filter) []Kernel {
	if stage != Task && stage != Mesh {
		return nil
	}
	var out []Kernel
	for _, op := range intrinsics.Wave24 {
		types := opTypes(op, families[0])
		for _, sh := range MeshShapes {
			if sh.Threads() < minThreads(op) {
				continue
			}
			var cases []Case
			for _, t := range types {
				if !sh.takes(t, families[0].scalars) {
					continue
				}
				for _, p := range Patterns {
					for _, s := range sh.seeds(p) {
						if c := (Case{Op: op, Type: t, Pattern: p, Shape: sh, Seed: s}); f.keep(c) {
							cases = append(cases, c)
						}
					}
				}
			}
			name := fmt.Sprintf("%s_%s_%s_%s", stage, op, families[0].name, sh.Name)
			if len(cases) == 0 || !f.wantsKernel(name) {
				continue
			}
			k, err := buildMeshStage(name, stage, cases)
			if err != nil {
				continue // static matrix: the package's tests catch generator bugs
			}
			out = append(out, k)
		}
	}
	if stage == Task {
		out = append(out, compactionKernels(f)...)
	}
	return out
}

// buildMeshStage makes one operation kernel of the task or mesh stage: the
// compute kernel of the cases with its source moved into the stage's entry.
func buildMeshStage(name string, stage Stage, cases []Case) (Kernel, error) {
	k, err := build(name, cases)
	if err != nil {
		return Kernel{}, err
	}
	types, _, err := caseTypes(name, cases)
	if err != nil {
		return Kernel{}, err
	}
	sh := cases[0].Shape
	k.Stage = stage
	k.HLSL = meshStageHLSL(name, stage, cases[0].Op, sh, types)
	k.MeshDraw = &MeshDraw{MeshEntry: msEntry, Groups: k.Groups}
	k.Entry = msEntry
	if stage == Task {
		k.MeshDraw.TaskEntry, k.Entry = asEntry, asEntry
	}
	k.Groups = [3]uint32{}
	return k, nil
}

// emptyMeshDecls declares the mesh entries' (unwritten) outputs.
const emptyMeshDecls = "struct MeshVertex\n{\n    float4 pos : SV_Position;\n};\n\n"

// emitEmptyMeshEntry writes a mesh entry that emits nothing: the pipeline of a
// task kernel needs a mesh stage, and this one is never launched
// (DispatchMesh(0, ...)).
func emitEmptyMeshEntry(sb *strings.Builder, payload string) {
	sb.WriteString("[shader(\"mesh\")]\n[outputtopology(\"triangle\")]\n[numthreads(1, 1, 1)]\n")
	fmt.Fprintf(sb, "void %s(%sout vertices MeshVertex verts[3], out indices uint3 tris[1])\n{\n", msEntry, payload)
	sb.WriteString("    SetMeshOutputCounts(0u, 0u);\n}\n")
}

// meshStageHLSL is an operation kernel's source in the task or mesh stage (a
// task kernel's source also holds its never-launched mesh entry).
func meshStageHLSL(name string, stage Stage, op intrinsics.Op, sh Shape, types []Type) string {
	var sb strings.Builder
	nt := sh.NumThreads
	fmt.Fprintf(&sb, "// waverig generated %s kernel %s: %s, numthreads(%d, %d, %d).\n", stage, name, op, nt[0], nt[1], nt[2])
	fmt.Fprintf(&sb, "// Record of %d uints per invocation: flat, key, lane, count, branch, lane arg, ctl, coin, in[8], out[8].\n", recWords)
	sb.WriteString("RWStructuredBuffer<uint> rec : register(u0);\n")
	doubleView(&sb, op, types)
	sb.WriteString("\n" + emptyMeshDecls)
	if stage == Task {
		sb.WriteString("struct MeshPayload\n{\n    uint unused;\n};\n\ngroupshared MeshPayload pl;\n\n")
		fmt.Fprintf(&sb, "[shader(\"amplification\")]\n[numthreads(%d, %d, %d)]\n", nt[0], nt[1], nt[2])
		fmt.Fprintf(&sb, "void %s(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)\n{\n", asEntry)
		fmt.Fprintf(&sb, "    uint flat = %s;\n", sh.flatHLSL())
		emitRecordBody(&sb, op, sh.Threads(), types)
		sb.WriteString("    // No mesh group is launched: the records are the test.\n")
		sb.WriteString("    pl.unused = 0u;\n    DispatchMesh(0u, 1u, 1u, pl);\n}\n\n")
		emitEmptyMeshEntry(&sb, "")
		return sb.String()
	}
	fmt.Fprintf(&sb, "[shader(\"mesh\")]\n[outputtopology(\"triangle\")]\n[numthreads(%d, %d, %d)]\n", nt[0], nt[1], nt[2])
	fmt.Fprintf(&sb, "void %s(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex, out vertices MeshVertex verts[3], out indices uint3 tris[1])\n{\n", msEntry)
	sb.WriteString("    // No output: the records are the test (and lavapipe before Mesa 26.2 is\n    // reported to crash on mesh-output writes).\n    SetMeshOutputCounts(0u, 0u);\n")
	fmt.Fprintf(&sb, "    uint flat = %s;\n", sh.flatHLSL())
	emitRecordBody(&sb, op, sh.Threads(), types)
	sb.WriteString("}\n")
	return sb.String()
}

// Compaction is the case name of the meshlet-compaction kernels.
const Compaction = "MeshletCompaction"

// CompactionShapes are the compaction kernels' task workgroups, smaller and
// larger than a wave at every size the rig meets (4 to 64 lanes): 4, 32, 64
// and 128 invocations, three task groups per case.
var CompactionShapes = []Shape{
	{Name: "ts4", NumThreads: [3]int{4, 1, 1}, Groups: [3]int{3, 1, 1}},
	{Name: "ts32", NumThreads: [3]int{32, 1, 1}, Groups: [3]int{3, 1, 1}},
	{Name: "ts64", NumThreads: [3]int{64, 1, 1}, Groups: [3]int{3, 1, 1}},
	{Name: "ts128", NumThreads: [3]int{128, 1, 1}, Groups: [3]int{3, 1, 1}},
}

// CompactionPatterns decide each task invocation's visible bit from its
// SV_GroupIndex (not its lane: which wave sees how many visible invocations
// is then the driver's layout): all, every even index, none of the odd ones,
// the first and the last index only, the first half, and seeded coins.
var CompactionPatterns = []Pattern{All, Even, Odd, First, Last, FirstHalf, Random}

// The compaction record (u0, uint words per task invocation) and the launch
// records (u1: a slot counter, then one record per mesh group launched).
const (
	cFlat    = 0  // task group * threads + SV_GroupIndex
	cKey     = 1  // WaveReadLaneFirst(flat)
	cLane    = 2  // WaveGetLaneIndex()
	cCount   = 3  // WaveGetLaneCount()
	cVisible = 4  // pre: the visible bit
	cPrefix  = 5  // WavePrefixCountBits(visible)
	cActive  = 6  // WaveActiveCountBits(visible)
	cBallot  = 7  // WaveActiveBallot(visible), 4 words
	cCase    = 11 // pre: the case index
	cWords   = 12

	launchHeader  = 4 // u1 words before the first launch record (word 0: the slot counter)
	lGroup        = 0 // the task group the payload names
	lMeshGroup    = 1 // SV_GroupID.x of the mesh group
	lPayloadCount = 2 // the count the payload carries (SV_GroupIndex 0's wave's)
	lMarker       = 3 // launchMarker
	launchWords   = 4
	launchMarker  = 0x600DF00D
	compactionReg = "u0"
	launchReg     = "u1"
)

// visibleOf is a compaction pattern's visible bit for group index gi of a
// group of threads (coin: the random pattern's).
func visibleOf(p Pattern, gi, threads int, coin uint32) bool {
	switch p {
	case All:
		return true
	case Even:
		return gi%2 == 0
	case Odd:
		return gi%2 == 1
	case First:
		return gi == 0
	case Last:
		return gi == threads-1
	case FirstHalf:
		return gi < threads/2
	case Random:
		return coin != 0
	}
	return false
}

// compactionKernels is one meshlet-compaction kernel per CompactionShapes
// entry, its cases the patterns (random with RandomSeeds[0]).
func compactionKernels(f Filter) []Kernel {
	var out []Kernel
	for _, sh := range CompactionShapes {
		var cases []Case
		for _, p := range CompactionPatterns {
			c := Case{Name: Compaction, Op: intrinsics.WaveActiveCountBits, Type: Type{"bool", 1}, Pattern: p, Shape: sh}
			if p == Random {
				c.Seed = RandomSeeds[0]
			}
			if f.keep(c) {
				cases = append(cases, c)
			}
		}
		name := fmt.Sprintf("task_%s_%s", Compaction, sh.Name)
		if len(cases) == 0 || !f.wantsKernel(name) {
			continue
		}
		k, err := buildCompaction(name, cases)
		if err != nil {
			continue
		}
		out = append(out, k)
	}
	return out
}

// buildCompaction makes one compaction kernel: case i's task groups are
// groups [i*per, (i+1)*per) of the grid.
func buildCompaction(name string, cases []Case) (Kernel, error) {
	sh := cases[0].Shape
	if err := sh.validate(); err != nil {
		return Kernel{}, err
	}
	threads, per := sh.Threads(), sh.GroupCount()
	groups := len(cases) * per
	rec := make([]uint32, groups*threads*cWords)
	for i := range rec {
		rec[i] = outSentinel
	}
	for ci, c := range cases {
		if c.Name != Compaction || c.Shape.Name != sh.Name {
			return Kernel{}, fmt.Errorf("kernels: %s: case %s is not a compaction case of shape %s", name, c.ID(), sh.Name)
		}
		_, coin := groupInputs(c, models.Type{Scalar: models.Bool, N: 1}, 0, threads*per)
		for g := 0; g < per; g++ {
			for gi := 0; gi < threads; gi++ {
				r := rec[((ci*per+g)*threads+gi)*cWords:][:cWords]
				r[cVisible] = 0
				if visibleOf(c.Pattern, gi, threads, coin[g*threads+gi]) {
					r[cVisible] = 1
				}
				r[cCase] = uint32(ci)
			}
		}
	}
	// Every task group launches at most one mesh group per invocation.
	launch := make([]uint32, launchHeader+groups*threads*launchWords)
	for i := launchHeader; i < len(launch); i++ {
		launch[i] = outSentinel
	}
	grid := sh.Grid(len(cases))
	return Kernel{
		Name: name, Entry: asEntry, Stage: Task, HLSL: compactionHLSL(name, sh), Cases: cases,
		Buffers: []Buffer{
			{Register: compactionReg, Data: bytesOf(rec)},
			{Register: launchReg, Data: bytesOf(launch)},
		},
		MeshDraw: &MeshDraw{TaskEntry: asEntry, MeshEntry: msEntry, Groups: grid},
	}, nil
}

// compactionHLSL is a compaction kernel's source: the MeshletCull-style task
// shader and a one-invocation mesh shader per launched group that records
// the payload it read.
func compactionHLSL(name string, sh Shape) string {
	var sb strings.Builder
	n := sh.Threads()
	fmt.Fprintf(&sb, "// waverig generated task kernel %s: meshlet compaction, numthreads(%d, 1, 1).\n", name, n)
	fmt.Fprintf(&sb, "// Record of %d uints per task invocation: flat, key, lane, count, visible, prefix, active count, ballot[4], case.\n", cWords)
	fmt.Fprintf(&sb, "// Launch records after %d header words (word 0 the slot counter): task group, mesh group, payload count, marker.\n", launchHeader)
	// Both entries in one source: -auto-bindings numbers the file's registers,
	// so the two modules agree on the bindings of one pipeline layout.
	sb.WriteString("RWStructuredBuffer<uint> rec : register(u0);\n")
	sb.WriteString("RWStructuredBuffer<uint> launched : register(u1);\n\n")
	sb.WriteString(emptyMeshDecls)
	sb.WriteString("struct CullPayload\n{\n    uint group;\n    uint count;\n};\n\ngroupshared CullPayload pl;\n\n")
	fmt.Fprintf(&sb, "[shader(\"amplification\")]\n[numthreads(%d, 1, 1)]\n", n)
	fmt.Fprintf(&sb, "void %s(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)\n{\n", asEntry)
	fmt.Fprintf(&sb, "    uint flat = gid.x * %du + gi;\n    uint b = flat * %du;\n", n, cWords)
	fmt.Fprintf(&sb, `    uint key = WaveReadLaneFirst(flat);
    uint lane = WaveGetLaneIndex();
    uint cnt = WaveGetLaneCount();
    bool visible = rec[b + %du] != 0u;
    uint prefix = WavePrefixCountBits(visible);
    uint count = WaveActiveCountBits(visible);
    uint4 ballot = WaveActiveBallot(visible);
`, cVisible)
	for _, l := range []string{
		fmt.Sprintf("rec[b + %du] = flat;", cFlat), fmt.Sprintf("rec[b + %du] = key;", cKey),
		fmt.Sprintf("rec[b + %du] = lane;", cLane), fmt.Sprintf("rec[b + %du] = cnt;", cCount),
		fmt.Sprintf("rec[b + %du] = prefix;", cPrefix), fmt.Sprintf("rec[b + %du] = count;", cActive),
		fmt.Sprintf("rec[b + %du] = ballot.x;", cBallot), fmt.Sprintf("rec[b + %du] = ballot.y;", cBallot+1),
		fmt.Sprintf("rec[b + %du] = ballot.z;", cBallot+2), fmt.Sprintf("rec[b + %du] = ballot.w;", cBallot+3),
	} {
		sb.WriteString("    " + l + "\n")
	}
	sb.WriteString(`    // The payload is written by one invocation, so it names that invocation's
    // wave's count whichever wave the driver takes DispatchMesh's arguments from.
    if (gi == 0u) {
        pl.group = gid.x;
        pl.count = count;
    }
    // As MeshletCull: each invocation passes its own wave's count.
    DispatchMesh(count, 1u, 1u, pl);
}

`)
	compactionMeshEntry(&sb)
	return sb.String()
}

// compactionMeshEntry writes a compaction kernel's mesh entry: one invocation
// per launched group records the payload it read.
func compactionMeshEntry(mb *strings.Builder) {
	mb.WriteString("// One launch record per mesh group.\n")
	mb.WriteString("[shader(\"mesh\")]\n[outputtopology(\"triangle\")]\n[numthreads(1, 1, 1)]\n")
	fmt.Fprintf(mb, "void %s(uint3 gid : SV_GroupID, in payload CullPayload p, out vertices MeshVertex verts[3], out indices uint3 tris[1])\n{\n", msEntry)
	fmt.Fprintf(mb, `    SetMeshOutputCounts(0u, 0u);
    uint slot;
    InterlockedAdd(launched[0], 1u, slot);
    uint m = %du + slot * %du;
    launched[m + %du] = p.group;
    launched[m + %du] = gid.x;
    launched[m + %du] = p.count;
    launched[m + %du] = %#xu;
}
`, launchHeader, launchWords, lGroup, lMeshGroup, lPayloadCount, lMarker, launchMarker)
}
