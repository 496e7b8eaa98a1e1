// Package browser runs WGSL compute kernels in a real browser's WebGPU, its
// one job: headless Chromium (Dawn and Tint inside, with the browser's own
// adapter choice, blocklist and validation), driven through the DevTools
// protocol over --remote-debugging-pipe (not --dump-dom, which snapshots the
// page before an asynchronous dispatch ends). The page holds harness/dawn's
// runner (one implementation of a request over a GPUDevice), so a kernel runs
// in the browser exactly as it runs through Dawn's Node binding.
//
// What it cannot reach: Chromium blocklists CPU adapters it does not trust —
// on the machines here it offers SwiftShader and not lavapipe — and a page
// cannot pick a Vulkan device; a browser run proves what a user's browser
// does with the WGSL, on the adapter that browser chooses.
package browser

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"waverig/harness/dawn"
)

// Binary is the Chromium the rig starts ($WAVERIG_CHROMIUM, else chromium on
// PATH: Debian's chromium package, which setup installs).
func Binary() string {
	if b := os.Getenv("WAVERIG_CHROMIUM"); b != "" {
		return b
	}
	return "chromium"
}

// Available says why no browser can be started here ("" when one can).
func Available() string {
	if _, err := exec.LookPath(Binary()); err != nil {
		return "no Chromium (" + Binary() + " is not on PATH; ./scripts/setup.sh installs Debian's chromium)"
	}
	return ""
}

// Adapter is what the page's navigator.gpu reports of the adapter the
// browser chose.
type Adapter struct {
	Vendor          string   `json:"vendor"`
	Architecture    string   `json:"architecture"`
	Description     string   `json:"description"`
	SubgroupMinSize uint32   `json:"subgroupMinSize"`
	SubgroupMaxSize uint32   `json:"subgroupMaxSize"`
	Features        []string `json:"features"`
}

// Browser is one headless Chromium with one page that holds a WebGPU device.
type Browser struct {
	Adapter Adapter

	mu      sync.Mutex
	cmd     *exec.Cmd
	toChr   io.WriteCloser
	fromChr *bufio.Reader
	session string
	next    int
	dir     string
	stderr  bytes.Buffer
}

// page is the page the browser opens: the runner, and the glue that opens a
// device with subgroups (and shader-f16 where offered) and answers requests.
const page = `<!doctype html><meta charset="utf-8"><title>waverig</title><script>
/*RUNNER*/
window.waverig = (async () => {
  if (!navigator.gpu) throw new Error('no navigator.gpu: WebGPU is off in this browser');
  const adapter = await navigator.gpu.requestAdapter();
  if (!adapter) throw new Error('the browser offers no WebGPU adapter');
  if (!adapter.features.has('subgroups')) throw new Error('the browser\'s adapter (' + adapter.info.architecture + ') lacks the subgroups feature');
  const want = ['subgroups', 'shader-f16'].filter((f) => adapter.features.has(f));
  const device = await adapter.requestDevice({ requiredFeatures: want });
  const i = adapter.info;
  return { handle: makeRunner(device), adapter: { vendor: i.vendor, architecture: i.architecture, description: i.description,
    subgroupMinSize: i.subgroupMinSize, subgroupMaxSize: i.subgroupMaxSize, features: [...adapter.features].sort() } };
})();
window.waverigCall = async (json) => JSON.stringify(await (await window.waverig).handle(JSON.parse(json)));
</script>`

// startTimeout bounds Chromium's start and the page's device.
const startTimeout = 60 * time.Second

// Open starts headless Chromium with WebGPU on, opens the page and waits for
// its device.
func Open() (*Browser, error) {
	if why := Available(); why != "" {
		return nil, errors.New(why)
	}
	dir, err := os.MkdirTemp("", "waverig-browser-*")
	if err != nil {
		return nil, err
	}
	b := &Browser{dir: dir}
	if err := os.WriteFile(filepath.Join(dir, "page.html"), []byte(strings.Replace(page, "/*RUNNER*/", dawn.PageScript(), 1)), 0o600); err != nil {
		b.Close()
		return nil, err
	}
	// fd 3 is what Chromium reads, fd 4 what it writes (--remote-debugging-pipe).
	chrIn, toChr, err := os.Pipe()
	if err != nil {
		b.Close()
		return nil, err
	}
	fromChr, chrOut, err := os.Pipe()
	if err != nil {
		chrIn.Close()
		toChr.Close()
		b.Close()
		return nil, err
	}
	cmd := exec.Command(Binary(), "--headless=new", "--no-sandbox", "--enable-unsafe-webgpu", "--enable-features=Vulkan",
		"--remote-debugging-pipe", "--user-data-dir="+filepath.Join(dir, "profile"), "--no-first-run", "about:blank")
	cmd.ExtraFiles = []*os.File{chrIn, chrOut}
	cmd.Stderr = &b.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		chrIn.Close()
		chrOut.Close()
		b.Close()
		return nil, fmt.Errorf("browser: start %s: %w", Binary(), err)
	}
	chrIn.Close()
	chrOut.Close()
	b.cmd, b.toChr, b.fromChr = cmd, toChr, bufio.NewReaderSize(fromChr, 1<<20)
	done := make(chan error, 1)
	go func() { done <- b.openPage() }()
	select {
	case err = <-done:
	case <-time.After(startTimeout):
		err = fmt.Errorf("no page with a WebGPU device in %v", startTimeout)
	}
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("browser: %w%s", err, b.lastLines())
	}
	return b, nil
}

