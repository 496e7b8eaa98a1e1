//go:build viewer

package viewer

import (
	"bufio"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"waverig/harness/results"
)

// needTool finds a program the screenshot test cannot do without. In CI (CI
// set) its absence fails the test: a CI image without Xvfb would otherwise
// pass by skipping the only test of the window. Elsewhere it skips, naming
// the package to install.
func needTool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s not found (apt package %s; scripts/setup.sh installs it) and CI is set", name, pkg)
	}
	t.Skipf("%s not found: install %s (scripts/setup.sh) to test the window", name, pkg)
	return ""
}

// startXvfb starts a private X server with a 1024×768 24-bit screen and points
// DISPLAY at it for the rest of the test. -displayfd lets the server pick a
// free display number and tell it on a pipe, so parallel runs (two checkouts,
// xvfb-run) never race for ":99". It returns the display, e.g. ":1".
//
// Without Xvfb on PATH, a DISPLAY already set (xvfb-run's, or a desktop's) is
// used instead.
func startXvfb(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("Xvfb"); err != nil && os.Getenv("DISPLAY") != "" {
		t.Logf("no Xvfb on PATH: using DISPLAY=%s", os.Getenv("DISPLAY"))
		return os.Getenv("DISPLAY")
	}
	xvfb := needTool(t, "Xvfb", "xvfb")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(xvfb, "-displayfd", "3", "-screen", "0", "1024x768x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w} // fd 3 in the child
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		w.Close()
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if n == "" {
			t.Fatalf("Xvfb exited without a display number: %s", stderr.String())
		}
		t.Setenv("DISPLAY", ":"+n)
		return ":" + n
	case <-time.After(20 * time.Second):
		t.Fatalf("Xvfb gave no display number in 20 s: %s", stderr.String())
	}
	return ""
}

