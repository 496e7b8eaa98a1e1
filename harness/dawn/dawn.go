// Package dawn drives Dawn, the WebGPU implementation of Chromium (Tint
// compiles its WGSL), its one job: it starts one long-lived Node helper
// process per adapter (helper.mjs, on the npm package `webgpu`, Dawn's Node
// binding), speaks JSON lines with it — the adapter's info and features
// first, then compile, dispatch and read-back requests, each line followed
// by its buffers' bytes — and restarts it when it dies. It is the second WebGPU implementation beside
// harness/webgpu (wgpu-native); harness/pass drives both through pass.Device.
// The WGSL it runs is the standard dialect (`enable subgroups;`), the one
// browsers take.
package dawn

import (
	"bufio"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"waverig/devices/icd"
)

//go:embed helper.mjs
var helperJS []byte

//go:embed runner.mjs
var runnerJS []byte

// PageScript is runner.mjs as a classic script for a web page
// (harness/browser): makeRunner(device) without the module's export line.
func PageScript() string {
	return strings.Replace(string(runnerJS), "\nexport { makeRunner };\n", "\n", 1)
}

// helperCommand runs the helper script with Node, told where Dawn is and
// given env.
func helperCommand(script string, env ...string) *exec.Cmd {
	cmd := exec.Command("node", script)
	cmd.Env = append(append(os.Environ(), ModuleEnv+"="+Module()), env...)
	return cmd
}

// writeHelper writes helper.mjs and the runner.mjs it imports into a new
// temporary folder and returns the helper's path.
func writeHelper() (string, error) {
	dir, err := os.MkdirTemp("", "waverig-dawn-*")
	if err != nil {
		return "", err
	}
	for name, data := range map[string][]byte{"helper.mjs": helperJS, "runner.mjs": runnerJS} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	return filepath.Join(dir, "helper.mjs"), nil
}

// Version is the npm package setup installs (scripts/drivers.sh).
const Version = "0.6.2"

// ModuleEnv names the index.js of the `webgpu` package to use instead of
// the provisioned one.
const ModuleEnv = "WAVERIG_DAWN_MODULE"

// Module is the index.js of the `webgpu` package: $WAVERIG_DAWN_MODULE, else
// the one setup installs under the drivers folder (icd.Dir()/dawn).
func Module() string {
	if m := os.Getenv(ModuleEnv); m != "" {
		return m
	}
	return filepath.Join(icd.Dir(), "dawn", "node_modules", "webgpu", "index.js")
}

// Available says why Dawn cannot run here ("" when Node and the package are
// installed).
func Available() string {
	if _, err := exec.LookPath("node"); err != nil {
		return "Dawn needs Node.js (node is not on PATH; ./scripts/setup.sh installs it)"
	}
	if _, err := os.Stat(Module()); err != nil {
		return fmt.Sprintf("Dawn's Node binding (npm webgpu@%s) is not installed at %s: run ./scripts/setup.sh", Version, Module())
	}
	return ""
}

// Adapter is what the helper reports of an adapter.
type Adapter struct {
	Name            string   `json:"name"` // in Adapters' list only
	Vendor          string   `json:"vendor"`
	Architecture    string   `json:"architecture"`
	Device          string   `json:"device"`
	Description     string   `json:"description"`
	SubgroupMinSize uint32   `json:"subgroupMinSize"`
	SubgroupMaxSize uint32   `json:"subgroupMaxSize"`
	Features        []string `json:"features"`
	// DeviceFeatures are the features the helper's device was created with
	// (subgroups, and shader-f16 where the adapter has it).
	DeviceFeatures []string `json:"deviceFeatures"`
}

// Has reports whether the device was created with feature.
func (a Adapter) Has(feature string) bool { return slices.Contains(a.DeviceFeatures, feature) }

var adapters = sync.OnceValues(listAdapters)

// Adapters are the Vulkan adapters Dawn offers on this machine (asked once
// per process: one Node start, well under a second).
func Adapters() ([]Adapter, error) { return adapters() }

func listAdapters() ([]Adapter, error) {
	if why := Available(); why != "" {
		return nil, errors.New(why)
	}
	script, err := writeHelper()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(filepath.Dir(script))
	cmd := helperCommand(script, "WAVERIG_DAWN_LIST=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var got struct {
		Adapters []Adapter `json:"adapters"`
		Error    string    `json:"error"`
	}
	if jerr := json.Unmarshal(out, &got); jerr != nil || got.Error != "" {
		if got.Error == "" {
			got.Error = fmt.Sprintf("%v %v: %s", err, jerr, strings.TrimSpace(stderr.String()))
		}
		return nil, fmt.Errorf("dawn: listing adapters: %s", got.Error)
	}
	return got.Adapters, nil
}

