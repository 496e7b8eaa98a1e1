package viewer

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"waverig/harness/results"
	"waverig/internal/fsutil"
)

// bundleImage is one picture of a repro bundle, named by its file.
type bundleImage struct {
	Name  string
	Image image.Image
}

// bundleImages is what a pixel case's repro bundle holds to look at.
type bundleImages struct {
	Dir    string // the bundle found, "" when there is none
	Images []bundleImage
	Err    error // a PNG that could not be read (the others are still shown)
}

// imageCache keeps each bundle's decoded images: the frame is rebuilt on every
// key press and window resize, the files do not change under a finished run.
type imageCache map[string]*bundleImages

// maxPNG bounds one bundle image read from disk: a picture of a render target
// is a few hundred KiB; anything far larger is not one.
const maxPNG = 64 << 20

// BundleDir is where the run put the repro bundle of a record's kernel
// (harness/pass/repro.go names it kernel.api.compiler.waveN, under repro/deviceN
// when the run had several devices), or "" when neither is there.
func (r *Run) BundleDir(rec results.Record) string {
	api, comp := rec.API, rec.Compiler
	if api == "" {
		api = results.Vulkan
	}
	if comp == "" {
		comp = results.Ours
	}
	name := fmt.Sprintf("%s.%s.%s.wave%d", rec.Kernel, api, comp, rec.WaveSize)
	for _, d := range []string{
		filepath.Join(r.Dir, results.ReproDir, fmt.Sprintf("device%d", rec.DeviceIndex), name),
		filepath.Join(r.Dir, results.ReproDir, name),
	} {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	return ""
}

// images returns the PNG files of a record's bundle, sorted by name (so an
// "expected" and an "actual" picture always sit in the same order).
func (r *Run) images(rec results.Record) *bundleImages {
	if rec.Kernel == "" {
		return &bundleImages{}
	}
	dir := r.BundleDir(rec)
	if b, ok := r.bundles[dir]; ok {
		return b
	}
	b := &bundleImages{Dir: dir}
	r.bundles[dir] = b
	if dir == "" {
		return b
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.png"))
	if err != nil {
		b.Err = err
		return b
	}
	sort.Strings(names)
	for _, n := range names {
		img, err := readPNG(n)
		if err != nil {
			if b.Err == nil {
				b.Err = err
			}
			continue
		}
		b.Images = append(b.Images, bundleImage{Name: strings.TrimSuffix(filepath.Base(n), ".png"), Image: img})
	}
	return b
}

func readPNG(path string) (image.Image, error) {
	data, err := fsutil.ReadRegular(path, maxPNG)
	if err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return img, nil
}