// screenshot dumps the whole X screen with xwd and decodes it.
func screenshot(t *testing.T, xwd, display string) *image.RGBA {
	t.Helper()
	out, err := exec.Command(xwd, "-root", "-silent", "-display", display).Output()
	if err != nil {
		t.Fatalf("xwd: %v", err)
	}
	img, err := decodeXWD(out)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// diff compares want with the part of the screen at (x, y): how many pixels
// differ at all, and the largest difference of one channel.
func diff(screen, want *image.RGBA, x, y int) (pixels, maxChannel int) {
	for j := 0; j < want.Rect.Dy(); j++ {
		for i := 0; i < want.Rect.Dx(); i++ {
			w := want.RGBAAt(i, j)
			if !image.Pt(x+i, y+j).In(screen.Rect) {
				pixels++
				maxChannel = 255
				continue
			}
			s := screen.RGBAAt(x+i, y+j)
			d := max(absDiff(w.R, s.R), absDiff(w.G, s.G), absDiff(w.B, s.B))
			if d > 0 {
				pixels++
				maxChannel = max(maxChannel, d)
			}
		}
	}
	return pixels, maxChannel
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// TestXvfbWindowShowsTheFrame opens the viewer on the fixture run (the planted
// failure selected) in a private Xvfb, presents through Vulkan (lavapipe, the
// device that can present to an Xvfb window), dumps the X screen and compares
// the window's area with the frame the pure-Go half drew: pixel for pixel.
//
// The X11 WSI of Mesa may put a presented image on screen from a thread of its
// own after vkQueuePresentKHR returns, so the test looks after every frame and
// allows a few frames for the first one to land; the count is logged.
func TestXvfbWindowShowsTheFrame(t *testing.T) {
	start := time.Now()
	display := startXvfb(t)
	xwd := needTool(t, "xwd", "x11-apps")
	xUp := time.Since(start)
	run := loadFixture(t)

	const (
		width, height = 640, 400
		frames        = 30 // at most, before the test gives up on the screen matching
		tolerance     = 0  // channel difference allowed: the copy moves bytes, it does not convert
	)
	pos := [2]int{37, 23}
	var (
		tries, pixels, worst int
		gotPos               [2]int
		frame                *Frame
		screen               *image.RGBA
		matched              time.Duration
		log                  strings.Builder
	)
	err := Show(run, Options{Width: width, Height: height, Pos: &pos, Select: 0, Log: &log,
		Presented: func(f *Frame, x, y int) bool {
			tries++
			frame, gotPos = f, [2]int{x, y}
			screen = screenshot(t, xwd, display)
			pixels, worst = diff(screen, f.Image, x, y)
			if worst <= tolerance {
				matched = time.Since(start)
				return false
			}
			return tries < frames
		}})
	if err != nil {
		t.Fatalf("Show: %v", err)
	}
	t.Logf("%s", strings.TrimSpace(log.String()))
	if frame == nil {
		t.Fatal("no frame was presented")
	}
	if got := frame.Image.Rect.Size(); got != image.Pt(width, height) {
		t.Errorf("frame %v, want the window's %dx%d", got, width, height)
	}
	if frame.Sel != 0 || frame.Heatmap.Empty() {
		t.Errorf("frame shows selection %d, heatmap %v: want the planted failure and its lanes", frame.Sel, frame.Heatmap)
	}
	if gotPos != pos {
		t.Logf("window placed at %v, asked for %v (a window manager?); compared where it is", gotPos, pos)
	}
	if worst > tolerance {
		keepScreenshot(t, screen)
		t.Fatalf("after %d frames the window at %v differs from the frame in %d of %d pixels (largest channel difference %d)",
			tries, gotPos, pixels, width*height, worst)
	}
	// A control: one pixel to the side, the same comparison must fail, or the
	// frame is too plain for the match to mean anything.
	if p, _ := diff(screen, frame.Image, gotPos[0]+1, gotPos[1]); p < width*height/100 {
		t.Errorf("shifted by one pixel, only %d pixels differ: the comparison proves nothing", p)
	}
	t.Logf("X up in %v; window at %v matched the frame (%d pixels, %d differ, tolerance %d) at frame %d, %v after start",
		xUp.Round(time.Millisecond), gotPos, width*height, pixels, tolerance, tries, matched.Round(time.Millisecond))
}

// keepScreenshot writes the screen of a failed comparison next to the test's
// temporary files, for a person to look at.
func keepScreenshot(t *testing.T, screen *image.RGBA) {
	f, err := os.CreateTemp("", "waverig-viewer-screen-*.png")
	if err != nil {
		return
	}
	defer f.Close()
	if png.Encode(f, screen) == nil {
		t.Logf("the X screen is in %s", f.Name())
	}
}

// TestXvfbKeysAndClicks drives the window as a person would, through the X
// server (xdotool's XTEST events): Right moves the selection to the next
// failing case, a click on the pixel case's grid cell selects it (its bundle
// images appear), a resize makes a new swapchain, q closes the window. After each step the screen must again
// be the frame, so input, redraw and presentation are checked together.
func TestXvfbKeysAndClicks(t *testing.T) {
	display := startXvfb(t)
	xwd := needTool(t, "xwd", "x11-apps")
	xdotool := needTool(t, "xdotool", "xdotool")
	run := loadFixture(t)
	pixelSel := -1
	for s := range run.Failing {
		if rec, _ := run.Selected(s); rec.Stage == results.Pixel {
			pixelSel = s
		}
	}
	if pixelSel <= 1 {
		t.Fatalf("the fixture's pixel case is selection %d, want one past the first two", pixelSel)
	}
	pixelRec, _ := run.Selected(pixelSel)
	pixelOp, pixelCol := position(t, run, pixelRec.Op, columnOf(pixelRec))

	do := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(xdotool, args...).CombinedOutput(); err != nil {
			t.Fatalf("xdotool %v: %v: %s", args, err, out)
		}
	}
	// Each step: what the frame must show before the next input is sent.
	type step struct {
		name  string
		want  func(f *Frame) bool
		input func(f *Frame, x, y int)
	}
	steps := []step{
		{"first frame: the worst case", func(f *Frame) bool { return f.Sel == 0 }, func(f *Frame, x, y int) {
			// The pointer into the window first: without a window manager
			// the server's focus follows it.
			do("mousemove", "--sync", fmt.Sprint(x+5), fmt.Sprint(y+5))
			do("key", "Right")
		}},
		{"Right: the next case", func(f *Frame) bool { return f.Sel == 1 }, func(f *Frame, x, y int) {
			c := center(f.CellRect(pixelOp, pixelCol))
			do("mousemove", "--sync", fmt.Sprint(x+c.X), fmt.Sprint(y+c.Y))
			do("click", "1")
		}},
		{"click: the pixel case and its images", func(f *Frame) bool { return f.Sel == pixelSel && len(f.Images) == 2 }, func(*Frame, int, int) {
			// GLFW names the X window after the title Show gives it.
			do("search", "--name", "^waverig view ", "windowsize", "--sync", "600", "360")
		}},
		{"resized: a new swapchain, the frame redrawn at 600x360", func(f *Frame) bool { return f.Image.Rect.Size() == image.Pt(600, 360) }, func(*Frame, int, int) {
			do("key", "q")
		}},
	}
	var (
		at, frames int
		done       []string
		overrun    bool
	)
	start := time.Now()
	err := Show(run, Options{Width: 800, Height: 480, Pos: &[2]int{0, 0}, Presented: func(f *Frame, x, y int) bool {
		frames++
		if frames > 300 {
			overrun = true // input lost, or q did not close: reported below
			return false
		}
		if at >= len(steps) || !steps[at].want(f) {
			return true // not there yet: the next frame looks again
		}
		if p, worst := diff(screenshot(t, xwd, display), f.Image, x, y); worst > 0 {
			// Presentation may lag a frame behind (see above): look again.
			t.Logf("%s: %d pixels differ at frame %d, looking again", steps[at].name, p, frames)
			return true
		}
		done = append(done, steps[at].name)
		steps[at].input(f, x, y)
		at++
		return true
	}})
	if err != nil {
		t.Fatalf("Show: %v", err)
	}
	if at < len(steps) {
		t.Fatalf("after %d frames only %q were reached; stuck at %q", frames, done, steps[at].name)
	}
	if overrun {
		t.Fatalf("q did not close the window (%d frames)", frames)
	}
	t.Logf("%d steps (%s), each on screen exactly, in %d frames, %v; q closed the window",
		len(steps), strings.Join(done, "; "), frames, time.Since(start).Round(time.Millisecond))
}
