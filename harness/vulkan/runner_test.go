package vulkan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func u32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

func bytesOf(v []uint32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

// subgroupJob builds the subgroup.comp job over n invocations (n a multiple
// of 64) with inputs chosen so sums and ballots differ per lane.
func subgroupJob(t testing.TB, n int) (Job, []uint32) {
	in := make([]uint32, n)
	for i := range in {
		in[i] = uint32(i*7+3) % 23
	}
	return Job{
		SPIRV: compileGLSL(t, "subgroup.comp"),
		Entry: "main",
		Buffers: []Buffer{
			{Set: 0, Binding: 0, Kind: Storage, Data: bytesOf(in)},
			{Set: 0, Binding: 1, Kind: Storage, Data: make([]byte, 16*n)},
			{Set: 0, Binding: 2, Kind: Storage, Data: make([]byte, 16*n)},
		},
		Groups: [3]uint32{uint32(n / 64), 1, 1},
	}, in
}

// checkSubgroupResult recomputes subgroupAdd, subgroupExclusiveAdd, ballot
// and elect from the lane layout the kernel reported and compares lane by
// lane. It returns the subgroup size the kernel saw.
func checkSubgroupResult(t *testing.T, in []uint32, res *Result) uint32 {
	t.Helper()
	info := u32s(res.Buffers[1])
	got := u32s(res.Buffers[2])
	const local = 64
	type member struct{ inv, lane uint32 }
	groups := map[[2]uint32][]member{} // (workgroup, gl_SubgroupID) -> members
	size := info[0]
	for i := range in {
		sz, lane, sgid := info[4*i], info[4*i+1], info[4*i+2]
		if sz != size {
			t.Fatalf("invocation %d reports gl_SubgroupSize %d, invocation 0 reported %d", i, sz, size)
		}
		if lane >= sz {
			t.Fatalf("invocation %d: gl_SubgroupInvocationID %d >= gl_SubgroupSize %d", i, lane, sz)
		}
		k := [2]uint32{uint32(i / local), sgid}
		groups[k] = append(groups[k], member{uint32(i), lane})
	}
	if size == 0 || size&(size-1) != 0 {
		t.Fatalf("gl_SubgroupSize %d is not a power of two", size)
	}
	bad := 0
	for k, ms := range groups {
		var sum uint32
		var ballot [2]uint32
		lanes := map[uint32]bool{}
		minLane := ^uint32(0)
		for _, m := range ms {
			if lanes[m.lane] {
				t.Fatalf("subgroup %v has lane %d twice", k, m.lane)
			}
			lanes[m.lane] = true
			sum += in[m.inv]
			if in[m.inv]&1 == 1 && m.lane < 64 {
				ballot[m.lane/32] |= 1 << (m.lane % 32)
			}
			minLane = min(minLane, m.lane)
		}
		elected := 0
		for _, m := range ms {
			var excl uint32
			for _, o := range ms {
				if o.lane < m.lane {
					excl += in[o.inv]
				}
			}
			want := [4]uint32{sum, excl, ballot[0], ballot[1]}
			i := m.inv
			have := [4]uint32{got[4*i], got[4*i+1], got[4*i+2], got[4*i+3]}
			if size > 64 {
				// Lanes 64+ live in ballot words .z/.w, which the kernel does not write.
				want[2], want[3], have[2], have[3] = 0, 0, 0, 0
			}
			if have != want && bad < 10 {
				bad++
				t.Errorf("invocation %d (subgroup %v lane %d): got add/excl/ballot %v, want %v", i, k, m.lane, have, want)
			}
			if info[4*i+3] == 1 {
				elected++
				if m.lane != minLane {
					t.Errorf("subgroup %v elected lane %d, the lowest active lane is %d", k, m.lane, minLane)
				}
			}
		}
		if elected != 1 {
			t.Errorf("subgroup %v elected %d lanes", k, elected)
		}
	}
	return size
}

func TestSubgroupKernel(t *testing.T) {
	r := sharedRunner(t)
	job, in := subgroupJob(t, 256)
	res, err := r.Run(job)
	if err != nil {
		t.Fatal(err)
	}
	size := checkSubgroupResult(t, in, res)
	if size != r.Device().SubgroupSize {
		t.Errorf("kernel saw subgroup size %d, device reports %d", size, r.Device().SubgroupSize)
	}
	// Set by TestSubgroupKernelAtOtherWidths for the child process.
	if want := os.Getenv("WAVERIG_EXPECT_SUBGROUP"); want != "" {
		if w, _ := strconv.Atoi(want); uint32(w) != size {
			t.Errorf("with LP_NATIVE_VECTOR_WIDTH=%s the kernel saw size %d, want %s", os.Getenv("LP_NATIVE_VECTOR_WIDTH"), size, want)
		}
	}
	t.Logf("%s: subgroup size %d, %d invocations checked", r.Device().Name, size, len(in))
}

// TestSubgroupKernelAtOtherWidths re-runs TestSubgroupKernel in a child
// process with lavapipe's vector width changed: the ICD reads the
// environment when it loads, so only a fresh process sees the new size.
func TestSubgroupKernelAtOtherWidths(t *testing.T) {
	if os.Getenv("WAVERIG_EXPECT_SUBGROUP") != "" {
		t.Skip("already the child")
	}
	r := sharedRunner(t)
	if !strings.Contains(r.Device().Name, "llvmpipe") {
		t.Skip("device 0 is not lavapipe; LP_NATIVE_VECTOR_WIDTH does not apply")
	}
	// One 32-bit lane per 32 bits of vector width; 512 also works on hosts
	// without AVX-512 (LLVM splits the vectors).
	for _, w := range []struct{ width, size string }{{"128", "4"}, {"512", "16"}} {
		t.Run("width"+w.width, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^(TestSubgroupKernel|TestRequiredSubgroupSizes)$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "LP_NATIVE_VECTOR_WIDTH="+w.width, "WAVERIG_EXPECT_SUBGROUP="+w.size)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "--- PASS: TestSubgroupKernel") ||
				!strings.Contains(string(out), "--- PASS: TestRequiredSubgroupSizes/size"+w.size+"/full=true") {
				t.Fatalf("child at width %s: %v\n%s", w.width, err, out)
			}
			if !strings.Contains(string(out), "subgroup size "+w.size+",") {
				t.Fatalf("child did not report size %s:\n%s", w.size, out)
			}
		})
	}
}