// Binding is one buffer of a request.
type Binding struct {
	Group, Binding int
	Uniform        bool
	Data           []byte
}

// Texture is one sampled 2-D texture of a request: where the module binds
// it, its format as WebGPU spells it ("r16float", the one the runner takes),
// level-0 size and each mip level's texels (rows tightly packed).
type Texture struct {
	Group, Binding int
	Format         string
	Width, Height  uint32
	Levels         [][]byte
}

// Sampler is one sampler of a request, its filters ("linear", "nearest") and
// address mode ("clamp-to-edge") as WebGPU spells them.
type Sampler struct {
	Group, Binding int
	Mag, Min, Mip  string
	Address        string
}

// Sampling is a request's textures and samplers.
type Sampling struct {
	Textures []Texture
	Samplers []Sampler
}

// DrawJob is one render pass: Draws draws (instance i of draw i) of a
// VertexCount-vertex triangle list with no vertex buffers into a Width ×
// Height target. Color is "rgba32uint", "rgba32float" or "" (no colour
// target: a depth target instead).
type DrawJob struct {
	VertexWGSL, VertexEntry     string
	FragmentWGSL, FragmentEntry string
	Width, Height, VertexCount  uint32
	Draws                       uint32
	Color                       string
	Bindings                    []Binding
	Sampling                    Sampling
}

// Device is one adapter behind a helper process.
type Device struct {
	match   string // the adapter name substring the helper is started with
	Adapter Adapter

	mu        sync.Mutex
	cmd       *exec.Cmd
	in        io.WriteCloser
	out       *bufio.Reader
	script    string
	next      int
	pipelines map[string]bool
	// Stderr gets the helper's stderr (nil: discarded). Dawn prints
	// warnings about the adapter there at every start. A Stderr with a
	// Flush method is flushed whenever a helper has ended.
	Stderr io.Writer
}

// Open starts a helper on the Vulkan adapter whose name contains match and
// returns it once the helper has reported the adapter.
func Open(match string, stderr io.Writer) (*Device, error) {
	if why := Available(); why != "" {
		return nil, errors.New(why)
	}
	d := &Device{match: match, pipelines: map[string]bool{}, Stderr: stderr}
	if err := d.start(); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// startTimeout bounds a helper's start-up (Node, Dawn, the Vulkan instance).
const startTimeout = 60 * time.Second

func (d *Device) start() error {
	if d.script == "" {
		script, err := writeHelper()
		if err != nil {
			return err
		}
		d.script = script
	}
	cmd := helperCommand(d.script, "WAVERIG_DAWN_ADAPTER="+d.match)
	// The helper dies with the process that drives it (a child the
	// watchdog kills must not leave a helper behind).
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if d.Stderr != nil {
		cmd.Stderr = d.Stderr
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	outp, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("dawn: start node: %w", err)
	}
	d.cmd, d.in, d.out = cmd, in, bufio.NewReaderSize(outp, 1<<20)
	type first struct {
		Adapter *Adapter `json:"adapter"`
		Error   string   `json:"error"`
	}
	got := make(chan first, 1)
	go func() {
		var f first
		line, err := d.out.ReadBytes('\n')
		if err != nil {
			f.Error = "the Dawn helper ended before it reported an adapter: " + err.Error()
		} else if err := json.Unmarshal(line, &f); err != nil {
			f.Error = "the Dawn helper said " + strings.TrimSpace(string(line))
		}
		got <- f
	}()
	select {
	case f := <-got:
		if f.Error != "" || f.Adapter == nil {
			d.stop()
			return fmt.Errorf("dawn: %s", f.Error)
		}
		d.Adapter = *f.Adapter
		return nil
	case <-time.After(startTimeout):
		d.stop()
		return fmt.Errorf("dawn: the helper did not report an adapter in %v", startTimeout)
	}
}

// stop ends the helper and says how it ended ("signal: segmentation
// fault"; "killed" when it was still running).
func (d *Device) stop() string {
	if d.cmd == nil {
		return ""
	}
	d.in.Close()
	// A helper that died on its own has ended already: wait for it briefly
	// before the kill, so its own exit is what is reported.
	done := make(chan struct{})
	go func() { d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		d.cmd.Process.Kill()
		<-done
	}
	// Wait has copied the last of its stderr: a writer that holds back a
	// partial line gets it now.
	if f, ok := d.Stderr.(interface{ Flush() }); ok {
		f.Flush()
	}
	state := "killed"
	if ps := d.cmd.ProcessState; ps != nil {
		state = ps.String()
	}
	d.cmd = nil
	return state
}

// Close stops the helper.
func (d *Device) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stop()
	if d.script != "" {
		os.RemoveAll(filepath.Dir(d.script))
		d.script = ""
	}
}

