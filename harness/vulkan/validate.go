package vulkan

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// ValidationError is spirv-val's verdict on a module.
type ValidationError struct {
	TargetEnv string
	Output    string
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("spirv-val --target-env %s rejected the module: %s", e.TargetEnv, strings.TrimSpace(e.Output))
}

// accepted remembers the modules the validator accepted in this process (by
// hash), so the rig's parallel pre-validation and the runner's check before a
// pipeline build validate a module once, not twice.
var accepted = struct {
	sync.Mutex
	m map[[32]byte]bool
}{m: map[[32]byte]bool{}}

// Validate runs SPIRV-Tools' validator (spirv-val's library) on a module: the
// target environment follows the module's SPIR-V version, and an accepted
// module is not validated again. It returns a *ValidationError when the
// validator rejects the module. Safe for concurrent use.
func Validate(words []uint32) error {
	if len(words) < 5 {
		return &ValidationError{TargetEnv: "-", Output: "not a SPIR-V module (shorter than its header)"}
	}
	hash := hashWords(words)
	accepted.Lock()
	ok := accepted.m[hash]
	accepted.Unlock()
	if ok {
		return nil
	}
	env := targetEnv(words[1])
	marker := acceptedMarker(env, hash)
	if marker != "" {
		if _, err := os.Stat(marker); err == nil {
			accepted.Lock()
			accepted.m[hash] = true
			accepted.Unlock()
			return nil
		}
	}
	err := runValidator(env, words)
	var ve *ValidationError
	if errors.As(err, &ve) && predatesModule(ve.Output) {
		// An older spirv-val stopped at an extension it predates: check
		// everything else through a view without it (newer.go).
		if view, left := olderValidatorView(words); left != nil {
			if err = runValidator(env, view); errors.As(err, &ve) {
				ve.Output = "(validated without " + strings.Join(left, ", ") + ", which this spirv-val predates) " + ve.Output
			}
		}
	}
	if err != nil {
		return err
	}
	accepted.Lock()
	accepted.m[hash] = true
	accepted.Unlock()
	rememberAccepted(marker)
	return nil
}

// spirvValVersion is the linked validator's version: a new one judges every
// module again.
var spirvValVersion = sync.OnceValue(validatorVersion)

// acceptedMarker is the file that records, between processes, that this
// validator accepted this module for this environment: every lavapipe wave
// size is a child process, and a nightly run validates the same ~1,000
// modules as the night before. Only acceptances are
// kept; a rejection is re-run so its message is always the validator's own.
// "" when the user has no cache directory.
func acceptedMarker(env string, module [32]byte) string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte("libSPIRV-Tools\x00" + spirvValVersion() + "\x00" + env + "\x00--scalar-block-layout\x00" + string(module[:])))
	return filepath.Join(d, "waverig", "spirv-val", fmt.Sprintf("%x.ok", sum[:12]))
}

// rememberAccepted creates the marker (empty, so a torn write cannot lie);
// a cache that cannot be written is only slower.
func rememberAccepted(marker string) {
	if marker == "" || os.MkdirAll(filepath.Dir(marker), 0o755) != nil {
		return
	}
	if f, err := os.OpenFile(marker, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		f.Close()
	}
}

// targetEnv picks the lowest Vulkan environment that accepts the module's
// SPIR-V version, so version-specific rules (BufferBlock before 1.4, for
// instance) are judged the way the module's producer intended.
func targetEnv(version uint32) string {
	switch {
	case version >= 0x00010600:
		return "vulkan1.3"
	case version >= 0x00010500:
		return "vulkan1.2"
	case version >= 0x00010400:
		return "vulkan1.1spv1.4"
	default:
		return "vulkan1.1"
	}
}
