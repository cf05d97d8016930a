// The CodeMirror 6 pieces the page's editor uses, bundled by scripts/build-editor.mjs into
// www/vendor/codemirror.js (an ES module served from the page's own origin: the CSP allows
// no other script source). CodeMirror's styles go through constructable stylesheets
// (adoptedStyleSheets), which style-src 'self' does not block; the page's own colors are in app.css.
export { EditorState, Compartment, EditorSelection, Transaction } from '@codemirror/state';
export {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection,
  placeholder, highlightSpecialChars,
} from '@codemirror/view';
export { defaultKeymap, history, historyKeymap, undo, redo, indentWithTab } from '@codemirror/commands';
export { search, searchKeymap, openSearchPanel } from '@codemirror/search';
export { setDiagnostics, lintGutter, lintKeymap, nextDiagnostic, previousDiagnostic, forEachDiagnostic } from '@codemirror/lint';
export { json } from '@codemirror/lang-json';
export { syntaxHighlighting, bracketMatching, foldGutter, foldKeymap } from '@codemirror/language';
export { classHighlighter } from '@lezer/highlight';
