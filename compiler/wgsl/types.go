package wgsl

import (
	"strconv"
	"strings"
	"sync"

	"waverig/compiler/diag"
	"waverig/compiler/internal/textgen"
	"waverig/compiler/intrinsics"
	"waverig/compiler/ir"
)

// view is how a type is seen where it lives: the same IR type prints
// differently in a uniform buffer (array strides padded to 16), in atomic
// storage (integer leaves are atomic<…>) and in host-shareable memory (column-
// major matrices keep their column-major bytes).
type view struct {
	uniform bool // uniform address space: scalar/vector arrays of stride 16 become vec4 arrays
	atomic  bool // integer scalars are atomic<T>
	host    bool // host-shareable: matrices follow their IR memory order
}

func viewOf(g *ir.Global, atomic bool) view {
	switch g.Space {
	case ir.SpaceUniform:
		return view{uniform: true, host: true}
	case ir.SpaceStorage, ir.SpaceStorageRead, ir.SpacePushConstant:
		return view{host: true, atomic: atomic}
	case ir.SpaceWorkgroup:
		return view{atomic: atomic}
	}
	return view{}
}

// padKind says how an array element with a stride larger than WGSL's natural
// one is represented.
type padKind int

const (
	padNone   padKind = iota
	padVec4           // uniform arrays of scalars/vectors: array<vec4<T>, N>, read back with a swizzle
	padStruct         // anything else: array<wr_pad_T_S>, the element in field v with @size(stride)
)

func (e *emitter) padOf(a *ir.Array, v view) padKind {
	if a.Stride == 0 {
		return padNone
	}
	_, size := e.layout(a.Elem, v)
	if a.Stride == roundUp(e.arrayAlign(a.Elem, v), size) {
		return padNone
	}
	if v.uniform && a.Stride == 16 {
		switch a.Elem.(type) {
		case ir.Scalar, ir.Vector:
			return padVec4
		}
	}
	return padStruct
}

// swizzleFor returns the swizzle that reads an n-component value out of a vec4.
func swizzleFor(t ir.Type) string {
	n := ir.Components(t)
	return "." + "xyzw"[:n]
}

// colMajor reports whether a matrix in this view keeps HLSL column-major bytes
// (declared matCxR and transposed on access).
func colMajor(m ir.Matrix, v view) bool { return v.host && m.Stride != 0 && !m.RowMajor }

func scalarName(s ir.Scalar) string {
	switch s.Kind {
	case ir.Bool:
		return "bool"
	case ir.Sint:
		return "i32"
	case ir.Uint:
		return "u32"
	}
	if s.Bits == 16 {
		return "f16"
	}
	return "f32"
}

// typ prints a type in a view, declaring structs on demand.
func (e *emitter) typ(t ir.Type, v view, pos diag.Pos) string {
	switch t := t.(type) {
	case ir.Scalar:
		e.checkScalar(t, pos)
		s := scalarName(t)
		if v.atomic && (t.Kind == ir.Sint || t.Kind == ir.Uint) {
			return "atomic<" + s + ">"
		}
		return s
	case ir.Vector:
		e.checkScalar(t.Elem, pos)
		return vectorNames.Name(t)
	case ir.Matrix:
		e.checkScalar(t.Elem, pos)
		if t.Elem.Kind != ir.Float {
			e.errorf(pos, diag.ErrWGSLType, "matrix type %s: WGSL matrices hold only f32 or f16", t)
		}
		if colMajor(t, v) {
			return "mat" + textgen.Dec(t.Cols) + "x" + textgen.Dec(t.Rows) + "<" + scalarName(t.Elem) + ">"
		}
		return "mat" + textgen.Dec(t.Rows) + "x" + textgen.Dec(t.Cols) + "<" + scalarName(t.Elem) + ">"
	case *ir.Array:
		elem := e.typ(t.Elem, v, pos)
		switch e.padOf(t, v) {
		case padVec4:
			s, _ := ir.ScalarOf(t.Elem)
			elem = "vec4<" + scalarName(s) + ">"
		case padStruct:
			elem = e.padStruct(t, elem, v)
		}
		if t.Len == 0 {
			return "array<" + elem + ">"
		}
		return "array<" + elem + ", " + textgen.Dec(t.Len) + ">"
	case *ir.Struct:
		return e.structType(t, v, pos)
	case ir.Void:
		return ""
	case ir.Texture2D, ir.Sampler:
		e.errorf(pos, diag.ErrWGSLType, "handle type %s cannot be stored or passed in WGSL", t)
		return "u32"
	}
	e.errorf(pos, diag.ErrWGSLInternal, "unknown IR type %T", t)
	return "u32"
}

