// Boots the checker: instantiates the embedded WebAssembly (no fetch: the CSP forbids
// connections), then wires the four tools, the URL hash and the keyboard.

import { $, h, mount, formatBytes, menuButton, copyButton } from './lib/dom.js';
import { sessionJson, applySession, shareLink, linkInput, TOOL_EDITOR } from './lib/session.js';
import { download } from './lib/export.js';
import { createWebhookTool } from './tools/webhook.js';
import { createMenuTool } from './tools/menu.js';
import { createPayloadTool } from './tools/payload.js';
import { createOrdersTool } from './tools/orders.js';
import { editors } from './lib/editor.js';

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
  // A handle for tests and the console (no secret lives here: the tools hold their own state).
  Object.defineProperty(window, '__poscheck', { value: Object.freeze({ tools, editor: (id) => editors.get(id) }) });

  let current = null;
  const show = () => {
    // Own names only: '#constructor' or '#__proto__' must not pick an inherited property.
    const wanted = location.hash.slice(1).split('/')[0];
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
  // A shared link (#tool/s=…) carries one tool's input in its fragment: load it (undoable).
  const fromLink = async () => {
    const input = await linkInput(location.hash);
    if (!input) return;
    if (input.error) { sessionSay(input.error); return; }
    ctx.go(input.tool);
    const editor = editors.get(TOOL_EDITOR[input.tool]);
    editor?.replace(input.text, 'the shared link');
    tools[input.tool].run?.();
    history.replaceState(null, '', `#${input.tool}`);
  };
  window.addEventListener('hashchange', () => { show(); fromLink(); });

  // Session: a file with every editor and setting (never a secret), or a link for one input.
  const sessionNote = $('session-note');
  const sessionSay = (...content) => {
    mount(sessionNote, ...content, h('p', {}, h('button', { type: 'button', class: 'btn btn-sm', text: 'Close', onclick: () => { sessionNote.hidden = true; } })));
    sessionNote.hidden = false;
  };
  mount($('session-slot'), menuButton({
    id: 'session',
    label: 'Session',
    items: [
      { value: 'save', label: 'Save to a file (no secrets)' },
      { value: 'open', label: 'Open a session file…' },
      { value: 'link', label: 'Link to this input (no secrets)' },
    ],
    onPick: async (v) => {
      if (v === 'save') {
        download(`poscheck-session-${new Date().toISOString().slice(0, 10)}.json`, sessionJson(current));
        sessionSay(h('p', { text: 'Saved: every editor and setting of the four tools, without the secrets. Open it again with Session → Open.' }));
      } else if (v === 'open') {
        $('session-file').click();
      } else if (v === 'link') {
        const url = await shareLink(current);
        if (!url) { sessionSay(h('p', { text: 'This input is too large for a link: save a session file instead.' })); return; }
        const field = h('input', { class: 'mono', id: 'session-link', readonly: true, 'aria-label': 'Link to this input' });
        field.value = url;
        sessionSay(
          h('p', { text: `A link carrying this ${current} input in its fragment (after #): the fragment never leaves the browser that opens it. Secrets are not included.` }),
          h('div', { class: 'input-group' }, field, copyButton(() => url)));
        field.select();
      }
    },
  }));
  $('session-file').addEventListener('change', async (e) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    try {
      const tool = applySession(await file.text());
      if (tool) ctx.go(tool);
      for (const t of Object.values(tools)) t.run?.();
      sessionSay(h('p', { text: `Opened ${file.name}. Secrets are never in a session: enter them again.` }));
    } catch (error) {
      sessionSay(h('p', { text: `${file.name}: ${error.message}` }));
    }
  });

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

  // "Local only": the explanation is a disclosure anyone can open (keyboard, touch), not a tooltip.
  const privacy = $('privacy');
  const privacyNote = $('privacy-note');
  privacy.addEventListener('click', () => {
    const open = privacyNote.hidden;
    privacyNote.hidden = !open;
    privacy.setAttribute('aria-expanded', String(open));
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && !privacyNote.hidden) { privacyNote.hidden = true; privacy.setAttribute('aria-expanded', 'false'); privacy.focus(); }
  });
  document.addEventListener('click', (e) => {
    if (!privacyNote.hidden && !privacy.contains(e.target) && !privacyNote.contains(e.target)) {
      privacyNote.hidden = true;
      privacy.setAttribute('aria-expanded', 'false');
    }
  });

  $('boot').remove();
  $('app').dataset.state = 'ready';
  show();
  fromLink();
}

main();
