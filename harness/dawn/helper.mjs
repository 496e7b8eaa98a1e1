// The Dawn helper of harness/dawn: one process per adapter, run by the rig
// with Node. It loads Dawn's Node binding (the npm package `webgpu`, whose
// index.js is $WAVERIG_DAWN_MODULE), opens the Vulkan adapter whose name
// contains $WAVERIG_DAWN_ADAPTER, and answers requests, one JSON object per
// line on stdin, with one JSON line each on stdout:
//
//   first line out  {"adapter": {...info, features, subgroupMinSize, ...}} or {"error": "..."}
//   {"id":N,"op":"compute","wgsl":S,"entry":E,"groups":[x,y,z],"bindings":[B...],"blobs":[L...]}
//   {"id":N,"op":"draw","vertexWGSL":S,"vertexEntry":E,"fragmentWGSL":S,"fragmentEntry":E,
//    "width":W,"height":H,"vertexCount":V,"draws":D,"color":"none|rgba32uint|rgba32float","bindings":[B...],"blobs":[L...]}
//   {"id":N,"op":"validate","wgsl":S}          (Tint's verdict only: the module is not run)
//   B = {"group":G,"binding":N,"uniform":bool,"data":K}
//   reply {"id":N,"buffers":[K...],"color":K,"blobs":[L...]} or {"id":N,"error":"...","skip":bool}
//
// Bytes travel as blobs, not in the JSON: a line's "blobs" lists the byte
// lengths of the blobs that follow its newline, back to back, and a field
// that holds bytes (a binding's data, a texture level, a read-back buffer,
// the colour target) holds its blob's index K. (runner.mjs also takes a
// base64 string there: harness/browser's page speaks JSON only.) Base64
// inside JSON lines cost the helper more CPU than Dawn's own work.
//
// With $WAVERIG_DAWN_LIST set it prints {"adapters": [...]} and exits.
//
// A lost device is reported on the request that saw it and ends the process:
// the rig starts a new helper. Anything Dawn prints goes to stderr.
import { pathToFileURL } from 'node:url';
import { makeRunner } from './runner.mjs';

const out = (m) => process.stdout.write(JSON.stringify(m) + '\n');

// reply writes a reply whose byte fields (Uint8Arrays) go as blobs.
function reply(m) {
  const blobs = [];
  const index = (a) => (a instanceof Uint8Array ? blobs.push(a) - 1 : a);
  if (m.buffers) m.buffers = m.buffers.map(index);
  if (m.color !== undefined) m.color = index(m.color);
  m.blobs = blobs.map((b) => b.byteLength);
  process.stdout.write(JSON.stringify(m) + '\n');
  for (const b of blobs) process.stdout.write(b);
}
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

// Byte fields reach the runner as Uint8Arrays (blobs), and it hands back the
// bytes it reads as copies (the mapped ranges go away before the reply).
const handle = makeRunner(device, {
  decode: (x) => (x instanceof Uint8Array ? x : Buffer.from(x || '', 'base64')),
  encode: (a) => a.slice(),
});

// withBlobs puts a request's blobs in its byte fields.
function withBlobs(r, blobs) {
  const at = (k) => {
    if (typeof k !== 'number') return k;
    if (!(k >= 0 && k < blobs.length)) throw new Error('blob ' + k + ' of ' + blobs.length);
    return blobs[k];
  };
  for (const b of r.bindings || []) b.data = at(b.data);
  for (const t of r.textures || []) t.levels = (t.levels || []).map(at);
  return r;
}

// serve answers a request (req, the line parsed, or bad, why it did not
// parse) once the requests before it are answered.
function serve(req, bad, blobs) {
  queue = queue.then(async () => {
    let r;
    try {
      if (bad) throw bad;
      r = withBlobs(req, blobs);
    } catch (e) {
      return out({ error: 'bad request: ' + e.message });
    }
    try {
      const res = await handle(r);
      if (lost) throw new Error(lost);
      reply({ id: r.id, ...res });
    } catch (e) {
      out({ id: r.id, error: String(e && e.message || e) });
    }
    if (lost) process.exit(3);
  });
}

// The reader: a request line, then the bytes of its blobs. Received bytes
// wait in pending (have of them) and are joined once, when a line or a
// request's blobs are complete; only the newest piece can hold the newline
// a header still waits for.
let queue = Promise.resolve();
let pending = [], have = 0;
let header = null; // a request line waiting for its blobs' bytes
function take(n) {
  const all = pending.length === 1 ? pending[0] : Buffer.concat(pending, have);
  pending = n < all.length ? [all.subarray(n)] : [];
  have = all.length - n;
  return all.subarray(0, n);
}
function feed(newest) {
  for (;;) {
    if (header === null) {
      const nl = newest.indexOf(10);
      if (nl < 0) return;
      const lineEnd = have - newest.length + nl;
      const line = take(lineEnd + 1).subarray(0, lineEnd).toString('utf8');
      header = { req: null, bad: null, lens: [] };
      try {
        header.req = JSON.parse(line);
        header.lens = header.req.blobs || [];
      } catch (e) {
        header.bad = e; // serve answers it, in its turn
      }
      header.need = header.lens.reduce((a, n) => a + n, 0);
    }
    if (have < header.need) return;
    const bytes = take(header.need);
    const blobs = [];
    let at = 0;
    for (const n of header.lens) {
      blobs.push(bytes.subarray(at, at + n));
      at += n;
    }
    serve(header.req, header.bad, blobs);
    header = null;
    if (have === 0) return;
    newest = pending[0]; // what is left is one piece, not yet searched
  }
}
process.stdin.on('data', (chunk) => {
  pending.push(chunk);
  have += chunk.length;
  feed(chunk);
});
process.stdin.on('end', () => queue.then(() => process.exit(0)));
