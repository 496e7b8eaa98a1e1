// The Dawn helper of harness/dawn: one process per adapter, run by the rig
// with Node. It loads Dawn's Node binding (the npm package `webgpu`, whose
// index.js is $WAVERIG_DAWN_MODULE), opens the Vulkan adapter whose name
// contains $WAVERIG_DAWN_ADAPTER, and answers requests, one JSON object per
// line on stdin, with one JSON line each on stdout (buffers in base64):
//
//   first line out  {"adapter": {...info, features, subgroupMinSize, ...}} or {"error": "..."}
//   {"id":N,"op":"compute","wgsl":S,"entry":E,"groups":[x,y,z],"bindings":[B...]}
//   {"id":N,"op":"draw","vertexWGSL":S,"vertexEntry":E,"fragmentWGSL":S,"fragmentEntry":E,
//    "width":W,"height":H,"vertexCount":V,"draws":D,"color":"none|rgba32uint|rgba32float","bindings":[B...]}
//   {"id":N,"op":"validate","wgsl":S}          (Tint's verdict only: the module is not run)
//   B = {"group":G,"binding":N,"uniform":bool,"data":BASE64}
//   reply {"id":N,"buffers":[BASE64...],"color":BASE64} or {"id":N,"error":"...","skip":bool}
//
// With $WAVERIG_DAWN_LIST set it prints {"adapters": [...]} and exits.
//
// A lost device is reported on the request that saw it and ends the process:
// the rig starts a new helper. Anything Dawn prints goes to stderr.
import { pathToFileURL } from 'node:url';
import readline from 'node:readline';

const out = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const fail = (msg) => { out({ error: msg }); process.exit(2); };

let mod;
try {
  mod = await import(pathToFileURL(process.env.WAVERIG_DAWN_MODULE).href);
} catch (e) {
  fail('cannot load Dawn (' + process.env.WAVERIG_DAWN_MODULE + '): ' + e.message);
}
Object.assign(globalThis, mod.globals);

const infoOf = (a) => ({ vendor: a.info.vendor, architecture: a.info.architecture, device: a.info.device, description: a.info.description,
  subgroupMinSize: a.info.subgroupMinSize, subgroupMaxSize: a.info.subgroupMaxSize, features: [...a.features].sort() });

// List mode ($WAVERIG_DAWN_LIST): every Vulkan adapter Dawn offers, then exit.
// Dawn has no enumeration call: asking for a name no adapter has makes it
// list the names, and each name is then opened.
if (process.env.WAVERIG_DAWN_LIST) {
  let names = [];
  try {
    await mod.create(['backend=vulkan', 'adapter=\u0001waverig-no-such-adapter']).requestAdapter();
  } catch (e) {
    names = [...String(e.message).matchAll(/name: '([^']*)'/g)].map((m) => m[1]);
  }
  const keep = [], adapters = [];
  for (const name of names) {
    const gpu = mod.create(['backend=vulkan', 'adapter=' + name]);
    keep.push(gpu);
    const a = await gpu.requestAdapter().catch(() => null);
    if (a) adapters.push({ name, ...infoOf(a) });
  }
  out({ adapters });
  process.exit(0);
}

let adapter;
try {
  // The instance must stay referenced for as long as its devices live: once
  // collected, the next mapAsync crashes the process.
  globalThis.waverigGPU = mod.create(['backend=vulkan', 'adapter=' + (process.env.WAVERIG_DAWN_ADAPTER || '')]);
  adapter = await globalThis.waverigGPU.requestAdapter();
} catch (e) {
  fail(String(e.message).split('\n')[0]);
}
if (!adapter) fail('Dawn offers no Vulkan adapter');
const features = [...adapter.features].sort();
const want = ['subgroups', 'shader-f16'].filter((f) => adapter.features.has(f));
const device = await adapter.requestDevice({ requiredFeatures: want, requiredLimits: {
  maxStorageBuffersPerShaderStage: adapter.limits.maxStorageBuffersPerShaderStage,
  maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
  maxBufferSize: adapter.limits.maxBufferSize,
} });
let lost = null;
device.lost.then((info) => { lost = 'device lost (' + info.reason + '): ' + info.message; });
out({ adapter: { ...infoOf(adapter), deviceFeatures: want } });