// A byte field on the wire (a binding's data, a texture level) is a base64
// string in the page's JSON (ComputeRequest) and, to the helper, the index
// of a blob: the helper's lines carry their bytes after the newline (see
// helper.mjs), which spares both ends base64 and JSON strings of megabytes.
type wireBinding struct {
	Group   int  `json:"group"`
	Binding int  `json:"binding"`
	Uniform bool `json:"uniform"`
	Data    any  `json:"data"`
}

type request struct {
	ID            int           `json:"id"`
	Op            string        `json:"op"`
	WGSL          string        `json:"wgsl,omitempty"`
	Entry         string        `json:"entry,omitempty"`
	Groups        [3]uint32     `json:"groups"`
	VertexWGSL    string        `json:"vertexWGSL,omitempty"`
	VertexEntry   string        `json:"vertexEntry,omitempty"`
	FragmentWGSL  string        `json:"fragmentWGSL,omitempty"`
	FragmentEntry string        `json:"fragmentEntry,omitempty"`
	Width         uint32        `json:"width,omitempty"`
	Height        uint32        `json:"height,omitempty"`
	VertexCount   uint32        `json:"vertexCount,omitempty"`
	Draws         uint32        `json:"draws,omitempty"`
	Color         string        `json:"color,omitempty"`
	Bindings      []wireBinding `json:"bindings"`
	Textures      []wireTexture `json:"textures,omitempty"`
	Samplers      []wireSampler `json:"samplers,omitempty"`
	// Blobs are the byte lengths of the blobs that follow the line.
	Blobs []int `json:"blobs,omitempty"`
}

// wireTexture and wireSampler are a Texture and a Sampler as runner.mjs
// takes them (levels as byte fields, the sampler's fields named as
// GPUSamplerDescriptor's).
type wireTexture struct {
	Group  int    `json:"group"`
	Bind   int    `json:"binding"`
	Format string `json:"format"`
	Width  uint32 `json:"width"`
	Height uint32 `json:"height"`
	Levels []any  `json:"levels"`
}

type wireSampler struct {
	Group   int    `json:"group"`
	Bind    int    `json:"binding"`
	Mag     string `json:"magFilter"`
	Min     string `json:"minFilter"`
	Mip     string `json:"mipmapFilter"`
	Address string `json:"addressMode"`
}

// withSampling puts s on r in the wire format, its levels as blobs.
func (r request) withSampling(s Sampling, blobs *[][]byte) request {
	for _, t := range s.Textures {
		wt := wireTexture{Group: t.Group, Bind: t.Binding, Format: t.Format, Width: t.Width, Height: t.Height}
		for _, l := range t.Levels {
			wt.Levels = append(wt.Levels, field(l, blobs))
		}
		r.Textures = append(r.Textures, wt)
	}
	for _, sm := range s.Samplers {
		r.Samplers = append(r.Samplers, wireSampler{Group: sm.Group, Bind: sm.Binding, Mag: sm.Mag, Min: sm.Min, Mip: sm.Mip, Address: sm.Address})
	}
	return r
}

// reply is the helper's answer: its buffers and colour target are blob
// indices, the blobs' bytes in Data.
type reply struct {
	ID      int      `json:"id"`
	Buffers []int    `json:"buffers"`
	Color   *int     `json:"color"`
	Blobs   []int    `json:"blobs"`
	Error   string   `json:"error"`
	Data    [][]byte `json:"-"`
}

// field is a byte field on the wire: base64 without blobs (the page's JSON),
// else the index of the blob it is added as.
func field(b []byte, blobs *[][]byte) any {
	if blobs == nil {
		return base64.StdEncoding.EncodeToString(b)
	}
	*blobs = append(*blobs, b)
	return len(*blobs) - 1
}

func wire(bs []Binding, blobs *[][]byte) []wireBinding {
	out := make([]wireBinding, len(bs))
	for i, b := range bs {
		out[i] = wireBinding{b.Group, b.Binding, b.Uniform, field(b.Data, blobs)}
	}
	return out
}

// blob is the reply's blob k.
func (r reply) blob(k int) ([]byte, error) {
	if k < 0 || k >= len(r.Data) {
		return nil, fmt.Errorf("dawn: the reply names blob %d of %d", k, len(r.Data))
	}
	return r.Data[k], nil
}

