package vulkan

import (
	"fmt"

	"waverig/devices"
)

// LimitError is a job the device cannot run: it asks for more than a limit
// the device reports (workgroup size or invocations, workgroup memory,
// workgroup count, buffer range, subgroups per workgroup, framebuffer size),
// for a subgroup size the device does not offer, or, for draws, for a
// feature the device lacks (storage writes from the vertex or fragment
// stage). Run and RunDraw return it before they create or allocate
// anything for the job; callers treat it as "cannot run here" (a skip), not
// as a wrong result.
type LimitError struct {
	// Limit is the Vulkan name of the limit ("maxComputeWorkGroupInvocations",
	// "maxStorageBufferRange", …) or of the missing feature
	// ("fragmentStoresAndAtomics", "vertexPipelineStoresAndAtomics",
	// "subgroupSizeControl"); "subgroupSize" for an illegal required size,
	// "requiredSubgroupSizeStages" for a required size no stage of a draw takes.
	Limit string
	msg   string
}

func (e *LimitError) Error() string { return "vulkan: " + e.msg }

func limitErr(limit, format string, args ...any) *LimitError {
	return &LimitError{Limit: limit, msg: fmt.Sprintf(format, args...)}
}

// Demand is what a job asks of a device's limits. Callers that build jobs
// from large inputs check it with CheckDemand before allocating buffers;
// Run checks the same for every job, with LocalSize and SharedBytes read from
// the SPIR-V.
type Demand struct {
	LocalSize    [3]uint32 // workgroup size (numthreads); zero when unknown
	SharedBytes  uint64    // workgroup (groupshared) memory
	Groups       [3]uint32 // workgroup count of the dispatch
	SubgroupSize uint32    // required subgroup size, 0 = device default
	Buffers      []BufferDemand
}

// BufferDemand is one buffer of a Demand.
type BufferDemand struct {
	Kind BufferKind
	Size uint64 // bytes
}

// CheckDemand returns a *LimitError for the first limit of dev that d
// exceeds, or nil. Limits the device reports as 0 (unknown) are not checked.
func CheckDemand(dev devices.Device, d Demand) error {
	if x, y, z := d.LocalSize[0], d.LocalSize[1], d.LocalSize[2]; x != 0 {
		for i, n := range d.LocalSize {
			if lim := dev.MaxComputeWorkGroupSize[i]; lim > 0 && n > lim {
				return limitErr("maxComputeWorkGroupSize", "local size %dx%dx%d exceeds maxComputeWorkGroupSize %v on %s", x, y, z, dev.MaxComputeWorkGroupSize, dev.Name)
			}
		}
		total := satMul(satMul(uint64(x), uint64(y)), uint64(z))
		if lim := dev.MaxComputeWorkGroupInvocations; lim > 0 && total > uint64(lim) {
			return limitErr("maxComputeWorkGroupInvocations", "local size %dx%dx%d is %d invocations, maxComputeWorkGroupInvocations is %d on %s", x, y, z, total, lim, dev.Name)
		}
	}
	if lim := dev.MaxComputeSharedMemorySize; lim > 0 && d.SharedBytes > uint64(lim) {
		return limitErr("maxComputeSharedMemorySize", "the shader uses at least %d bytes of workgroup (groupshared) memory, maxComputeSharedMemorySize is %d on %s", d.SharedBytes, lim, dev.Name)
	}
	for i, n := range d.Groups {
		if lim := dev.MaxComputeWorkGroupCount[i]; lim > 0 && n > lim {
			return limitErr("maxComputeWorkGroupCount", "workgroup count %v exceeds maxComputeWorkGroupCount %v on %s", d.Groups, dev.MaxComputeWorkGroupCount, dev.Name)
		}
	}
	for i, b := range d.Buffers {
		limit, lim := "maxStorageBufferRange", dev.MaxStorageBufferRange
		if b.Kind == Uniform {
			limit, lim = "maxUniformBufferRange", dev.MaxUniformBufferRange
		}
		if lim > 0 && b.Size > uint64(lim) {
			return limitErr(limit, "%s buffer %d is %d bytes, %s is %d on %s", b.Kind, i, b.Size, limit, lim, dev.Name)
		}
	}
	return checkSubgroupSize(dev, d.SubgroupSize, d.LocalSize)
}

// checkSubgroupSize checks a required subgroup size: it must be legal on dev
// and, where it is passed to the driver (size control), the workgroup must
// fit in maxComputeWorkgroupSubgroups subgroups of that size.
func checkSubgroupSize(dev devices.Device, req uint32, local [3]uint32) error {
	if req == 0 {
		return nil
	}
	legal := false
	for _, s := range dev.LegalSubgroupSizes() {
		legal = legal || s == req
	}
	if !legal {
		return limitErr("subgroupSize", "subgroup size %d is not legal on %s (legal: %v)", req, dev.Name, dev.LegalSubgroupSizes())
	}
	if !dev.CanRequireSubgroupSize() {
		return nil
	}
	if x, y, z := local[0], local[1], local[2]; x != 0 {
		total := satMul(satMul(uint64(x), uint64(y)), uint64(z))
		if lim := uint64(dev.SizeControl.MaxComputeWorkgroupSubgroups) * uint64(req); lim > 0 && total > lim {
			return limitErr("maxComputeWorkgroupSubgroups", "local size %dx%dx%d needs more than maxComputeWorkgroupSubgroups (%d) subgroups of %d on %s", x, y, z, dev.SizeControl.MaxComputeWorkgroupSubgroups, req, dev.Name)
		}
	}
	return nil
}

// demandOf is the Demand of a job whose module was parsed into info.
func demandOf(job Job, info spirvInfo) Demand {
	return Demand{LocalSize: info.localSize, SharedBytes: info.sharedBytes, Groups: job.Groups, SubgroupSize: job.RequiredSubgroupSize, Buffers: bufferDemands(job.Buffers)}
}

// bufferDemands is the BufferDemand of each buffer of a job.
func bufferDemands(bufs []Buffer) []BufferDemand {
	var out []BufferDemand
	for _, b := range bufs {
		out = append(out, BufferDemand{Kind: b.Kind, Size: uint64(len(b.Data))})
	}
	return out
}

// ModuleDemand reads what a compute entry point of a SPIR-V module asks of the
// device (local size, workgroup memory), as Run does, so a caller can check a
// job with CheckDemand before allocating its buffers.
func ModuleDemand(spirv []uint32, entry string) (Demand, error) {
	info, err := parseSPIRV(spirv, entry)
	if err != nil {
		return Demand{}, fmt.Errorf("vulkan: %w", err)
	}
	return Demand{LocalSize: info.localSize, SharedBytes: info.sharedBytes}, nil
}
