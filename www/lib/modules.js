// Which WebAssembly module each tool runs on: the one table the page, the lint worker and
// scripts/build-www.mjs read. A tool's module (and its script) is imported when the tool is first
// shown, so the first view loads only its own; an ES module is evaluated once per page, so a
// module shared by two tools, or opened again, is never fetched or compiled twice.
//
// Each www/pkg/<module>.js is written by scripts/build-www.mjs: the module's glue, its bytes
// (base64 in a script: the page's CSP, connect-src 'none', forbids fetching a .wasm) decoded and
// compiled once on import. When this build has no such module, or one without every function in
// `needs`, build-www.mjs makes that file re-export the toolkit's instead (and says so).

/** Module name → its loader: resolves to `{ api, names, wasmSize, moduleName }` (see build-www.mjs). */
export const MODULES = {
  webhook: () => import('../pkg/webhook.js'),
  menu: () => import('../pkg/menu.js'),
  toolkit: () => import('../pkg/toolkit.js'),
};

/**
 * Tool → its module, its script (the function that builds it) and the module functions it calls
 * (a tool hides the parts whose function its module lacks; build-www.mjs checks `needs`).
 */
export const TOOLS = {
  webhook: {
    module: 'webhook',
    title: 'Webhook',
    ui: () => import('../tools/webhook.js').then((m) => m.createWebhookTool),
    needs: ['parseHttpMessage', 'verifyWebhook', 'diagnoseWebhook', 'signWebhook'],
  },
  menu: {
    module: 'menu',
    title: 'Menu',
    ui: () => import('../tools/menu.js').then((m) => m.createMenuTool),
    needs: ['lintMenu', 'menuRules', 'diffMenu'],
  },
  payload: {
    module: 'toolkit',
    title: 'Payload',
    ui: () => import('../tools/payload.js').then((m) => m.createPayloadTool),
    needs: ['inspectInput', 'parseHttpMessage', 'payloadKinds'],
  },
  orders: {
    module: 'toolkit',
    title: 'Orders',
    ui: () => import('../tools/orders.js').then((m) => m.createOrdersTool),
    needs: ['checkOrder', 'orderDiagram', 'predictAction', 'nextActions', 'applyEvent', 'applyTrigger', 'orderHistoryPath', 'orderMachine'],
  },
};

/** The tool shown when the URL names none. */
export const DEFAULT_TOOL = 'webhook';

/** The tool a URL fragment names (`#menu`, `#payload/s=…`), or the default one. */
export function toolOf(hash) {
  const wanted = String(hash).replace(/^#/, '').split('/')[0];
  // Own names only: '#constructor' or '#__proto__' must not pick an inherited property.
  return Object.hasOwn(TOOLS, wanted) ? wanted : DEFAULT_TOOL;
}
