// Boots the checker: shows the tool the URL names (the webhook tool by default) once its own
// WebAssembly module is compiled; the other tools load theirs when first opened (www/lib/modules.js:
// one table, tool → module). Every module comes embedded in a script (no fetch: the CSP forbids
// connections). Then wires the URL hash, the session and the keyboard.

import { $, h, mount, formatBytes, menuButton, copyButton } from './lib/dom.js';
import { sessionJson, parseSession, applySession, shareLink, linkInput, TOOL_EDITOR } from './lib/session.js';
import { download } from './lib/export.js';
import { editors } from './lib/editor.js';
import { MODULES, TOOLS, toolOf } from './lib/modules.js';

const ORDER = Object.keys(TOOLS);

/** The built tools, by name, as each one's module arrives. */
const tools = {};
/** The tools being built (name → promise of the tool): each is built once. */
const building = {};
/** The modules compiled so far (module name → { names, wasmSize }), for the build badge. */
const compiled = new Map();

let examples;
const loadExamples = () => (examples ??= import('./pkg/examples.js').then((m) => m.examples ?? {}, () => ({})));

const go = (tool) => { location.hash = `#${tool}`; };

/** Builds a tool once: its module (compiled on first import), its script, the examples. */
function loadTool(name) {
  if (!building[name]) {
    const spec = TOOLS[name];
    building[name] = Promise.all([MODULES[spec.module](), spec.ui(), loadExamples()]).then(([mod, create, ex]) => {
      compiled.set(mod.moduleName, mod);
      showBuild();
      const has = (...names) => names.every((n) => typeof mod.api[n] === 'function');
      tools[name] = create({ api: mod.api, examples: ex, has });
      return tools[name];
    });
    // A tool that failed to load is tried again when it is opened again.
    building[name].catch(() => { delete building[name]; });
  }
  return building[name];
}

function showBuild() {
  const info = $('build-info');
  const total = [...compiled.values()].reduce((n, m) => n + m.wasmSize, 0);
  const later = ORDER.filter((t) => !building[t]);
  info.textContent = `wasm ${formatBytes(total)}`;
  info.title = [
    'Embedded WebAssembly, each module compiled when a tool first needs it:',
    ...[...compiled].map(([m, { wasmSize, names }]) => `${m} module, ${wasmSize.toLocaleString('en-US')} bytes: ${[...names].sort().join(', ')}`),
    ...(later.length ? [`Loaded when opened: the ${later.join(', ')} tool${later.length > 1 ? 's' : ''}.`] : []),
  ].join('\n');
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

function main() {
  // A handle for tests and the console (no secret lives here: the tools hold their own state).
  Object.defineProperty(window, '__poscheck', {
    value: Object.freeze({
      tools,
      editor: (id) => editors.get(id),
      /** The modules compiled in this page so far. */
      modules: () => [...compiled.keys()],
    }),
  });

  const app = $('app');
  const frame = $('main');
  const boot = $('boot');
  const bootText = $('boot-text');
  let current = null;

  const reveal = (name) => {
    for (const section of document.querySelectorAll('.tool')) section.hidden = section.dataset.tool !== name;
    boot.hidden = true;
    frame.removeAttribute('aria-busy');
    frame.style.minHeight = '';
    tools[name].show?.();
    app.dataset.state = 'ready';
  };
  // While a tool's module loads, the frame keeps its size (nothing below the header moves) and
  // says what it is waiting for.
  const waitFor = (name) => {
    if (app.dataset.state === 'ready') frame.style.minHeight = `${frame.offsetHeight}px`;
    for (const section of document.querySelectorAll('.tool')) section.hidden = true;
    delete boot.dataset.state;
    mount(bootText, `Loading the ${TOOLS[name].title} tool…`);
    boot.hidden = false;
    frame.setAttribute('aria-busy', 'true');
  };
  const failed = (name, error) => {
    if (app.dataset.state === 'loading') { bootError(error); return; }
    boot.dataset.state = 'error';
    mount(bootText,
      h('strong', { text: `The ${TOOLS[name].title} tool could not load.` }),
      h('br'),
      h('span', { class: 'muted small', text: String(error?.message ?? error) }),
      h('br'),
      h('button', { type: 'button', class: 'btn btn-sm', text: 'Try again', onclick: () => { current = null; show(); } }));
  };

  const show = () => {
    const name = toolOf(location.hash);
    if (current === name) return;
    current = name;
    for (const link of document.querySelectorAll('.nav-link')) {
      if (link.dataset.tool === name) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    document.title = `${TOOLS[name].title} · poscheck`;
    if (tools[name]) { reveal(name); return; }
    waitFor(name);
    loadTool(name).then(
      () => { if (current === name) reveal(name); },
      (error) => { if (current === name) failed(name, error); });
  };
  /** Every tool, for what concerns them all (a session file). */
  const everyTool = () => Promise.all(ORDER.map(loadTool));
  // A shared link (#tool/s=…) carries one tool's input in its fragment: load it (undoable).
  const fromLink = async () => {
    const input = await linkInput(location.hash);
    if (!input) return;
    if (input.error) { sessionSay(input.error); return; }
    go(input.tool);
    let tool;
    try {
      tool = await loadTool(input.tool);
    } catch {
      return; // the tool's frame says why
    }
    const editor = editors.get(TOOL_EDITOR[input.tool]);
    editor?.replace(input.text, 'the shared link');
    tool.run?.();
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
        // Every tool's editors, including the drafts of tools not opened yet.
        try { await everyTool(); } catch (error) { sessionSay(h('p', { text: `Not saved: ${error.message}` })); return; }
        download(`poscheck-session-${new Date().toISOString().slice(0, 10)}.json`, sessionJson(current));
        sessionSay(h('p', { text: 'Saved: every editor and setting of the four tools, without the secrets. Open it again with Session → Open.' }));
      } else if (v === 'open') {
        $('session-file').click();
      } else if (v === 'link') {
        const tool = current;
        try { await loadTool(tool); } catch { return; }
        const url = await shareLink(tool);
        if (!url) { sessionSay(h('p', { text: 'This input is too large for a link: save a session file instead.' })); return; }
        const field = h('input', { class: 'mono', id: 'session-link', readonly: true, 'aria-label': 'Link to this input' });
        field.value = url;
        sessionSay(
          h('p', { text: `A link carrying this ${tool} input in its fragment (after #): the fragment never leaves the browser that opens it. Secrets are not included.` }),
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
      const session = parseSession(await file.text());
      // A session holds the inputs of every tool: each tool is loaded to take its own.
      await everyTool();
      const tool = applySession(session);
      if (tool) go(tool);
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

  show();
  fromLink();
}

main();