const b64 = (s) => new Uint8Array(Buffer.from(s || '', 'base64'));
const u64 = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');

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
function layouts(bindings, stages) {
  const groups = new Map();
  for (const b of bindings) {
    const access = b.uniform ? 'uniform' : (stages.access.get(b.group + '.' + b.binding) || 'read_write');
    const e = { binding: b.binding, visibility: stages.visibility(access),
      buffer: { type: access === 'uniform' ? 'uniform' : access === 'read' ? 'read-only-storage' : 'storage' } };
    if (!groups.has(b.group)) groups.set(b.group, []);
    groups.get(b.group).push(e);
  }
  const n = Math.max(-1, ...groups.keys()) + 1;
  const bgls = [];
  for (let g = 0; g < n; g++) bgls.push(device.createBindGroupLayout({ entries: groups.get(g) || [] }));
  return bgls;
}

function buffersAndGroups(bindings, bgls) {
  const bufs = [];
  const entries = new Map();
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
  return { bufs, groups };
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
    outs.push(u64(new Uint8Array(staging[k].getMappedRange().slice(0, bufs[k].len))));
    staging[k].destroy();
  }
  for (const b of bufs) b.buf.destroy();
  return outs;
}

const pipes = new Map();
async function compute(r) {
  const key = 'c|' + r.entry + '|' + JSON.stringify(r.bindings.map((b) => [b.group, b.binding, b.uniform])) + '|' + r.wgsl;
  let p = pipes.get(key);
  const access = declared(r.wgsl);
  if (!p) {
    const module = await shaderModule(r.wgsl);
    const bgls = layouts(r.bindings, { access, visibility: () => GPUShaderStage.COMPUTE });
    const pipeline = await device.createComputePipelineAsync({ layout: device.createPipelineLayout({ bindGroupLayouts: bgls }),
      compute: { module, entryPoint: r.entry } });
    p = { pipeline, bgls };
    pipes.set(key, p);
  }
  const { bufs, groups } = buffersAndGroups(r.bindings, p.bgls);
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(p.pipeline);
  groups.forEach((g, k) => pass.setBindGroup(k, g));
  pass.dispatchWorkgroups(...r.groups);
  pass.end();
  return { buffers: await readBack(enc, bufs) };
}

async function draw(r) {
  const color = r.color === 'rgba32uint' ? 'rgba32uint' : r.color === 'rgba32float' ? 'rgba32float' : null;
  const key = 'd|' + [r.vertexEntry, r.fragmentEntry, r.color, r.vertexWGSL, r.fragmentWGSL].join('|') + JSON.stringify(r.bindings.map((b) => [b.group, b.binding, b.uniform]));
  let p = pipes.get(key);
  if (!p) {
    const vs = declared(r.vertexWGSL), fs = declared(r.fragmentWGSL);
    const access = new Map([...vs, ...fs]);
    for (const [k, a] of fs) if (a === 'read_write') access.set(k, a);
    // Standard WebGPU has no writable storage in vertex shaders.
    const visibility = (a) => a === 'read_write' ? GPUShaderStage.FRAGMENT : GPUShaderStage.VERTEX | GPUShaderStage.FRAGMENT;
    const bgls = layouts(r.bindings, { access, visibility });
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
  const { bufs, groups } = buffersAndGroups(r.bindings, p.bgls);
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

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
let queue = Promise.resolve();
rl.on('line', (line) => {
  queue = queue.then(async () => {
    let r;
    try {
      r = JSON.parse(line);
    } catch (e) {
      return out({ error: 'bad request: ' + e.message });
    }
    try {
      const res = await handle(r);
      if (lost) throw new Error(lost);
      out({ id: r.id, ...res });
    } catch (e) {
      out({ id: r.id, error: String(e && e.message || e) });
    }
    if (lost) process.exit(3);
  });
});
rl.on('close', () => queue.then(() => process.exit(0)));
