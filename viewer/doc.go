// Package viewer shows one result directory in a desktop window: `waverig
// view DIR`.
//
// The package has two halves. The pure-Go half (no build tag) turns a run's
// results.jsonl into the picture the window shows, an *image.RGBA: the grid of
// operations × (API, stage, wave size) coloured by the worst verdict, the lane
// heatmap of the selected failing case and, for a pixel case, the images of
// its repro bundle. It needs no display, so its tests run everywhere.
//
// The window half (files with `//go:build viewer`) opens a GLFW window without
// a GL context and presents that picture through Vulkan: a swapchain on the
// window's surface, each frame copied from a host-visible buffer into the
// acquired image. It is behind the tag because GLFW's C sources need the X11
// development headers, which the rig itself must not require.
package viewer
