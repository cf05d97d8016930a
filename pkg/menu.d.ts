// poscheck/menu: the menu linter (the full menu submission of PUT /api/v1/menu and POST
// /api/v1/menu/preview), the diff of an upload against the store menu read, and their rule lists,
// from a WebAssembly module of their own, for a POS front-end that pays only for what it uses. The
// answers are the toolkit's (the declarations are the toolkit's, re-exported).
export { default, init, lintMenu, menuRules, diffMenu, diffRules, PoscheckError } from './index.js';
export type { LintOptions, DiffOptions, MenuDiff, DiffEntry, DiffSummary, Report, Diagnostic, Severity, RuleInfo, CheckOptions } from './index.js';
