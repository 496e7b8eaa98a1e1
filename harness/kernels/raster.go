package kernels

import "math"

// Coverage of one pixel centre by a scene's triangle.
type Coverage uint8

const (
	Out Coverage = iota
	// In: the centre is inside by more than rasterEps (every rasterizer covers it).
	In
	// OnEdge: the centre is on an edge, within rasterEps: Vulkan leaves the tie-break to
	// the implementation (it need only be consistent), so either answer is legal.
	OnEdge
)

// rasterEps is the distance (in pixels) from an edge within which the checker accepts
// either answer: it absorbs the NDC round trip (p*2/W - 1 and back) and sub-pixel snapping.
const rasterEps = 1.0 / 64

// oriented returns the triangle with a positive cross product (clockwise on a y-down
// screen), so that inside means every edge function is positive.
func oriented(t [3][2]float64) [3][2]float64 {
	if cross(t[0], t[1], t[2]) < 0 {
		t[1], t[2] = t[2], t[1]
	}
	return t
}

func cross(a, b, c [2]float64) float64 {
	return (b[0]-a[0])*(c[1]-a[1]) - (b[1]-a[1])*(c[0]-a[0])
}

// mirrored is the triangle as a target with y pointing the other way draws it (Vulkan's
// clip-space y points down, D3D's and WebGPU's up: the Vulkan runner flips its viewport,
// so both APIs draw the scene unmirrored; the checker still recognises a mirror).
func (s Scene) mirrored() Scene {
	m := s
	for i := range m.Tri {
		m.Tri[i][1] = float64(s.Height) - s.Tri[i][1]
	}
	return m
}

// Classify says, for every pixel (row-major), whether its centre is in, out or on an
// edge of the scene's triangle.
func (s Scene) Classify() []Coverage {
	t := oriented(s.Tri)
	out := make([]Coverage, s.Width*s.Height)
	for y := uint32(0); y < s.Height; y++ {
		for x := uint32(0); x < s.Width; x++ {
			p := [2]float64{float64(x) + 0.5, float64(y) + 0.5}
			c := In
			for e := 0; e < 3; e++ {
				a, b := t[e], t[(e+1)%3]
				d := cross(a, b, p) / math.Hypot(b[0]-a[0], b[1]-a[1])
				switch {
				case d < -rasterEps:
					c = Out
				case d <= rasterEps && c == In:
					c = OnEdge
				}
				if c == Out {
					break
				}
			}
			out[y*s.Width+x] = c
		}
	}
	return out
}

// Rasterize is the coverage of a rasterizer with D3D's top-left rule (a centre exactly
// on a top or left edge is covered, on any other edge not), evaluated exactly: the
// scenes' coordinates are short binary fractions. The simulator draws with it.
func (s Scene) Rasterize() []bool {
	t := oriented(s.Tri)
	out := make([]bool, s.Width*s.Height)
	for y := uint32(0); y < s.Height; y++ {
		for x := uint32(0); x < s.Width; x++ {
			p := [2]float64{float64(x) + 0.5, float64(y) + 0.5}
			in := true
			for e := 0; e < 3 && in; e++ {
				a, b := t[e], t[(e+1)%3]
				d := cross(a, b, p)
				dx, dy := b[0]-a[0], b[1]-a[1]
				topLeft := (dy == 0 && dx > 0) || dy < 0
				in = d > 0 || (d == 0 && topLeft)
			}
			out[y*s.Width+x] = in
		}
	}
	return out
}

// coverageMatches reports whether a covered set is legal for the classification: every
// In pixel covered, no Out pixel covered.
func coverageMatches(cls []Coverage, covered []bool) bool {
	for i, c := range cls {
		if (c == In && !covered[i]) || (c == Out && covered[i]) {
			return false
		}
	}
	return true
}