func TestRequiredSubgroupSizes(t *testing.T) {
	r := sharedRunner(t)
	d := r.Device()
	for _, size := range d.LegalSubgroupSizes() {
		for _, full := range []bool{false, true} {
			t.Run(fmt.Sprintf("size%d/full=%v", size, full), func(t *testing.T) {
				job, in := subgroupJob(t, 128)
				job.RequiredSubgroupSize = size
				job.FullSubgroups = full
				res, err := r.Run(job)
				if err != nil {
					t.Fatal(err)
				}
				if got := checkSubgroupResult(t, in, res); got != size {
					t.Errorf("required %d, kernel saw %d", size, got)
				}
				wantFull := full && d.SizeControl.Supported && d.SizeControl.ComputeFullSubgroups
				if res.FullSubgroups != wantFull {
					t.Errorf("FullSubgroups applied = %v, want %v", res.FullSubgroups, wantFull)
				}
			})
		}
	}
	for _, bad := range []uint32{3, 2 * d.SizeControl.MaxSubgroupSize * 1024} {
		job, _ := subgroupJob(t, 64)
		job.RequiredSubgroupSize = bad
		if _, err := r.Run(job); err == nil || !strings.Contains(err.Error(), "not legal") {
			t.Errorf("RequiredSubgroupSize %d: err = %v, want a 'not legal' error", bad, err)
		}
	}
}

