package kernels

import (
	"fmt"
	"math"

	"waverig/compiler/intrinsics"
	"waverig/harness/models"
)

// Stage is the shader stage a kernel tests the operations in.
type Stage string

// The stages. A kernel whose Stage is "" is a compute kernel.
const (
	Compute Stage = "compute"
	Pixel   Stage = "pixel"
	Vertex  Stage = "vertex"
	// Task (D3D's amplification) and Mesh run in a VK_EXT_mesh_shader
	// pipeline (mesh.go).
	Task Stage = "task"
	Mesh Stage = "mesh"
)

// Draw describes how a pixel or vertex kernel is drawn.
type Draw struct {
	// VertexEntry is the vertex shader's entry point in Kernel.HLSL.
	VertexEntry string
	// PixelEntry is the pixel shader's entry point; "" for vertex-stage kernels (no
	// fragment stage: rasterizer discard).
	PixelEntry string
	// Width and Height are the colour target's size (1×1 for vertex kernels, which
	// rasterize nothing).
	Width, Height uint32
	// VertexCount is the number of vertices per draw (triangle list, no vertex
	// buffers: positions come from SV_VertexID).
	VertexCount uint32
	// Draws: draw i is issued with firstInstance = i (SV_InstanceID = i); one case
	// replica per draw, all in one render pass.
	Draws uint32
	// FloatColor: the pixel entry returns float4 (RGBA32F target) instead of uint4
	// (RGBA32UI).
	FloatColor bool
}

// ColorTarget is the key under which Check's out map carries the colour target's
// bytes after the last draw (Width*Height*16 bytes, row-major, 4 components).
const ColorTarget = "color"

// Scene is what one draw of a pixel kernel rasterizes: one triangle in framebuffer
// pixels (y down, pixel centres at +0.5), so no pixel is shaded twice in one draw.
type Scene struct {
	Width, Height uint32
	Tri           [3][2]float64
}

// Padded is the framebuffer rounded up to whole quads: every helper lane of an edge
// quad, including those just outside an odd-sized framebuffer, has a position here.
func (s Scene) Padded() (w, h uint32) { return (s.Width + 1) &^ 1, (s.Height + 1) &^ 1 }

func fullScreen(w, h uint32) *Scene {
	return &Scene{Width: w, Height: h, Tri: [3][2]float64{{0, 0}, {2 * float64(w), 0}, {0, 2 * float64(h)}}}
}

// PixelShapes are the pixel kernels' scenes: full-screen triangles on odd framebuffers
// (quads and waves cut at the right and bottom edges: helper lanes outside the
// framebuffer), on a one-quad-wide and a one-quad-tall framebuffer, on an even one (no
// helpers), a triangle whose hypotenuse runs through pixel centres and cuts quads
// (the top-left rule and helpers inside the framebuffer), and a sliver where most
// quads have one to three covered pixels.
var PixelShapes = []Shape{
	{Name: "fb15x15", Scene: fullScreen(15, 15)},
	{Name: "fb3x111", Scene: fullScreen(3, 111)},
	{Name: "fb111x3", Scene: fullScreen(111, 3)},
	{Name: "fb16x16", Scene: fullScreen(16, 16)},
	{Name: "diag16", Scene: &Scene{Width: 16, Height: 16, Tri: [3][2]float64{{0, 0}, {16, 0}, {0, 16}}}},
	{Name: "thin", Scene: &Scene{Width: 24, Height: 12, Tri: [3][2]float64{{0.25, 0.75}, {23.75, 9.25}, {0.75, 3.25}}}},
}

// VertexShapes are the vertex kernels' draws: VertexCount vertices per replica
// (NumThreads[0]), one draw per replica.
var VertexShapes = []Shape{
	{Name: "vtx63", NumThreads: [3]int{63, 1, 1}, Groups: [3]int{1, 1, 1}},
	{Name: "vtx96", NumThreads: [3]int{96, 1, 1}, Groups: [3]int{1, 1, 1}},
}

// GraphicsPatterns are the active-lane patterns of the pixel and vertex matrices (the
// random one with RandomSeeds[0] only): the matrix stays a few thousand cases.
var GraphicsPatterns = []Pattern{All, Even, FirstHalf, Nested, Random}

// The pixel kernels' entry points.
const (
	vsEntry = "VSMain"
	psEntry = "PSMain"
)

