// Lints large menus off the main thread: the same package, instantiated in this worker from the
// same embedded bytes (no fetch: the CSP forbids connections here too), so typing in a
// multi-megabyte menu never waits for the linter.
import init, { lintMenu } from '../pkg/web.js';
import { wasmBytes } from '../pkg/wasm-bytes.js';

const ready = init(wasmBytes);

self.onmessage = async ({ data }) => {
  await ready;
  try {
    const t0 = performance.now();
    const report = lintMenu(data.bytes);
    self.postMessage({ id: data.id, report, ms: performance.now() - t0 });
  } catch (error) {
    self.postMessage({ id: data.id, error: { code: error?.code, message: String(error?.message ?? error) } });
  }
};