func (e *emitter) checkScalar(s ir.Scalar, pos diag.Pos) {
	switch {
	case s.Bits == 64 && s.Kind == ir.Float:
		e.errorf(pos, diag.ErrWGSLType, "type double (f64) has no WGSL equivalent")
	case s.Bits == 64:
		e.errorf(pos, diag.ErrWGSLType, "type %s (64-bit integer) has no WGSL equivalent", map[bool]string{true: "int64_t", false: "uint64_t"}[s.Kind == ir.Sint])
	case s.Bits == 16 && s.Kind == ir.Float:
		e.usesF16 = true
	case s.Bits == 16:
		e.errorf(pos, diag.ErrWGSLType, "16-bit integer type %s has no WGSL equivalent", s)
	}
}

// padStruct declares the wrapper struct that gives an array element its stride.
func (e *emitter) padStruct(a *ir.Array, elem string, v view) string {
	key := "pad:" + elem + ":" + textgen.Dec(a.Stride)
	if name, ok := e.helpers[key]; ok {
		return name
	}
	name := "wr_pad_" + sanitizeTypeText(elem) + "_" + textgen.Dec(a.Stride)
	e.helpers[key] = name
	align := ""
	if v.uniform {
		align = "@align(16) "
	}
	e.structDecls = append(e.structDecls, "// "+elem+" padded to the array stride "+textgen.Dec(a.Stride)+".\nstruct "+name+" {\n  "+align+"@size("+textgen.Dec(a.Stride)+") v: "+elem+",\n}\n")
	return name
}

func sanitizeTypeText(s string) string {
	r := strings.NewReplacer("<", "_", ">", "", ",", "_", " ", "")
	return r.Replace(s)
}

// structType declares the struct in a view on first use. Views that change no
// member share the plain declaration.
func (e *emitter) structType(s *ir.Struct, v view, pos diag.Pos) string {
	v = e.effectiveView(s, v)
	key := structKey{s, v}
	if name, ok := e.structs[key]; ok {
		return name
	}
	base := s.Name
	if v.uniform {
		base += "_uniform"
	}
	if v.atomic {
		base += "_atomic"
	}
	if v.host {
		base += "_colmajor"
	}
	name, claimed := e.plainStruct[s]
	if !claimed || base != s.Name {
		name = e.names.fresh(base)
	}
	e.structs[key] = name
	fieldNames := e.fieldNames(s)
	var b strings.Builder
	textgen.Write(&b, "struct ", name, " {\n")
	// WGSL computes member offsets itself; where the IR layout differs, pad the
	// previous member with @size so every member lands on its IR offset.
	type member struct {
		attrs, name, typ string
		off              int
	}
	var ms []member
	cur, maxAlign := 0, 1
	for i, f := range s.Fields {
		t := e.typ(f.Type, v, pos)
		// WGSL offsets do not depend on the address space (uniform only adds
		// checks), so one computation serves every view.
		align, size := e.layout(f.Type, v)
		if align > maxAlign {
			maxAlign = align
		}
		natural := roundUp(align, cur)
		off := natural
		if s.Size != 0 {
			off = f.Offset
			if off < natural {
				e.errorf(pos, diag.ErrWGSLLayout, "struct %s: member %s at offset %d, but WGSL places it at %d at the earliest", s.Name, f.Name, f.Offset, natural)
			} else if off > natural {
				if i == 0 {
					e.errorf(pos, diag.ErrWGSLLayout, "struct %s: first member %s at offset %d", s.Name, f.Name, f.Offset)
				} else {
					ms[i-1].attrs += "@size(" + textgen.Dec(off-ms[i-1].off) + ") "
				}
			}
		}
		ms = append(ms, member{name: fieldNames[i], typ: t, off: off})
		cur = off + size
	}
	if s.Size != 0 && len(ms) > 0 {
		if end := roundUp(maxAlign, cur); s.Size > end && !isRuntimeArray(s.Fields[len(s.Fields)-1].Type) {
			last := &ms[len(ms)-1]
			_, size := e.layout(s.Fields[len(s.Fields)-1].Type, v)
			last.attrs += "@size(" + textgen.Dec(size+s.Size-end) + ") "
		}
	}
	for _, m := range ms {
		textgen.Write(&b, "  ", m.attrs, m.name, ": ", m.typ, ",\n")
	}
	b.WriteString("}\n")
	e.structDecls = append(e.structDecls, b.String())
	return name
}

