package webgpu

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/oliverbestmann/webgpu/wgpu"
)

// cacheSize bounds both the shader-module and the pipeline cache: the rig's
// matrix runs thousands of jobs over a few hundred distinct kernels. It is
// also how many pipelines Prebuild builds on every core, so it holds a whole
// pass of a GPU's matrix (about 600 WebGPU pipelines at one size on the H200):
// at 256 the rest were built one at a time in the serial loop, the largest
// part of a cold H200 run (11 s of its 36 s, 2026-12-04). A lavapipe child
// holds a part of one size, far fewer.
const cacheSize = 1024

// lru is a bounded map that releases the least recently used value beyond
// its capacity. Callers hold Device.mu.
type lru[V any] struct {
	max     int
	order   *list.List // front: most recently used
	items   map[string]*list.Element
	release func(V)
}

type lruItem[V any] struct {
	key string
	val V
}

func newLRU[V any](max int, release func(V)) *lru[V] {
	return &lru[V]{max: max, order: list.New(), items: map[string]*list.Element{}, release: release}
}

func (c *lru[V]) get(key string) (V, bool) {
	if e, ok := c.items[key]; ok {
		c.order.MoveToFront(e)
		return e.Value.(lruItem[V]).val, true
	}
	var zero V
	return zero, false
}

func (c *lru[V]) put(key string, v V) {
	c.items[key] = c.order.PushFront(lruItem[V]{key, v})
	for c.order.Len() > c.max {
		e := c.order.Back()
		c.order.Remove(e)
		it := e.Value.(lruItem[V])
		delete(c.items, it.key)
		c.release(it.val)
	}
}

// peek returns the value of key without making it the most recent.
func (c *lru[V]) peek(key string) (V, bool) {
	if e, ok := c.items[key]; ok {
		return e.Value.(lruItem[V]).val, true
	}
	var zero V
	return zero, false
}

func (c *lru[V]) len() int { return c.order.Len() }

func (c *lru[V]) clear() {
	for e := c.order.Front(); e != nil; e = e.Next() {
		c.release(e.Value.(lruItem[V]).val)
	}
	c.order.Init()
	c.items = map[string]*list.Element{}
}

// pipeline is one cached compute or render pipeline. A render pipeline has an
// explicit layout, whose bind group layouts (by group) its bind groups use; a
// compute pipeline has wgpu's automatic layout.
type pipeline struct {
	compute *wgpu.ComputePipeline
	render  *wgpu.RenderPipeline
	groups  map[int]*wgpu.BindGroupLayout
	layout  *wgpu.PipelineLayout
}

func (p *pipeline) release() {
	p.compute.Release()
	p.render.Release()
	p.layout.Release()
	for _, l := range p.groups {
		l.Release()
	}
}

// layoutOf returns the bind group layout of group g and a function releasing
// what it handed out.
func (p *pipeline) layoutOf(g int) (*wgpu.BindGroupLayout, func()) {
	if p.compute != nil {
		l := p.compute.GetBindGroupLayout(uint32(g))
		return l, l.Release
	}
	return p.groups[g], func() {}
}

func sourceKey(src string) string {
	h := sha256.Sum256([]byte(src))
	return hex.EncodeToString(h[:16])
}

// module returns the shader module of src, from the cache or built now.
func (d *Device) module(src, label string) (*wgpu.ShaderModule, string, error) {
	key := sourceKey(src)
	if m, ok := d.modules.get(key); ok {
		return m, key, nil
	}
	m, err := d.dev.TryCreateShaderModule(&wgpu.ShaderModuleDescriptor{Label: label, WGSLSource: &wgpu.ShaderSourceWGSL{Code: src}})
	if err != nil {
		return nil, "", fmt.Errorf("shader module: %w", err)
	}
	d.modules.put(key, m)
	return m, key, nil
}

// computePipeline returns the compute pipeline of entry in src (cached by
// source hash and entry).
func (d *Device) computePipeline(src, entry string) (*pipeline, error) {
	mod, mkey, err := d.module(src, entry)
	if err != nil {
		return nil, err
	}
	key := computeKey(mkey, entry)
	if p, ok := d.pipes.get(key); ok {
		return p, nil
	}
	cp, err := d.dev.TryCreateComputePipeline(&wgpu.ComputePipelineDescriptor{Label: entry,
		Compute: wgpu.ProgrammableStageDescriptor{Module: mod, EntryPoint: entry}})
	if err != nil {
		return nil, fmt.Errorf("compute pipeline: %w", err)
	}
	d.created++
	p := &pipeline{compute: cp}
	d.pipes.put(key, p)
	return p, nil
}

func computeKey(moduleKey, entry string) string { return "compute|" + moduleKey + "|" + entry }

// PipelinesCreated counts the compute and render pipelines RunCompute and
// RunDraw (and ProbeWaveSizes) have built: cache misses.
func (d *Device) PipelinesCreated() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.created
}
