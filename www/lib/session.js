// Keeping and sharing work without a server: a session file (every editor and setting, never a
// secret), and a link whose URL fragment carries one tool's input (a fragment is never sent to
// any server; the page makes no connection anyway).

import { editors } from './editor.js';

const EDITOR_IDS = ['wh-raw', 'wh-f-body', 'wh-s-body', 'mn-input', 'pl-input', 'or-input'];
/** Settings kept with a session. Secret inputs are deliberately absent. */
const FIELD_IDS = ['wh-f-ts', 'wh-f-sig', 'wh-f-delivery', 'wh-f-event', 'wh-tolerance', 'wh-s-ts', 'wh-s-event', 'wh-s-delivery', 'wh-s-url', 'wh-s-method', 'pl-kind', 'pl-path'];
/** The editor a shared link fills, per tool. */
export const TOOL_EDITOR = { webhook: 'wh-raw', menu: 'mn-input', payload: 'pl-input', orders: 'or-input' };
/** Links longer than this are refused (browsers and chat tools cut long URLs). */
export const LINK_LIMIT = 60_000;

const utf8 = new TextDecoder();
const textOf = (e) => (e.isExact ? utf8.decode(e.bytes()) : e.value);

export function sessionJson(tool) {
  const out = { poscheck: 'session', version: 1, tool, savedAt: new Date().toISOString(), editors: {}, fields: {} };
  for (const id of EDITOR_IDS) {
    const e = editors.get(id);
    if (e && e.length) out.editors[id] = textOf(e);
  }
  for (const id of FIELD_IDS) {
    const el = document.getElementById(id);
    if (el && el.value !== '') out.fields[id] = el.value;
  }
  return `${JSON.stringify(out, null, 2)}\n`;
}

/** Reads a session file's text, or throws an Error that says what is wrong. */
export function parseSession(text) {
  let s;
  try { s = JSON.parse(text); } catch { throw new Error('not a poscheck session file (not JSON)'); }
  if (!s || s.poscheck !== 'session' || typeof s.editors !== 'object' || s.editors === null) throw new Error('not a poscheck session file');
  return s;
}

/**
 * Applies a session (its file's text, or parseSession's result) to the editors and fields, which
 * must exist (their tools built); returns its tool, or throws an Error that says what is wrong.
 */
export function applySession(session) {
  const s = typeof session === 'string' ? parseSession(session) : session;
  for (const id of EDITOR_IDS) {
    const value = s.editors[id];
    if (typeof value === 'string') editors.get(id)?.replace(value, 'the session');
  }
  for (const id of FIELD_IDS) {
    const value = s.fields?.[id];
    const el = document.getElementById(id);
    if (el && typeof value === 'string') {
      el.value = value;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }
  }
  return Object.hasOwn(TOOL_EDITOR, s.tool) ? s.tool : null;
}

const b64url = (bytes) => {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};
const fromB64url = (s) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));

async function pipe(bytes, stream) {
  return new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(stream)).arrayBuffer());
}

/** A link to `tool` with its editor's text in the fragment (deflate, base64url), or null when too long. */
export async function shareLink(tool) {
  const e = editors.get(TOOL_EDITOR[tool]);
  if (!e) return null;
  const packed = await pipe(new TextEncoder().encode(textOf(e)), new CompressionStream('deflate-raw'));
  const url = `${location.origin}${location.pathname}#${tool}/s=${b64url(packed)}`;
  return url.length > LINK_LIMIT ? null : url;
}

/** Reads the input a link carries (`#tool/s=…`), or null. */
export async function linkInput(hash) {
  const m = /^#([a-z]+)\/s=([A-Za-z0-9_-]+)$/.exec(hash);
  if (!m || !Object.hasOwn(TOOL_EDITOR, m[1])) return null;
  try {
    const text = utf8.decode(await pipe(fromB64url(m[2]), new DecompressionStream('deflate-raw')));
    return { tool: m[1], text };
  } catch {
    return { tool: m[1], error: 'the link is damaged: its input could not be decoded' };
  }
}
