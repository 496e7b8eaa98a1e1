// The WebGPU half of harness/dawn's helper and harness/browser's page: the one
// implementation of the rig's requests over a GPUDevice (Dawn's Node binding
// or a browser's navigator.gpu), so both run a kernel the same way.
//
// makeRunner(device, codec) returns handle(request) -> Promise<reply fields>, for
// the requests helper.mjs documents: compute, draw, validate. Shader modules
// and pipelines are cached by source. Bind group layouts are explicit: a
// superset of what the entry points use is allowed, and 'auto' would drop
// the bindings an entry point does not reach, which the rig still binds.
//
// It is a module for Node (helper.mjs imports it) and, with its one export
// line removed, a classic script in the page (file:// pages cannot import).
function makeRunner(device, codec) {
  // Bytes in requests and replies: base64 strings in the page, which speaks
  // JSON only (atob/btoa, a byte at a time). The helper passes a codec
  // (decode(field) -> Uint8Array, encode(Uint8Array) -> reply field) that
  // takes its blobs as they are: the page's encoder builds a 32 KiB argument
  // list per String.fromCharCode call, which was a fifth of the helper's CPU.
  const b64 = codec ? codec.decode : (s) => {
    const bin = atob(s || '');
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  };
  const u64 = codec ? codec.encode : (a) => {
    let bin = '';
    for (let i = 0; i < a.length; i += 0x8000) bin += String.fromCharCode.apply(null, a.subarray(i, i + 0x8000));
    return btoa(bin);
  };

  // Access of each @group(G) @binding(B) buffer as the module declares it.
  const declRE = /@group\(\s*(\d+)\s*\)\s*@binding\(\s*(\d+)\s*\)\s*var\s*<\s*(storage|uniform)\s*(?:,\s*(read_write|read)\s*)?>/g;
  function declared(src) {
    const m = new Map();
    for (const d of (src || '').matchAll(declRE)) {
      m.set(d[1] + '.' + d[2], d[3] === 'uniform' ? 'uniform' : (d[4] === 'read_write' ? 'read_write' : 'read'));
    }
    return m;
  }

  const modules = new Map();
  async function shaderModule(src) {
    let m = modules.get(src);
    if (!m) {
      device.pushErrorScope('validation');
      const sm = device.createShaderModule({ code: src });
      const info = await sm.getCompilationInfo();
      const err = await device.popErrorScope();
      const msgs = info.messages.filter((x) => x.type === 'error').map((x) => `${x.lineNum}:${x.linePos}: ${x.message}`);
      m = msgs.length || err ? { error: 'Tint rejects the module: ' + (msgs.join('; ') || err.message) } : { module: sm };
      if (modules.size > 256) modules.clear();
      modules.set(src, m);
    }
    if (m.error) throw new Error(m.error);
    return m.module;
  }

  // layouts builds explicit bind group layouts (a superset of what the entry
  // points use is allowed; 'auto' would drop unused bindings the rig binds).
  // Textures are texture_2d<f32> (sample type float: r16float filters in core
  // WebGPU); a sampler filters when any of its filters is linear.
  function layouts(bindings, stages, textures, samplers) {
    const groups = new Map();
    const add = (g, e) => {
      if (!groups.has(g)) groups.set(g, []);
      groups.get(g).push(e);
    };
    for (const b of bindings) {
      const access = b.uniform ? 'uniform' : (stages.access.get(b.group + '.' + b.binding) || 'read_write');
      add(b.group, { binding: b.binding, visibility: stages.visibility(access),
        buffer: { type: access === 'uniform' ? 'uniform' : access === 'read' ? 'read-only-storage' : 'storage' } });
    }
    for (const t of textures || []) {
      add(t.group, { binding: t.binding, visibility: stages.visibility('read'), texture: { sampleType: 'float', viewDimension: '2d' } });
    }
    for (const s of samplers || []) {
      const filtering = [s.magFilter, s.minFilter, s.mipmapFilter].includes('linear');
      add(s.group, { binding: s.binding, visibility: stages.visibility('read'), sampler: { type: filtering ? 'filtering' : 'non-filtering' } });
    }
    const n = Math.max(-1, ...groups.keys()) + 1;
    const bgls = [];
    for (let g = 0; g < n; g++) bgls.push(device.createBindGroupLayout({ entries: groups.get(g) || [] }));
    return bgls;
  }

  // sampled makes a request's textures (every mip level written with
  // writeTexture, which takes rows at any stride) and samplers, adds their
  // bind group entries and returns the textures for destroy().
  function sampled(r, entries) {
    const add = (g, e) => {
      if (!entries.has(g)) entries.set(g, []);
      entries.get(g).push(e);
    };
    const texs = [];
    for (const t of r.textures || []) {
      if (t.format !== 'r16float') throw new Error('texture format ' + t.format + ' is not one the rig samples');
      const tex = device.createTexture({ size: [t.width, t.height], format: t.format, mipLevelCount: t.levels.length,
        usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST });
      t.levels.forEach((data, l) => {
        const w = Math.max(1, t.width >> l), h = Math.max(1, t.height >> l);
        device.queue.writeTexture({ texture: tex, mipLevel: l }, b64(data), { bytesPerRow: w * 2, rowsPerImage: h }, [w, h]);
      });
      texs.push(tex);
      add(t.group, { binding: t.binding, resource: tex.createView() });
    }
    for (const s of r.samplers || []) {
      add(s.group, { binding: s.binding, resource: device.createSampler({ magFilter: s.magFilter, minFilter: s.minFilter,
        mipmapFilter: s.mipmapFilter, addressModeU: s.addressMode, addressModeV: s.addressMode, addressModeW: s.addressMode }) });
    }
    return texs;
  }

  function buffersAndGroups(bindings, bgls, r) {
    const bufs = [];
    const entries = new Map();
    const texs = sampled(r, entries);
    for (const b of bindings) {
      let data = b64(b.data);
      const size = Math.max(4, (data.byteLength + 3) & ~3);
      const usage = (b.uniform ? GPUBufferUsage.UNIFORM : GPUBufferUsage.STORAGE) | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
      const buf = device.createBuffer({ size, usage, mappedAtCreation: true });
      new Uint8Array(buf.getMappedRange()).set(data);
      buf.unmap();
      bufs.push({ buf, size, len: data.byteLength });
      if (!entries.has(b.group)) entries.set(b.group, []);
      entries.get(b.group).push({ binding: b.binding, resource: { buffer: buf } });
    }
    const groups = bgls.map((layout, g) => device.createBindGroup({ layout, entries: entries.get(g) || [] }));
    return { bufs, groups, texs };
  }

  async function readBack(enc, bufs, extra) {
    const staging = bufs.map((b) => {
      const s = device.createBuffer({ size: b.size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      enc.copyBufferToBuffer(b.buf, 0, s, 0, b.size);
      return s;
    });
    if (extra) extra(enc);
    device.queue.submit([enc.finish()]);
    const outs = [];
    for (let k = 0; k < staging.length; k++) {
      await staging[k].mapAsync(GPUMapMode.READ);
      // Encoded straight from the mapped range: no copy of the buffer first.
      outs.push(u64(new Uint8Array(staging[k].getMappedRange(), 0, bufs[k].len)));
      staging[k].destroy();
    }
    for (const b of bufs) b.buf.destroy();
    return outs;
  }

  // samplingKey is the part of a pipeline's layout the textures and samplers make.
  const samplingKey = (r) => JSON.stringify([(r.textures || []).map((t) => [t.group, t.binding]),
    (r.samplers || []).map((s) => [s.group, s.binding, [s.magFilter, s.minFilter, s.mipmapFilter].includes('linear')])]);

  const pipes = new Map();
  async function compute(r) {
    const key = 'c|' + r.entry + '|' + JSON.stringify(r.bindings.map((b) => [b.group, b.binding, b.uniform])) + samplingKey(r) + '|' + r.wgsl;
    let p = pipes.get(key);
    const access = declared(r.wgsl);
    if (!p) {
      const module = await shaderModule(r.wgsl);
      const bgls = layouts(r.bindings, { access, visibility: () => GPUShaderStage.COMPUTE }, r.textures, r.samplers);
      const pipeline = await device.createComputePipelineAsync({ layout: device.createPipelineLayout({ bindGroupLayouts: bgls }),
        compute: { module, entryPoint: r.entry } });
      p = { pipeline, bgls };
      pipes.set(key, p);
    }
    const { bufs, groups, texs } = buffersAndGroups(r.bindings, p.bgls, r);
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(p.pipeline);
    groups.forEach((g, k) => pass.setBindGroup(k, g));
    pass.dispatchWorkgroups(...r.groups);
    pass.end();
    const buffers = await readBack(enc, bufs);
    for (const t of texs) t.destroy();
    return { buffers };
  }

  async function draw(r) {
    const color = r.color === 'rgba32uint' ? 'rgba32uint' : r.color === 'rgba32float' ? 'rgba32float' : null;
    const key = 'd|' + [r.vertexEntry, r.fragmentEntry, r.color, r.vertexWGSL, r.fragmentWGSL].join('|') + JSON.stringify(r.bindings.map((b) => [b.group, b.binding, b.uniform])) + samplingKey(r);
    let p = pipes.get(key);
    if (!p) {
      const vs = declared(r.vertexWGSL), fs = declared(r.fragmentWGSL);
      const access = new Map([...vs, ...fs]);
      for (const [k, a] of fs) if (a === 'read_write') access.set(k, a);
      // Standard WebGPU has no writable storage in vertex shaders.
      const visibility = (a) => a === 'read_write' ? GPUShaderStage.FRAGMENT : GPUShaderStage.VERTEX | GPUShaderStage.FRAGMENT;
      const bgls = layouts(r.bindings, { access, visibility }, r.textures, r.samplers);
      const desc = { layout: device.createPipelineLayout({ bindGroupLayouts: bgls }),
        vertex: { module: await shaderModule(r.vertexWGSL), entryPoint: r.vertexEntry },
        primitive: { topology: 'triangle-list' } };
      if (r.fragmentEntry) {
        desc.fragment = { module: await shaderModule(r.fragmentWGSL), entryPoint: r.fragmentEntry, targets: color ? [{ format: color }] : [] };
      }
      if (!color) desc.depthStencil = { format: 'depth32float', depthWriteEnabled: false, depthCompare: 'always' };
      p = { pipeline: await device.createRenderPipelineAsync(desc), bgls };
      pipes.set(key, p);
    }
    const { bufs, groups, texs } = buffersAndGroups(r.bindings, p.bgls, r);
    const tex = device.createTexture({ size: [r.width, r.height], format: color || 'depth32float',
      usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
    const enc = device.createCommandEncoder();
    const passDesc = color
      ? { colorAttachments: [{ view: tex.createView(), loadOp: 'clear', storeOp: 'store', clearValue: [0, 0, 0, 0] }] }
      : { colorAttachments: [], depthStencilAttachment: { view: tex.createView(), depthLoadOp: 'clear', depthStoreOp: 'discard', depthClearValue: 1 } };
    const pass = enc.beginRenderPass(passDesc);
    pass.setPipeline(p.pipeline);
    groups.forEach((g, k) => pass.setBindGroup(k, g));
    for (let d = 0; d < Math.max(1, r.draws || 0); d++) pass.draw(r.vertexCount, 1, 0, d);
    pass.end();
    const row = r.width * 16, stride = (row + 255) & ~255;
    let target;
    const buffers = await readBack(enc, bufs, color && ((e) => {
      target = device.createBuffer({ size: stride * r.height, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      e.copyTextureToBuffer({ texture: tex }, { buffer: target, bytesPerRow: stride, rowsPerImage: r.height }, [r.width, r.height]);
    }));
    let colorOut;
    if (target) {
      await target.mapAsync(GPUMapMode.READ);
      const padded = new Uint8Array(target.getMappedRange());
      const packed = new Uint8Array(row * r.height);
      for (let y = 0; y < r.height; y++) packed.set(padded.subarray(y * stride, y * stride + row), y * row);
      colorOut = u64(packed);
      target.destroy();
    }
    tex.destroy();
    for (const t of texs) t.destroy();
    return { buffers, color: colorOut };
  }

  async function handle(r) {
    if (r.op === 'validate') {
      await shaderModule(r.wgsl);
      return {};
    }
    device.pushErrorScope('validation');
    device.pushErrorScope('out-of-memory');
    let res;
    try {
      res = r.op === 'compute' ? await compute(r) : r.op === 'draw' ? await draw(r) : (() => { throw new Error('unknown op ' + r.op); })();
    } finally {
      const oom = await device.popErrorScope();
      const val = await device.popErrorScope();
      if (oom || val) throw new Error((val || oom).message);
    }
    return res;
  }
  return handle;
}

export { makeRunner };