// buffers are the reply's read-back buffers.
func (r reply) buffers() ([][]byte, error) {
	out := make([][]byte, len(r.Buffers))
	for i, k := range r.Buffers {
		b, err := r.blob(k)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// ErrHelperDied is the error of a request whose helper ended before it
// answered (a lost device, a crash in Dawn or the driver); the next request
// starts a new helper.
var ErrHelperDied = errors.New("dawn: the helper process died")

// call sends one request, its blobs after the line, and waits for its
// reply; a dead helper is restarted for the next call.
func (d *Device) call(r request, blobs [][]byte) (reply, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cmd == nil {
		if err := d.start(); err != nil {
			return reply{}, err
		}
	}
	d.next++
	r.ID = d.next
	r.Blobs = nil
	for _, b := range blobs {
		r.Blobs = append(r.Blobs, len(b))
	}
	data, err := json.Marshal(r)
	if err != nil {
		return reply{}, err
	}
	msg := net.Buffers{append(data, '\n')}
	for _, b := range blobs {
		msg = append(msg, b)
	}
	if _, err := msg.WriteTo(d.in); err != nil {
		d.stop()
		return reply{}, fmt.Errorf("%w (%v)", ErrHelperDied, err)
	}
	for {
		line, err := d.out.ReadBytes('\n')
		if err != nil {
			return reply{}, fmt.Errorf("%w (%s)", ErrHelperDied, d.stop())
		}
		var rep reply
		if err := json.Unmarshal(line, &rep); err != nil {
			d.stop()
			return reply{}, fmt.Errorf("dawn: bad reply %.200q: %v", line, err)
		}
		for _, n := range rep.Blobs {
			b := make([]byte, n)
			if _, err := io.ReadFull(d.out, b); err != nil {
				return reply{}, fmt.Errorf("%w (%s)", ErrHelperDied, d.stop())
			}
			rep.Data = append(rep.Data, b)
		}
		if rep.ID != r.ID {
			continue // a stale reply (a request that timed out on our side cannot happen: calls are serial)
		}
		if rep.Error != "" {
			return rep, errors.New(rep.Error)
		}
		return rep, nil
	}
}

// ComputeRequest is the runner's request for one compute dispatch, as JSON:
// the Node helper and harness/browser's page take the same one.
func ComputeRequest(wgsl, entry string, groups [3]uint32, bindings []Binding) ([]byte, error) {
	return json.Marshal(request{Op: "compute", WGSL: wgsl, Entry: entry, Groups: groups, Bindings: wire(bindings, nil)})
}

// DecodeBuffers are a runner reply's buffers (base64) as bytes.
func DecodeBuffers(ss []string) ([][]byte, error) { return decode(ss) }

func decode(ss []string) ([][]byte, error) {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// RunCompute compiles (Tint; cached in the helper), dispatches groups
// workgroups and returns every binding's contents afterwards, in order.
func (d *Device) RunCompute(wgsl, entry string, groups [3]uint32, bindings []Binding) ([][]byte, error) {
	return d.RunComputeSampling(wgsl, entry, groups, bindings, Sampling{})
}

// RunComputeSampling is RunCompute with textures and samplers.
func (d *Device) RunComputeSampling(wgsl, entry string, groups [3]uint32, bindings []Binding, s Sampling) ([][]byte, error) {
	var blobs [][]byte
	rep, err := d.call(request{Op: "compute", WGSL: wgsl, Entry: entry, Groups: groups, Bindings: wire(bindings, &blobs)}.withSampling(s, &blobs), blobs)
	if err != nil {
		return nil, err
	}
	d.count("c|" + entry + "|" + wgsl)
	return rep.buffers()
}

// RunDraw runs one render pass and returns the bindings' contents and the
// colour target (Width × Height × 16 bytes, rows packed; nil without one).
func (d *Device) RunDraw(j DrawJob) (bufs [][]byte, color []byte, err error) {
	var blobs [][]byte
	rep, err := d.call(request{Op: "draw", VertexWGSL: j.VertexWGSL, VertexEntry: j.VertexEntry, FragmentWGSL: j.FragmentWGSL,
		FragmentEntry: j.FragmentEntry, Width: j.Width, Height: j.Height, VertexCount: j.VertexCount, Draws: j.Draws, Color: j.Color,
		Bindings: wire(j.Bindings, &blobs)}.withSampling(j.Sampling, &blobs), blobs)
	if err != nil {
		return nil, nil, err
	}
	d.count("d|" + j.VertexEntry + "|" + j.FragmentEntry + "|" + j.VertexWGSL + j.FragmentWGSL)
	if bufs, err = rep.buffers(); err != nil {
		return nil, nil, err
	}
	if rep.Color != nil {
		color, err = rep.blob(*rep.Color)
	}
	return bufs, color, err
}

// Validate asks Tint whether it accepts a WGSL module (nothing runs).
func (d *Device) Validate(wgsl string) error {
	_, err := d.call(request{Op: "validate", WGSL: wgsl}, nil)
	return err
}

func (d *Device) count(key string) {
	d.mu.Lock()
	d.pipelines[key] = true
	d.mu.Unlock()
}

// Pipelines is the number of distinct pipelines run so far (the helper
// builds each once and keeps it).
func (d *Device) Pipelines() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.pipelines)
}
