package vulkan

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// Validation says whether modules go through spirv-val before the driver
// sees them. Drivers are allowed to crash on invalid SPIR-V and lavapipe
// does (a SIGSEGV that takes the whole test process down), so the runner
// validates every module once, on its first pipeline build.
type Validation int

const (
	// ValidateAuto uses spirv-val when it is on PATH and skips it otherwise.
	ValidateAuto Validation = iota
	// ValidateRequire refuses to build pipelines without spirv-val.
	ValidateRequire
	// ValidateOff hands modules to the driver unchecked (after the
	// structural checks, which always run).
	ValidateOff
)

// ValidationError is spirv-val's verdict on a module.
type ValidationError struct {
	TargetEnv string
	Output    string
}

func (e *ValidationError) Error() string {
	return fmt.Sprintf("spirv-val --target-env %s rejected the module: %s", e.TargetEnv, strings.TrimSpace(e.Output))
}

// validator runs spirv-val and remembers modules it accepted.
type validator struct {
	mode Validation
	tool string // path, "" when absent
	seen map[[32]byte]bool
}

func newValidator() *validator {
	v := &validator{mode: ValidateAuto, seen: map[[32]byte]bool{}}
	if p, err := exec.LookPath("spirv-val"); err == nil {
		v.tool = p
	}
	return v
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

func (v *validator) check(words []uint32, hash [32]byte, version uint32) error {
	if v.mode == ValidateOff || v.seen[hash] {
		return nil
	}
	if v.tool == "" {
		if v.mode == ValidateRequire {
			return fmt.Errorf("vulkan: spirv-val not found (Debian package spirv-tools) and validation is required")
		}
		return nil
	}
	env := targetEnv(version)
	buf := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(buf[4*i:], w)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Block layout mistakes give wrong values, not crashes, and the rig's
	// tests catch those; scalar layout is the most permissive rule, so it
	// never rejects a layout the device could accept.
	cmd := exec.CommandContext(ctx, v.tool, "--target-env", env, "--scalar-block-layout", "-")
	cmd.Stdin = bytes.NewReader(buf)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if _, ok := err.(*exec.ExitError); ok {
			return &ValidationError{TargetEnv: env, Output: string(out)}
		}
		return fmt.Errorf("vulkan: running spirv-val: %w", err)
	}
	v.seen[hash] = true
	return nil
}
