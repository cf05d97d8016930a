// POSIX shell quoting for the generated curl command.

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** 'text' with every ' written as '\'' : safe for any text without NUL. */
export const quote = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;

/**
 * Quotes bytes for a shell argument so the argument is exactly those bytes: a plain single-quoted
 * string when the bytes are UTF-8 text whose only control characters are LF and TAB, otherwise
 * ANSI-C quoting ($'…' with \r and \xNN escapes; bash, zsh, ksh). Returns null for bytes a
 * command-line argument cannot carry (NUL).
 */
export function quoteBytes(bytes) {
  if (bytes.includes(0)) return null;
  let text = null;
  try { text = utf8.decode(bytes); } catch { text = null; }
  // eslint-disable-next-line no-control-regex
  if (text !== null && !/[\x01-\x08\x0b-\x1f\x7f]/.test(text)) return { arg: quote(text), ansi: false };
  let out = "$'";
  for (const b of bytes) {
    if (b === 0x27) out += "\\'";
    else if (b === 0x5c) out += '\\\\';
    else if (b === 0x0a) out += '\\n';
    else if (b === 0x0d) out += '\\r';
    else if (b === 0x09) out += '\\t';
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return { arg: `${out}'`, ansi: true };
}
