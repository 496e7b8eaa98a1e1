// Package headless opens a page in a headless Chromium, for tests that check
// what a browser makes of waverig's HTML report: the DOM after the page's
// scripts ran (--dump-dom) and a screenshot. It runs the browser as a process
// (no DevTools protocol, no dependency), one page per call.
package headless

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Timeout bounds one browser process.
const Timeout = 60 * time.Second

// names are the executables a Chromium goes by (Debian's package is chromium).
var names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Find returns the path of an installed Chromium.
func Find() (string, error) {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium on PATH (looked for %s; Debian: apt-get install chromium, as scripts/setup.sh does)", strings.Join(names, ", "))
}

// Require returns the Chromium to use, or ends the test: it fails under CI
// (CI set), where the browser is part of the machine, and skips elsewhere.
func Require(t testing.TB) string {
	t.Helper()
	p, err := Find()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI: %v", err)
		}
		t.Skip(err)
	}
	return p
}

// Page is what the browser made of a page.
type Page struct {
	DOM        string      // the document after its load handlers ran
	Screenshot image.Image // the top width×height CSS pixels, at scale 1
	Version    string      // "Chromium 120.0.6099.224 …"
}

// Render opens file (a local HTML file) in browser at width×height and returns
// its DOM and screenshot. The two are separate processes, run at once; each
// gets its own profile and HOME under a temporary directory (a container has
// no writable home, no /dev/shm to speak of, and no user namespace for the
// sandbox).
func Render(ctx context.Context, browser, file string, width, height int) (Page, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return Page{}, err
	}
	tmp, err := os.MkdirTemp("", "waverig-headless-")
	if err != nil {
		return Page{}, err
	}
	defer os.RemoveAll(tmp)
	url := "file://" + filepath.ToSlash(abs)
	shot := filepath.Join(tmp, "shot.png")
	run := func(profile string, args ...string) ([]byte, error) {
		ctx, cancel := context.WithTimeout(ctx, Timeout)
		defer cancel()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
			"--no-first-run", "--disable-extensions", "--hide-scrollbars", "--force-device-scale-factor=1",
			"--user-data-dir=" + filepath.Join(tmp, profile), fmt.Sprintf("--window-size=%d,%d", width, height)}
		cmd := exec.CommandContext(ctx, browser, append(append(base, args...), url)...)
		cmd.Env = append(os.Environ(), "HOME="+tmp)
		cmd.Dir = tmp
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				err = fmt.Errorf("%w after %v", ctx.Err(), Timeout)
			}
			return nil, fmt.Errorf("%s %s: %v\n%s", filepath.Base(browser), strings.Join(args, " "), err, tail(stderr.String()))
		}
		return stdout.Bytes(), nil
	}
	var p Page
	var dom []byte
	var domErr, shotErr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); dom, domErr = run("dom", "--dump-dom") }()
	go func() { defer wg.Done(); _, shotErr = run("shot", "--screenshot="+shot) }()
	wg.Wait()
	if err := errors.Join(domErr, shotErr); err != nil {
		return Page{}, err
	}
	p.DOM = string(dom)
	f, err := os.Open(shot)
	if err != nil {
		return Page{}, fmt.Errorf("no screenshot: %v", err)
	}
	defer f.Close()
	if p.Screenshot, err = png.Decode(f); err != nil {
		return Page{}, fmt.Errorf("screenshot: %v", err)
	}
	if out, err := exec.CommandContext(ctx, browser, "--version").Output(); err == nil {
		p.Version = strings.TrimSpace(string(out))
	}
	return p, nil
}

// tail keeps the last lines of a browser's chatter (it logs D-Bus errors in a
// container even when it works).
func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return strings.Join(lines, "\n")
}

// CountColor counts the pixels of img inside r within tol (per channel, 8-bit)
// of c: a screenshot's colours are the page's CSS colours exactly where a
// surface is flat, give or take the browser's colour management.
func CountColor(img image.Image, r image.Rectangle, c color.Color, tol int) int {
	cr, cg, cb, _ := c.RGBA()
	n := 0
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			if near(pr, cr, tol) && near(pg, cg, tol) && near(pb, cb, tol) {
				n++
			}
		}
	}
	return n
}

func near(a, b uint32, tol int) bool {
	d := int(a>>8) - int(b>>8)
	return d <= tol && d >= -tol
}

// Ink is the share of img's pixels that are not its top-left pixel's colour
// (the page background): 0 for a blank screenshot.
func Ink(img image.Image) float64 {
	b := img.Bounds()
	if b.Empty() {
		return 0
	}
	bg := img.At(b.Min.X, b.Min.Y)
	n := b.Dx()*b.Dy() - CountColor(img, b, bg, 0)
	return float64(n) / float64(b.Dx()*b.Dy())
}
