// Package harness runs the rig over every device of a run, its one job: each
// (device, wave size) pass of a plan (harness/plan) in this process or in a
// child process, at most Jobs at once (multi.go), through the one
// child-process protocol (child.go: the request, the message stream, restart
// after a driver crash, the watchdog, the children's log). One pass itself is
// harness/pass's; what it runs on is a pass.Device (real, or
// harness/simdevice's in the engine's tests).
//
// The rig's packages, in the order a run uses them: harness/plan (what a run
// covers), harness/kernels (the matrix), harness/produce and harness/glslang
// (modules), harness/pass (one pass), harness/vulkan and harness/webgpu (the
// APIs), harness/models (the reference models), harness/expect (baselines),
// harness/repro and harness/casefile (bundles and case files), harness/results
// and harness/report (what a run writes), harness/gen and harness/mutate
// (generated programs and planted bugs).
package harness
