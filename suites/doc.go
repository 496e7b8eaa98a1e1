// Package suites holds waverig's ginkgo suites: every wave and quad intrinsic
// checked lane by lane on every Vulkan device of the machine (in CI the three
// CPU drivers: lavapipe 22.3.6 and 25.0.7, SwiftShader) at every wave size each
// offers, with both compilers, each family's pass at a device's own size under the
// Khronos validation layer, plus the devices report, generated control flow on
// every device and the planted-bug proofs (on device 0). Run with `go tool ginkgo ./suites`.
//
// Spec lists come from the static kernel matrix, so every ginkgo process builds
// the same tree. Results of one wave size are produced once per operation family
// (in a child process for lavapipe, whose wave size is fixed at driver load) and
// each spec then checks its own case's record.
package suites