func TestStorageUniformPush(t *testing.T) {
	r := sharedRunner(t)
	spv := compileGLSL(t, "params.comp")
	const n = 40 // three groups of 16; the last 8 invocations are masked by count
	data := make([]uint32, n+8)
	for i := range data {
		data[i] = uint32(i * 3)
	}
	mul, add, offset, count := uint32(5), uint32(11), uint32(1000), uint32(n)
	push := bytesOf([]uint32{offset, count})
	uni := bytesOf([]uint32{mul, add, 0, 0}) // std140 block padded to 16 bytes
	job := Job{
		SPIRV: spv, Entry: "main",
		Buffers: []Buffer{
			{Set: 0, Binding: 0, Kind: Storage, Data: bytesOf(data)},
			{Set: 1, Binding: 3, Kind: Uniform, Data: uni},
		},
		PushConstants: push,
		Groups:        [3]uint32{3, 1, 1},
	}
	res, err := r.Run(job)
	if err != nil {
		t.Fatal(err)
	}
	got := u32s(res.Buffers[0])
	for i, v := range data {
		want := v
		if uint32(i) < count {
			want = v*mul + add + offset
		}
		if got[i] != want {
			t.Errorf("d[%d] = %d, want %d", i, got[i], want)
		}
	}
	if string(res.Buffers[1]) != string(uni) {
		t.Errorf("uniform buffer changed: %v", res.Buffers[1])
	}
	// The job's own slices are inputs only.
	if u32s(job.Buffers[0].Data)[1] != data[1] {
		t.Error("Run modified Job.Buffers[0].Data")
	}

	// A push-constant block of 6 bytes is padded, not rejected.
	job.PushConstants = push[:6]
	if _, err := r.Run(job); err != nil {
		t.Errorf("6-byte push constants: %v", err)
	}
}

func TestPipelineCache(t *testing.T) {
	r := sharedRunner(t)
	job, in := subgroupJob(t, 64)
	// A push-constant size no other test uses: the first run must miss.
	job.PushConstants = []byte{1, 2, 3, 4}
	before := r.PipelinesCreated()
	first, err := r.Run(job)
	if err != nil {
		t.Fatal(err)
	}
	if !first.PipelineCreated || r.PipelinesCreated() != before+1 {
		t.Fatalf("first run: PipelineCreated=%v, count %d -> %d", first.PipelineCreated, before, r.PipelinesCreated())
	}
	second, err := r.Run(job)
	if err != nil {
		t.Fatal(err)
	}
	if second.PipelineCreated || r.PipelinesCreated() != before+1 {
		t.Fatalf("second run created a pipeline (count %d -> %d)", before, r.PipelinesCreated())
	}
	checkSubgroupResult(t, in, second)
	// Another push-constant size is another pipeline layout.
	job.PushConstants = make([]byte, 8)
	third, err := r.Run(job)
	if err != nil {
		t.Fatal(err)
	}
	if !third.PipelineCreated {
		t.Error("changing the push-constant size reused a pipeline with another layout")
	}
}

func TestPipelineEviction(t *testing.T) {
	r, err := NewRunner(testDevice())
	if err != nil {
		sharedRunner(t) // skips or fails with the shared reason
		t.Fatal(err)
	}
	defer r.Close()
	r.SetMaxPipelines(1)
	a, _ := subgroupJob(t, 64)
	b := a
	b.PushConstants = []byte{0, 0, 0, 0}
	for i, j := range []Job{a, b, a} {
		res, err := r.Run(j)
		if err != nil {
			t.Fatal(err)
		}
		if !res.PipelineCreated {
			t.Errorf("run %d reused a pipeline although the cache holds one and they alternate", i)
		}
	}
	if r.PipelinesCreated() != 3 {
		t.Errorf("PipelinesCreated = %d, want 3", r.PipelinesCreated())
	}
	r.Close()
	if _, err := r.Run(a); err == nil {
		t.Error("Run after Close succeeded")
	}
}

