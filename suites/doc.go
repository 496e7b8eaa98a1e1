// Package suites holds waverig's ginkgo suites: every wave and quad intrinsic
// checked lane by lane on a real Vulkan driver (lavapipe in CI) at every wave size
// the device offers, with both compilers, plus the devices report and the
// planted-bug proofs. Run with `go tool ginkgo ./suites`.
//
// Spec lists come from the static kernel matrix, so every ginkgo process builds
// the same tree. Results of one wave size are produced once per operation family
// (in a child process for lavapipe, whose wave size is fixed at driver load) and
// each spec then checks its own case's record.
package suites