func isRuntimeArray(t ir.Type) bool {
	a, ok := t.(*ir.Array)
	return ok && a.Len == 0
}

// effectiveView drops the view flags that change nothing inside s, so a struct
// used in several places gets one declaration where possible.
func (e *emitter) effectiveView(s *ir.Struct, v view) view {
	var hasInt, hasArray, hasColMajor bool
	seen := map[*ir.Struct]bool{}
	var walk func(t ir.Type)
	walk = func(t ir.Type) {
		switch t := t.(type) {
		case ir.Scalar:
			hasInt = hasInt || t.Kind == ir.Sint || t.Kind == ir.Uint
		case ir.Matrix:
			hasColMajor = hasColMajor || colMajor(t, view{host: true})
		case *ir.Array:
			hasArray = true
			walk(t.Elem)
		case *ir.Struct:
			if seen[t] {
				return
			}
			seen[t] = true
			for _, f := range t.Fields {
				walk(f.Type)
			}
		}
	}
	walk(s)
	return view{uniform: v.uniform && hasArray, atomic: v.atomic && hasInt, host: v.host && hasColMajor}
}

func (e *emitter) fieldNames(s *ir.Struct) []string {
	n := newNamer(nil)
	out := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = n.fresh(f.Name)
	}
	return out
}

// layout returns WGSL's alignment and size of t in a view (host-shareable rules).
func (e *emitter) layout(t ir.Type, v view) (align, size int) {
	switch t := t.(type) {
	case ir.Scalar:
		if t.Bits == 16 {
			return 2, 2
		}
		return 4, 4
	case ir.Vector:
		s := t.Elem.Bits / 8
		if t.Elem.Kind == ir.Bool {
			s = 4
		}
		switch t.N {
		case 2:
			return 2 * s, 2 * s
		case 3:
			return 4 * s, 3 * s
		}
		return 4 * s, 4 * s
	case ir.Matrix:
		cols, rows := t.Rows, t.Cols // WGSL columns: HLSL rows
		if colMajor(t, v) {
			cols, rows = t.Cols, t.Rows
		}
		a, s := e.layout(ir.Vector{Elem: t.Elem, N: rows}, v)
		stride := roundUp(a, s)
		if t.Stride != 0 && t.Stride != stride {
			e.errorf(diag.Pos{}, diag.ErrWGSLLayout, "matrix %s: stride %d, WGSL's is %d", t, t.Stride, stride)
		}
		return a, cols * stride
	case *ir.Array:
		a := e.arrayAlign(t.Elem, v)
		_, s := e.layout(t.Elem, v)
		stride := roundUp(a, s)
		if t.Stride != 0 {
			if t.Stride < s {
				e.errorf(diag.Pos{}, diag.ErrWGSLLayout, "array %s: stride %d is smaller than the element (%d bytes)", t, t.Stride, s)
			}
			stride = t.Stride
		}
		n := t.Len
		if n == 0 {
			n = 1
		}
		return a, n * stride
	case *ir.Struct:
		align, cur := 1, 0
		for _, f := range t.Fields {
			a, s := e.layout(f.Type, v)
			if a > align {
				align = a
			}
			off := roundUp(a, cur)
			if t.Size != 0 && f.Offset > off {
				off = f.Offset
			}
			cur = off + s
		}
		size := roundUp(align, cur)
		if t.Size > size {
			size = t.Size
		}
		return align, size
	}
	return 4, 4
}

func (e *emitter) arrayAlign(elem ir.Type, v view) int {
	a, _ := e.layout(elem, v)
	return a
}

func roundUp(a, n int) int {
	if a <= 1 {
		return n
	}
	return (n + a - 1) / a * a
}

