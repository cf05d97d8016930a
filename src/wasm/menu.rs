//! The menu linter and the diff (`poscheck/menu`, and the toolkit's too).

use super::*;

#[cfg(any(feature = "toolkit", feature = "menu"))]
#[wasm_bindgen(js_name = lintMenu)]
pub fn lint_menu(input: &[u8], max_depth: Option<u32>, max_bytes: Option<u32>, max_diagnostics: Option<u32>) -> Result<String, JsValue> {
    let d = crate::menu::LintOptions::default();
    let options = crate::menu::LintOptions {
        limits: limits(max_depth, max_bytes, None),
        max_diagnostics: max_diagnostics.map_or(d.max_diagnostics, |v| (v as usize).max(1)),
    };
    report_text(&crate::menu::lint(input, &options))
}

#[cfg(any(feature = "toolkit", feature = "menu"))]
#[wasm_bindgen(js_name = menuRules)]
pub fn menu_rules() -> Result<JsValue, JsValue> {
    to_js(&crate::rules::infos(crate::menu::RULES))
}

#[cfg(any(feature = "toolkit", feature = "menu"))]
#[wasm_bindgen(js_name = diffMenu)]
pub fn diff_menu(
    current: &[u8],
    next: &[u8],
    threshold: Option<f64>,
    max_entries: Option<u32>,
    max_diagnostics: Option<u32>,
    max_depth: Option<u32>,
    max_bytes: Option<u32>,
) -> Result<JsValue, JsValue> {
    use crate::menu::diff::{check_threshold, diff, DiffOptions};
    let d = DiffOptions::default();
    let options = DiffOptions {
        limits: limits(max_depth, max_bytes, max_diagnostics),
        threshold: threshold.map_or(Ok(d.threshold), check_threshold).map_err(|e| error(e.code(), &e.to_string(), None))?,
        max_entries: max_entries.map_or(d.max_entries, |v| v as usize),
        max_diagnostics: max_diagnostics.map_or(d.max_diagnostics, |v| (v as usize).max(1)),
    };
    to_js(&diff(current, next, &options))
}

#[cfg(any(feature = "toolkit", feature = "menu"))]
#[wasm_bindgen(js_name = diffRules)]
pub fn diff_rules() -> Result<JsValue, JsValue> {
    to_js(&crate::rules::infos(crate::menu::diff::RULES))
}
