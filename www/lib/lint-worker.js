// Lints large menus off the main thread: the menu tool's module (www/lib/modules.js), instantiated
// in this worker from the same embedded bytes (no fetch: the CSP forbids connections here too), so
// typing in a multi-megabyte menu never waits for the linter.
import { MODULES, TOOLS } from './modules.js';

const ready = MODULES[TOOLS.menu.module]();
ready.catch(() => {}); // reported with each answer below

self.onmessage = async ({ data }) => {
  try {
    const { api } = await ready;
    const t0 = performance.now();
    const report = api.lintMenu(data.bytes);
    self.postMessage({ id: data.id, report, ms: performance.now() - t0 });
  } catch (error) {
    self.postMessage({ id: data.id, error: { code: error?.code, message: String(error?.message ?? error) } });
  }
};