// namer hands out unique WGSL identifiers.
//
// A child namer (one per function) sees the names its parent held when the
// child was made, as a copy would, but without copying the parent's map for
// every function: used records each name's insertion number, and the child
// only honours parent names numbered at or below limit (names the parent takes
// later, e.g. structs declared while a function is printed, stay invisible).
type namer struct {
	used   map[string]int // name -> insertion number, from 1
	parent *namer
	limit  int
	// next is, per base name, the last suffix handed out: base_1 … base_next
	// are all taken (names are never released), so the next search starts
	// after them. Without it, k locals of one name cost k² probes (issue 7).
	next map[string]int
}

func newNamer(parent *namer) *namer {
	n := &namer{used: map[string]int{}, parent: parent, next: map[string]int{}}
	if parent != nil {
		n.limit = len(parent.used)
	}
	return n
}

// taken reports whether name is used here or was used in the parent when this
// namer was made.
func (n *namer) taken(name string) bool {
	if n.used[name] > 0 {
		return true
	}
	return n.parent != nil && n.parent.takenBefore(name, n.limit)
}

func (n *namer) takenBefore(name string, limit int) bool {
	if i := n.used[name]; i > 0 && i <= limit {
		return true
	}
	return n.parent != nil && n.parent.takenBefore(name, n.limit)
}

func (n *namer) take(name string) {
	if n.used[name] == 0 {
		n.used[name] = len(n.used) + 1
	}
}

func (n *namer) reserve(name string) { n.take(name) }

// fresh sanitizes an HLSL name (keywords, reserved words, the wr_ prefix the
// back end keeps for itself) and makes it unique.
func (n *namer) fresh(name string) string {
	return n.unique(sanitize(name))
}

// internal hands out a back-end name (wr_…), unique but not sanitized: user
// names never start with wr_, so these cannot collide with them.
func (n *namer) internal(name string) string {
	return n.unique(name)
}

// unique takes base, or else the first free base_1, base_2, ….
func (n *namer) unique(base string) string {
	out := base
	if n.taken(out) {
		i := n.next[base]
		for {
			i++
			out = base + "_" + textgen.Dec(i)
			if !n.taken(out) {
				break
			}
		}
		n.next[base] = i
	}
	n.take(out)
	return out
}

func sanitize(name string) string {
	// Nearly every name is already a plain ASCII identifier: keep it as it is
	// instead of copying it rune by rune into a builder.
	s := name
	if !textgen.ASCIIIdent(name) {
		var b strings.Builder
		for i, r := range name {
			switch {
			case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || (i > 0 && r >= '0' && r <= '9'):
				b.WriteRune(r)
			default:
				b.WriteByte('_')
			}
		}
		s = b.String()
	}
	switch {
	case s == "" || s == "_":
		s = "v"
	case strings.HasPrefix(s, "__"), strings.HasPrefix(s, "wr_"), isReserved(s):
		s = "u_" + s
	}
	return s
}