func TestBrokenInput(t *testing.T) {
	r := sharedRunner(t)
	good, _ := subgroupJob(t, 64)
	spv := good.SPIRV
	mutate := func(f func(j *Job)) Job {
		j := good
		j.Buffers = append([]Buffer(nil), good.Buffers...)
		f(&j)
		return j
	}
	cases := map[string]struct {
		job  Job
		want string
	}{
		"garbage":       {mutate(func(j *Job) { j.SPIRV = []uint32{0xdeadbeef, 1, 2, 3, 4, 5} }), "magic"},
		"empty":         {mutate(func(j *Job) { j.SPIRV = nil }), "header"},
		"truncated":     {mutate(func(j *Job) { j.SPIRV = spv[:len(spv)-3] }), "past the end"},
		"zero count":    {mutate(func(j *Job) { j.SPIRV = append(append([]uint32(nil), spv[:5]...), 0) }), "word count 0"},
		"wrong entry":   {mutate(func(j *Job) { j.Entry = "nope" }), "no GLCompute entry point"},
		"empty buffer":  {mutate(func(j *Job) { j.Buffers[0].Data = nil }), "empty"},
		"dup binding":   {mutate(func(j *Job) { j.Buffers[1].Binding = 0 }), "both use"},
		"zero groups":   {mutate(func(j *Job) { j.Groups = [3]uint32{0, 1, 1} }), "zero dimension"},
		"big push":      {mutate(func(j *Job) { j.PushConstants = make([]byte, 1<<16) }), "maxPushConstantsSize"},
		"bad kind":      {mutate(func(j *Job) { j.Buffers[0].Kind = 7 }), "unknown kind"},
		"set too large": {mutate(func(j *Job) { j.Buffers[0].Set = 99 }), "at most"},
		"unbound":       {mutate(func(j *Job) { j.Buffers = j.Buffers[:2] }), `set 0 binding 2 ("Res") as a storage buffer but the job binds nothing`},
		"wrong kind":    {mutate(func(j *Job) { j.Buffers[1].Kind = Uniform }), "binds a uniform buffer"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := r.Run(c.job)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to mention %q", err, c.want)
			}
		})
	}
	// Structurally fine but semantically broken: the entry point names an
	// OpExtInstImport instead of a function. lavapipe crashes on this, so
	// it must be stopped by spirv-val before the driver sees it.
	t.Run("entry is not a function", func(t *testing.T) {
		j := mutate(func(j *Job) {
			w := append([]uint32(nil), spv...)
			for i := 5; i < len(w); i += int(w[i] >> 16) {
				if w[i]&0xffff == opEntryPoint {
					w[i+2] = 1 // %1 = OpExtInstImport "GLSL.std.450" in glslang output
				}
			}
			j.SPIRV = w
		})
		_, err := r.Run(j)
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("err = %v, want a *ValidationError", err)
		}
	})
	// The runner still works after every rejection.
	if _, err := r.Run(good); err != nil {
		t.Fatalf("good job after broken ones: %v", err)
	}
}

func BenchmarkRunCached(b *testing.B) {
	r := sharedRunner(b)
	job, _ := subgroupJob(b, 64)
	if _, err := r.Run(job); err != nil {
		b.Fatal(err)
	}
	created := r.PipelinesCreated()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Run(job); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if r.PipelinesCreated() != created {
		b.Fatal("benchmark loop created pipelines")
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}

// Jobs from several goroutines are serialised by the runner; each must get
// its own results back.
func TestConcurrentRuns(t *testing.T) {
	r := sharedRunner(t)
	spv := compileGLSL(t, "params.comp")
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func(g int) {
			for k := 0; k < 25; k++ {
				data := []uint32{uint32(g), uint32(k), 7, 9}
				res, err := r.Run(Job{
					SPIRV: spv, Entry: "main", Groups: [3]uint32{1, 1, 1},
					Buffers: []Buffer{
						{Set: 0, Binding: 0, Kind: Storage, Data: bytesOf(data)},
						{Set: 1, Binding: 3, Kind: Uniform, Data: bytesOf([]uint32{2, uint32(g), 0, 0})},
					},
					PushConstants: bytesOf([]uint32{uint32(k), 4}),
				})
				if err != nil {
					errs <- err
					return
				}
				for i, v := range u32s(res.Buffers[0]) {
					if want := data[i]*2 + uint32(g) + uint32(k); v != want {
						errs <- fmt.Errorf("goroutine %d job %d: d[%d] = %d, want %d", g, k, i, v, want)
						return
					}
				}
			}
			errs <- nil
		}(g)
	}
	for g := 0; g < 4; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