// lastLines is the tail of Chromium's stderr, for an error that needs it.
func (b *Browser) lastLines() string {
	lines := strings.Split(strings.TrimSpace(b.stderr.String()), "\n")
	if len(lines) > 6 {
		lines = lines[len(lines)-6:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	return "\nChromium said:\n  " + strings.Join(lines, "\n  ")
}

func (b *Browser) openPage() error {
	var created struct {
		TargetID string `json:"targetId"`
	}
	if err := b.send("", "Target.createTarget", map[string]any{"url": "file://" + filepath.Join(b.dir, "page.html")}, &created); err != nil {
		return err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.send("", "Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &attached); err != nil {
		return err
	}
	b.session = attached.SessionID
	// The page's script may not have run yet: wait for window.waverig.
	for i := 0; ; i++ {
		s, err := b.eval(`(async () => { if (!window.waverig) return ''; return JSON.stringify((await window.waverig).adapter); })()`)
		if err != nil {
			return err
		}
		if s != "" {
			return json.Unmarshal([]byte(s), &b.Adapter)
		}
		if i == 200 {
			return errors.New("the page never ran its script")
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// send issues one DevTools command and decodes its result into out.
func (b *Browser) send(session, method string, params any, out any) error {
	b.next++
	id := b.next
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.toChr.Write(append(data, 0)); err != nil {
		return fmt.Errorf("DevTools pipe: %w", err)
	}
	for {
		raw, err := b.fromChr.ReadBytes(0)
		if err != nil {
			return fmt.Errorf("DevTools pipe: %w", err)
		}
		var rep struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(raw[:len(raw)-1], &rep); err != nil {
			return fmt.Errorf("DevTools: %v", err)
		}
		if rep.ID != id {
			continue // an event, or another session's message
		}
		if rep.Error != nil {
			return fmt.Errorf("DevTools %s: %s", method, rep.Error.Message)
		}
		if out == nil {
			return nil
		}
		return json.Unmarshal(rep.Result, out)
	}
}

// eval runs a promise-valued expression in the page and returns its string
// value; a rejection is an error with the page's message.
func (b *Browser) eval(expr string) (string, error) {
	var res struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := b.send(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &res); err != nil {
		return "", err
	}
	if res.Exception != nil {
		msg := res.Exception.Exception.Description
		if msg == "" {
			msg = res.Exception.Text
		}
		return "", errors.New(strings.SplitN(msg, "\n    at ", 2)[0])
	}
	s, _ := res.Result.Value.(string)
	return s, nil
}

// Binding is one buffer of a dispatch.
type Binding = dawn.Binding

// RunCompute compiles (the browser's Tint), dispatches groups workgroups and
// returns every binding's contents afterwards, in order.
func (b *Browser) RunCompute(wgsl, entry string, groups [3]uint32, bindings []Binding) ([][]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	// The page runs harness/dawn's runner: its requests are the helper's.
	data, err := dawn.ComputeRequest(wgsl, entry, groups, bindings)
	if err != nil {
		return nil, err
	}
	arg, _ := json.Marshal(string(data))
	s, err := b.eval("window.waverigCall(" + string(arg) + ")")
	if err != nil {
		return nil, fmt.Errorf("browser: %w", err)
	}
	var rep struct {
		Buffers []string `json:"buffers"`
	}
	if err := json.Unmarshal([]byte(s), &rep); err != nil {
		return nil, fmt.Errorf("browser: bad reply: %v", err)
	}
	return dawn.DecodeBuffers(rep.Buffers)
}

// Close stops Chromium and removes its profile.
func (b *Browser) Close() {
	if b.cmd != nil {
		b.toChr.Close()
		b.cmd.Process.Kill()
		b.cmd.Wait()
		b.cmd = nil
	}
	if b.dir != "" {
		os.RemoveAll(b.dir)
		b.dir = ""
	}
}