// GraphicsMatrix is the pixel or vertex matrix, filtered, in a fixed order: one kernel
// per (operation, scene or vertex shape) for the 32-bit types (Wave24 order), then for
// pixels the quad votes (quadvote.go), the [WaveOpsIncludeHelperLanes] kernels
// (helperlanes.go), the seed's PSSlope kernels and the IsHelperLane kernels. Any other stage
// gives nil.
func GraphicsMatrix(stage Stage, f Filter) []Kernel {
	var shapes []Shape
	switch stage {
	case Pixel:
		shapes = PixelShapes
	case Vertex:
		shapes = VertexShapes
	default:
		return nil
	}
	var out []Kernel
	for _, op := range intrinsics.Wave24 {
		types := opTypes(op, families[0])
		for _, sh := range shapes {
			var cases []Case
			for _, t := range types {
				for _, p := range GraphicsPatterns {
					c := Case{Op: op, Type: t, Pattern: p, Shape: sh}
					if p == Random {
						c.Seed = RandomSeeds[0]
					}
					if f.keep(c) {
						cases = append(cases, c)
					}
				}
			}
			if len(cases) == 0 {
				continue
			}
			name := fmt.Sprintf("%s_%s_%s_%s", stage, op, families[0].name, sh.Name)
			if !f.wantsKernel(name) {
				continue
			}
			var k Kernel
			var err error
			if stage == Pixel {
				k, err = buildPixel(name, cases)
			} else {
				k, err = buildVertex(name, cases)
			}
			if err != nil {
				// The matrix is static: the package's tests catch generator bugs.
				continue
			}
			out = append(out, k)
		}
	}
	if stage == Pixel {
		out = append(out, quadVotePixelKernels(f)...)
		out = append(out, helperLanesKernels(f)...)
		out = append(out, slopeKernels(f)...)
		out = append(out, sampledKernels(f)...)
		out = append(out, helperKernels(f)...)
	}
	return out
}

// The pixel kernels' input block per padded-grid position (t0, uint words): the
// control word, the random pattern's coin, the input (8 words as in records).
const (
	tCtl   = 0
	tCoin  = 1
	tIn    = 2
	tWords = 10
)

// The pixel record reuses the compute record's words 0..5 and 16..23; these replace
// the pre-written words, and a pixel record is written only by a covered pixel: every
// header word of an uncovered pixel's record stays 0xffffffff. The output words
// start as outSentinel, as in a compute record, and an operation kernel stores them
// inside the arm that ran the operation (the IsHelperLane kernels store all eight
// from every covered pixel).
const (
	pPos    = 6 // x | y << 16 from SV_Position
	pRep    = 7 // SV_InstanceID as the pixel shader saw it (the draw)
	pHelper = 8 // IsHelperLane() of the writer (the IsHelperLane kernels), else 0
	pKey2   = 9 // WaveActiveSum of padded index × (lane + 1): with the key, the wave's identity
	unset   = 0xffffffff
)

// newPixelRecords is the u0 buffer of n pixel records: header words unset, output
// words outSentinel.
func newPixelRecords(n int) []uint32 {
	recs := newRecords(n)
	for i := 0; i < n; i++ {
		for w := 0; w < wOut; w++ {
			recs[i*recWords+w] = unset
		}
	}
	return recs
}

// headerWritten says whether a pixel's record was written (its pixel covered):
// any header word changed from unset (the output words start otherwise).
func headerWritten(rec []uint32) bool {
	for _, v := range rec[:wOut] {
		if v != unset {
			return true
		}
	}
	return false
}

// pixelLayout is the shape of a pixel kernel's buffers.
type pixelLayout struct {
	w, h, pw, ph uint32
	draws        int
}

func (l pixelLayout) flat(rep int, x, y uint32) int {
	return rep*int(l.w*l.h) + int(y*l.w+x)
}

func (l pixelLayout) padded(rep int, x, y uint32) int {
	return rep*int(l.pw*l.ph) + int(y*l.pw+x)
}

