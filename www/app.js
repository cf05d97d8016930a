// Boots the checker: instantiates the embedded WebAssembly (no fetch: the CSP forbids
// connections), then wires the four tools, the URL hash and the keyboard.

import { $, h, mount, formatBytes } from './lib/dom.js';
import { createWebhookTool } from './tools/webhook.js';
import { createMenuTool } from './tools/menu.js';
import { createPayloadTool } from './tools/payload.js';
import { createOrdersTool } from './tools/orders.js';

const TOOLS = {
  webhook: createWebhookTool,
  menu: createMenuTool,
  payload: createPayloadTool,
  orders: createOrdersTool,
};
const ORDER = Object.keys(TOOLS);

async function loadPackage() {
  const web = await import('./pkg/web.js');
  const { wasmBytes } = await import('./pkg/wasm-bytes.js');
  await web.default(wasmBytes);
  let examples = {};
  try {
    examples = (await import('./pkg/examples.js')).examples ?? {};
  } catch {
    // A build without examples: the "load example" buttons hide themselves.
  }
  return { api: web, examples, wasmSize: wasmBytes.byteLength };
}

function bootError(error) {
  const app = $('app');
  app.dataset.state = 'error';
  mount($('boot-text'),
    h('strong', { text: 'The checker could not start.' }),
    h('br'),
    'Its WebAssembly build is missing or failed to load. Build it and serve the page with ',
    h('code', { text: 'make serve' }), '.',
    h('br'),
    h('span', { class: 'muted small', text: String(error?.message ?? error) }));
}

async function main() {
  let ctx;
  try {
    ctx = await loadPackage();
  } catch (error) {
    bootError(error);
    return;
  }
  const functions = Object.keys(ctx.api).filter((k) => k !== 'default' && typeof ctx.api[k] === 'function');
  ctx.has = (...names) => names.every((n) => typeof ctx.api[n] === 'function');
  ctx.go = (tool) => { location.hash = `#${tool}`; };

  const info = $('build-info');
  info.textContent = `wasm ${formatBytes(ctx.wasmSize)}`;
  info.title = `Embedded WebAssembly build, ${ctx.wasmSize.toLocaleString('en-US')} bytes.\nAPI: ${functions.sort().join(', ')}`;

  const tools = {};
  for (const name of ORDER) tools[name] = TOOLS[name](ctx);
  ctx.tools = tools;

  let current = null;
  const show = () => {
    // Own names only: '#constructor' or '#__proto__' must not pick an inherited property.
    const wanted = location.hash.slice(1);
    const name = Object.hasOwn(TOOLS, wanted) ? wanted : 'webhook';
    if (current === name) return;
    current = name;
    for (const section of document.querySelectorAll('.tool')) section.hidden = section.dataset.tool !== name;
    for (const link of document.querySelectorAll('.nav-link')) {
      if (link.dataset.tool === name) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    document.title = `${name[0].toUpperCase()}${name.slice(1)} · poscheck`;
    tools[name].show?.();
  };
  window.addEventListener('hashchange', show);

  document.addEventListener('keydown', (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
      e.preventDefault();
      tools[current]?.run?.();
      return;
    }
    if (e.altKey && !e.ctrlKey && !e.metaKey && /^Digit[1-4]$/.test(e.code)) {
      e.preventDefault();
      location.hash = `#${ORDER[Number(e.code.slice(5)) - 1]}`;
    }
  });

  $('boot').remove();
  $('app').dataset.state = 'ready';
  show();
}

main();
