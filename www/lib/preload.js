// Starts loading the shown tool's module and script as soon as the page is parsed, beside the
// page's own scripts rather than after them (index.html runs this before app.js, which finds
// both in flight: an ES module is fetched and evaluated once). Only the shown tool's: the others
// load when opened.
import { MODULES, TOOLS, toolOf } from './modules.js';

const tool = TOOLS[toolOf(location.hash)];
// A failure is app.js's to report, when it asks for the same module.
MODULES[tool.module]().catch(() => {});
tool.ui().catch(() => {});