// isReserved reports WGSL keywords, reserved words, predeclared type names and
// the builtin functions this back end calls (a user function of that name would
// shadow them). The fixed words are a switch rather than a map built at package
// initialisation (the compiler makes it a binary search over constant strings,
// so start-up builds nothing); the intrinsic names come from intrinsicNames.
func isReserved(s string) bool {
	switch s {
	case "NULL", "Self", "abs", "abstract", "active", "alias", "alignas", "alignof", "all", "any", "array",
		"arrayLength", "as", "asm", "asm_fragment", "async", "atomic", "atomicAdd", "atomicAnd",
		"atomicCompareExchangeWeak", "atomicExchange", "atomicLoad", "atomicMax", "atomicMin", "atomicOr",
		"atomicStore", "atomicSub", "atomicXor", "attribute", "auto", "await", "become", "bitcast", "bool",
		"break", "case", "cast", "catch", "ceil", "clamp", "class", "co_await", "co_return", "co_yield",
		"coherent", "column_major", "common", "compile", "compile_fragment", "concept", "const", "const_assert",
		"const_cast", "consteval", "constexpr", "constinit", "continue", "continuing", "cos", "countOneBits",
		"crate", "cross", "debugger", "decltype", "default", "delete", "demote", "demote_to_helper", "diagnostic",
		"discard", "do", "dot", "dpdx", "dpdy", "dynamic_cast", "else", "enable", "enum", "exp", "exp2",
		"explicit", "export", "extends", "extern", "external", "f16", "f32", "fallthrough", "false", "filter",
		"final", "finally", "firstLeadingBit", "firstTrailingBit", "floor", "fma", "fn", "for", "fract", "friend",
		"from", "fxgroup", "get", "goto", "groupshared", "highp", "i32", "if", "impl", "implements", "import",
		"inline", "instanceof", "interface", "inverseSqrt", "layout", "length", "let", "log", "log2", "loop",
		"lowp", "macro", "macro_rules", "mat2x2", "mat2x3", "mat2x4", "mat3x2", "mat3x3", "mat3x4", "mat4x2",
		"mat4x3", "mat4x4", "match", "max", "mediump", "meta", "min", "mix", "mod", "module", "move", "mut",
		"mutable", "namespace", "new", "nil", "noexcept", "noinline", "nointerpolation", "non_coherent",
		"noncoherent", "noperspective", "normalize", "null", "nullptr", "of", "operator", "override",
		"pack2x16float", "package", "packoffset", "partition", "pass", "patch", "pixelfragment", "pow", "precise",
		"precision", "premerge", "priv", "protected", "ptr", "pub", "public", "readonly", "ref", "regardless",
		"register", "reinterpret_cast", "require", "requires", "resource", "restrict", "return", "reverseBits",
		"round", "sampler", "sampler_comparison", "saturate", "select", "self", "set", "shared", "sign", "sin",
		"sizeof", "smooth", "snorm", "sqrt", "static", "static_assert", "static_cast", "std", "storageBarrier",
		"struct", "subroutine", "super", "switch", "tan", "target", "template", "textureBarrier",
		"textureDimensions", "textureLoad", "textureNumLevels", "textureSample", "textureSampleLevel",
		"textureStore", "texture_1d", "texture_2d", "texture_3d", "texture_cube", "texture_storage_2d", "this",
		"thread_local", "throw", "trait", "transpose", "true", "trunc", "try", "type", "typedef", "typeid",
		"typename", "typeof", "u32", "union", "unless", "unorm", "unpack2x16float", "unsafe", "unsized", "use",
		"using", "var", "varying", "vec2", "vec2f", "vec2h", "vec2i", "vec2u", "vec3", "vec3f", "vec3h", "vec3i",
		"vec3u", "vec4", "vec4f", "vec4h", "vec4i", "vec4u", "virtual", "volatile", "wgsl", "where", "while",
		"with", "workgroupBarrier", "writeonly", "yield":

		return true
	// Builtins the lowerings in intrinsic.go call that the table does not name.
	case "subgroupBallot", "subgroupBroadcastFirst", "subgroupExclusiveAdd", "subgroupShuffle", "subgroupAll", "quadBroadcast":
		return true
	}
	return intrinsicNames()[s]
}

// intrinsicNames holds the WGSL names of every intrinsic that is a plain
// identifier: a user function called subgroupAdd would shadow the builtin. It
// is built on first use, not at package initialisation.
// A sync.Once and a plain variable rather than sync.OnceValue, whose closure
// would itself be allocated at package initialisation.
var (
	intrinsicNamesOnce sync.Once
	intrinsicNameSet   map[string]bool
)

func intrinsicNames() map[string]bool {
	intrinsicNamesOnce.Do(func() {
		m := map[string]bool{}
		for _, in := range intrinsics.Table {
			if plainName(in.WGSL) {
				m[in.WGSL] = true
			}
		}
		intrinsicNameSet = m
	})
	return intrinsicNameSet
}

// plainName reports whether sanitize would keep name apart from the reserved
// word check: identifier characters only, not "" or "_", no "__" or "wr_" prefix.
func plainName(name string) bool {
	if name == "" || name == "_" || strings.HasPrefix(name, "__") || strings.HasPrefix(name, "wr_") {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || (i > 0 && r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

// vectorNames spells vector types: vecN<scalarName(t.Elem)>.
var vectorNames = textgen.NewVectorNames(func(t ir.Vector) string {
	return "vec" + strconv.Itoa(t.N) + "<" + scalarName(t.Elem) + ">"
})
