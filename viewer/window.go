//go:build viewer

package viewer

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/go-gl/glfw/v3.3/glfw"
)

// Options shape a viewer window.
type Options struct {
	// Width and Height are the window's initial client size (0: 1100 × 700).
	Width, Height int
	// Pos places the window's client area on the screen when set (X has no
	// window manager under Xvfb to place it).
	Pos    *[2]int
	Select int // the initial selection (an index into Run.Failing)
	// Frames closes the window after this many presented frames; 0 keeps it
	// open until Esc, q or the close button. With Frames set, every pass of
	// the loop presents, so a scripted run cannot wait on input forever.
	Frames int
	// Presented, when set, is called after each presented frame with the
	// frame and the client area's position on the screen; returning false
	// closes the window. The screenshot test looks at the X screen here.
	Presented func(f *Frame, x, y int) bool
	// Log receives one line naming the device and swapchain (nil: none).
	Log io.Writer
}

// Show opens a window on the run and returns when it is closed. GLFW wants all
// its calls on one thread: Show locks the calling goroutine to its thread
// until it returns (`waverig view` calls it from main).
func Show(r *Run, o Options) (err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if o.Width <= 0 || o.Height <= 0 {
		o.Width, o.Height = 1100, 700
	}
	if runtime.GOOS != "windows" && runtime.GOOS != "darwin" && os.Getenv("DISPLAY") == "" {
		return errors.New("no X display: DISPLAY is not set (run it in an X session, or under xvfb-run)")
	}
	if err := glfw.Init(); err != nil {
		return fmt.Errorf("glfw: %w", err)
	}
	if !glfwReady() {
		return errors.New("glfw could not initialise (the PlatformError above says why: a DISPLAY that cannot be opened?)")
	}
	defer glfw.Terminate()
	if !glfw.VulkanSupported() {
		return errors.New("glfw: no Vulkan loader found")
	}
	// No GL context: the window's pixels come from a Vulkan swapchain.
	glfw.WindowHint(glfw.ClientAPI, glfw.NoAPI)
	win, err := glfw.CreateWindow(o.Width, o.Height, "waverig view "+r.Dir, nil, nil)
	if err != nil {
		return fmt.Errorf("glfw: %w", err)
	}
	defer win.Destroy()
	if o.Pos != nil {
		win.SetPos(o.Pos[0], o.Pos[1])
	}
	p, err := openPresenter(win)
	if err != nil {
		return err
	}
	defer p.close()

	sel := o.Select
	if _, ok := r.Selected(sel); !ok {
		sel = r.Step(-1, 1)
	}
	dirty, resized := true, true
	var last *Frame
	win.SetKeyCallback(func(w *glfw.Window, key glfw.Key, _ int, action glfw.Action, _ glfw.ModifierKey) {
		if action == glfw.Release {
			return
		}
		switch key {
		case glfw.KeyEscape, glfw.KeyQ:
			w.SetShouldClose(true)
		case glfw.KeyRight:
			sel, dirty = r.Step(sel, 1), true
		case glfw.KeyLeft:
			sel, dirty = r.Step(sel, -1), true
		case glfw.KeyDown:
			sel, dirty = r.StepCell(sel, 1), true
		case glfw.KeyUp:
			sel, dirty = r.StepCell(sel, -1), true
		case glfw.KeyHome:
			sel, dirty = r.Step(-1, 1), true
		case glfw.KeyEnd:
			sel, dirty = r.Step(-1, -1), true
		}
	})
	win.SetMouseButtonCallback(func(w *glfw.Window, b glfw.MouseButton, action glfw.Action, _ glfw.ModifierKey) {
		if b != glfw.MouseButtonLeft || action != glfw.Press || last == nil {
			return
		}
		// The cursor is in window coordinates, the frame in framebuffer
		// pixels; they differ on a scaled (HiDPI) display.
		cx, cy := w.GetCursorPos()
		ww, wh := w.GetSize()
		fw, fh := last.Image.Rect.Dx(), last.Image.Rect.Dy()
		if ww > 0 && wh > 0 {
			cx, cy = cx*float64(fw)/float64(ww), cy*float64(fh)/float64(wh)
		}
		if op, col, ok := last.CellAt(int(cx), int(cy)); ok {
			if s := r.InCell(op, col); s >= 0 {
				sel, dirty = s, true
			}
		}
	})
	win.SetFramebufferSizeCallback(func(*glfw.Window, int, int) { resized, dirty = true, true })
	// Exposed again (uncovered, restored): X kept nothing of the old pixels.
	win.SetRefreshCallback(func(*glfw.Window) { dirty = true })

	shown, retries := 0, 0
	for !win.ShouldClose() {
		if resized {
			switch err := p.swapchain(win.GetFramebufferSize()); {
			case errors.Is(err, errNoArea):
				dirty = false // minimised: wait for a size
			case err != nil:
				return err
			default:
				resized = false
				if o.Log != nil && shown == 0 {
					fmt.Fprintf(o.Log, "waverig view: presenting on %s\n", p.describe())
				}
			}
		}
		if dirty && !resized {
			w, h := p.extent()
			f := r.Frame(w, h, sel)
			st, err := p.present(f.Image)
			if err != nil {
				return err
			}
			switch st {
			case outOfDate:
				// The window changed size between the swapchain and the
				// present; a driver that keeps saying so is a bug, not a loop.
				if retries++; retries > 10 {
					return errors.New("vulkan: the swapchain stayed out of date after 10 recreations")
				}
				resized = true
				continue
			case suboptimal:
				resized = true
			}
			retries, dirty, last = 0, false, f
			shown++
			if o.Presented != nil {
				x, y := win.GetPos()
				if !o.Presented(f, x, y) {
					return nil
				}
			}
			if o.Frames > 0 && shown >= o.Frames {
				return nil
			}
		}
		if o.Frames > 0 || o.Presented != nil {
			glfw.PollEvents()
			dirty = true
		} else {
			glfw.WaitEvents()
		}
	}
	return nil
}

// glfwReady reports whether glfw.Init worked. go-gl's Init returns no error
// when the platform fails (it logs a PlatformError and the library stays
// uninitialised); every later call then panics with NotInitialized. GetTime
// is the cheapest such call.
func glfwReady() (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	glfw.GetTime()
	return true
}
