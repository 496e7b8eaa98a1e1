package vulkan

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// spirv-val's acceptances are remembered on disk (under the user cache
// directory), so the next process does not run it again for the same module;
// a rejection leaves no trace and is judged again every time.
func TestValidateRemembersAcceptances(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	good := compileGLSL(t, "subgroup.comp")
	hash := hashWords(good)
	forget := func() {
		accepted.Lock()
		delete(accepted.m, hash)
		accepted.Unlock()
	}
	forget()
	if err := Validate(good); err != nil {
		t.Fatal(err)
	}
	marker := acceptedMarker(targetEnv(good[1]), hash)
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("no marker after an acceptance: %v", err)
	}
	if filepath.Dir(filepath.Dir(filepath.Dir(marker))) != os.Getenv("XDG_CACHE_HOME") {
		t.Fatalf("marker %s is not under the cache directory", marker)
	}

	// A module spirv-val rejects (a type declared twice: OpTypeInt 32 0) ...
	bad := append([]uint32(nil), good...)
	bad = append(bad[:5:5], append([]uint32{0x00040015, 0x7fff0, 32, 0, 0x00040015, 0x7fff1, 32, 0}, good[5:]...)...)
	bad[3] = 0x7fff2 // id bound
	badHash := hashWords(bad)
	err := Validate(bad)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Validate(duplicate type) = %v, want a ValidationError", err)
	}
	badMarker := acceptedMarker(targetEnv(bad[1]), badHash)
	if _, err := os.Stat(badMarker); err == nil {
		t.Fatal("a rejected module left an acceptance marker")
	}
	// ... is trusted once a marker says a validator of this version accepted
	// it: the marker, not a new spirv-val process, decides.
	rememberAccepted(badMarker)
	if err := Validate(bad); err != nil {
		t.Fatalf("Validate ignored the acceptance marker: %v", err)
	}
	accepted.Lock()
	delete(accepted.m, badHash)
	accepted.Unlock()
}

// A module using SPV_KHR_quad_control (a native quad vote) or
// [WaveOpsIncludeHelperLanes] is accepted by a spirv-val that predates those
// extensions through a view without them; an error elsewhere in such a module
// is still a rejection.
func TestValidateModulesNewerThanTheValidator(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	for _, name := range []string{"quadany_khr.spv", "helperlanes_ps.spv"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			words, err := WordsFromBytes(data)
			if err != nil {
				t.Fatal(err)
			}
			view, left := olderValidatorView(words)
			if len(left) == 0 || len(view) >= len(words) {
				t.Fatalf("view left out %v (%d of %d words)", left, len(view), len(words))
			}
			if err := Validate(words); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			// Break something unrelated: a second OpTypeInt 32 0 after the header.
			bad := append(append(append([]uint32(nil), words[:5]...), 0x00040015, words[3], 32, 0), words[5:]...)
			bad[3]++
			err = Validate(bad)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Validate(broken) = %v, want a ValidationError", err)
			}
		})
	}
}