// buildPixel makes one pixel kernel: draw d is replica d%rep of case d/rep.
func buildPixel(name string, cases []Case) (Kernel, error) {
	op, sh := cases[0].Op, cases[0].Shape
	if sh.Scene == nil {
		return Kernel{}, fmt.Errorf("kernels: %s: shape %s has no scene", name, sh.Name)
	}
	types, variant, err := caseTypes(name, cases)
	if err != nil {
		return Kernel{}, err
	}
	sc := *sh.Scene
	pw, ph := sc.Padded()
	rep := pixelReplicas(op)
	lay := pixelLayout{w: sc.Width, h: sc.Height, pw: pw, ph: ph, draws: len(cases) * rep}
	in := make([]uint32, lay.draws*int(pw*ph)*tWords)
	d := 0
	err = eachReplica(cases, rep, func(ci int, c Case, mt models.Type, pid, m int) error {
		if pid < 0 || c.Pattern == Last {
			return fmt.Errorf("kernels: %s: pattern %q is not a graphics pattern", c.ID(), c.Pattern)
		}
		vals, coin := groupInputs(c, mt, m, int(pw*ph))
		for i := 0; i < int(pw*ph); i++ {
			blk := in[(d*int(pw*ph)+i)*tWords:][:tWords]
			blk[tCtl] = ctl(pid, m, variant[c.Type], ci)
			blk[tCoin] = coin[i]
			writeComps(blk, tIn, mt.Scalar, vals[i])
		}
		d++
		return nil
	})
	if err != nil {
		return Kernel{}, err
	}
	recs := newPixelRecords(lay.draws * int(sc.Width*sc.Height))
	helpers := IncludesHelperLanes(cases[0])
	needs := needsOf(types)
	if helpers {
		// RequireFullQuadsKHR (QuadControlKHR) and MaximallyReconvergesKHR.
		needs.QuadControl, needs.MaximalReconvergence = true, true
	}
	return Kernel{
		Name: name, Entry: psEntry, Stage: Pixel, HLSL: pixelHLSL(name, op, sc, types, helpers),
		Cases: cases,
		Buffers: []Buffer{
			{Register: "t0", Data: bytesOf(in)},
			{Register: "u0", Data: bytesOf(recs)},
		},
		Needs: needs,
		Draw: &Draw{VertexEntry: vsEntry, PixelEntry: psEntry, Width: sc.Width, Height: sc.Height,
			VertexCount: 3, Draws: uint32(lay.draws)},
	}, nil
}

// buildVertex makes one vertex kernel: the compute record layout, one draw of
// VertexCount vertices per case replica, record index = replica*VertexCount + SV_VertexID.
func buildVertex(name string, cases []Case) (Kernel, error) {
	k, err := build(name, cases)
	if err != nil {
		return Kernel{}, err
	}
	sh := cases[0].Shape
	types, _, err := caseTypes(name, cases)
	if err != nil {
		return Kernel{}, err
	}
	vc := sh.Threads()
	n := vc * int(k.Groups[0])
	if n > maxRosterKey {
		return Kernel{}, fmt.Errorf("kernels: %s: %d records: the roster's wave keys hold at most %d", name, n, maxRosterKey)
	}
	k.Stage, k.Entry = Vertex, vsEntry
	k.HLSL = vertexHLSL(name, cases[0].Op, vc, n, types)
	k.Draw = &Draw{VertexEntry: vsEntry, Width: 1, Height: 1, VertexCount: uint32(vc), Draws: k.Groups[0]}
	k.Groups = [3]uint32{}
	// The roster: which invocations each wave held (vertexroster.go).
	k.Buffers = append(k.Buffers, Buffer{Register: rosterRegister, Data: bytesOf(newRoster(n))})
	return k, nil
}

// caseTypes lists the distinct types of a kernel's cases and their variant numbers.
func caseTypes(name string, cases []Case) ([]Type, map[Type]int, error) {
	if len(cases) == 0 || len(cases) > 0xffff {
		return nil, nil, fmt.Errorf("kernels: %s: %d cases", name, len(cases))
	}
	var types []Type
	variant := map[Type]int{}
	for _, c := range cases {
		if c.Op != cases[0].Op || c.Shape.Name != cases[0].Shape.Name || c.Name != cases[0].Name {
			return nil, nil, fmt.Errorf("kernels: %s: cases of different operations, programs or shapes", name)
		}
		if _, ok := variant[c.Type]; !ok {
			variant[c.Type] = len(types)
			types = append(types, c.Type)
		}
	}
	if len(types) > 255 {
		return nil, nil, fmt.Errorf("kernels: %s: too many types", name)
	}
	return types, variant, nil
}

// hlslFloat spells a float literal exactly (every scene coordinate is a short binary
// fraction).
func hlslFloat(f float64) string {
	if f == math.Trunc(f) {
		return fmt.Sprintf("%.1ff", f)
	}
	return fmt.Sprintf("%gf", f)
}
