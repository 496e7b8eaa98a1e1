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
import { makeRunner } from './runner.mjs';

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

const handle = makeRunner(device);

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
