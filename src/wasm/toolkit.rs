//! The toolkit's exports beyond the webhook module's (`poscheck`): the order checks and
//! predictions, inspection, requests and problems, and the command line of the package's bin.

use super::*;

/// A JSON input, as the UTF-8 bytes of its text (the facade serializes plain JS values with
/// `JSON.stringify` before the call, so no JS object is ever walked from wasm: a deep or cyclic
/// object, or a throwing getter, is refused on the JS side, where it cannot trap the module).
/// serde_json bounds the nesting (128 levels) and never recurses past it.
fn json_input(bytes: &[u8], what: &str) -> Result<serde_json::Value, JsValue> {
    serde_json::from_slice(bytes)
        .map_err(|e| error("INVALID_ARGUMENT", &format!("{what} is not JSON: {}", crate::diagnostic::bounded(e.to_string())), None))
}

fn order_error(e: &crate::order::OrderInputError) -> JsValue {
    error(e.code(), &e.to_string(), None)
}

fn signed_seconds(now: f64) -> Result<i64, JsValue> {
    seconds(now, "now").map(|s| s as i64)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = checkOrder)]
pub fn check_order(input: &[u8], max_depth: Option<u32>, max_bytes: Option<u32>, max_diagnostics: Option<u32>) -> Result<String, JsValue> {
    report_text(&crate::order::check_order(input, &crate::order::CheckOptions { limits: limits(max_depth, max_bytes, max_diagnostics) }))
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = predictAction)]
pub fn predict_action(order: &[u8], action: &str, now: f64, body: Option<Vec<u8>>) -> Result<JsValue, JsValue> {
    let action = crate::order::Action::parse(action).map_err(|e| order_error(&e))?;
    let order = json_input(order, "order")?;
    let p = crate::order::predict_request(&order, &action, body.as_deref(), signed_seconds(now)?).map_err(|e| order_error(&e))?;
    to_js(&p)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = applyEvent)]
pub fn apply_event(order: &[u8], event: &[u8]) -> Result<JsValue, JsValue> {
    let out = crate::order::apply_event(&json_input(order, "order")?, &json_input(event, "event")?).map_err(|e| order_error(&e))?;
    to_js(&out)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = applyTrigger)]
pub fn apply_trigger(order: &[u8], trigger: &str, now: f64) -> Result<JsValue, JsValue> {
    let trigger = crate::order::ServiceTrigger::parse(trigger).map_err(|e| order_error(&e))?;
    let out = crate::order::apply_trigger(&json_input(order, "order")?, trigger, signed_seconds(now)?).map_err(|e| order_error(&e))?;
    to_js(&out)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = nextActions)]
pub fn next_actions(order: &[u8], now: f64) -> Result<JsValue, JsValue> {
    to_js(&crate::order::next_actions(&json_input(order, "order")?, signed_seconds(now)?).map_err(|e| order_error(&e))?)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = orderHistoryPath)]
pub fn order_history_path(order: &[u8]) -> Result<Vec<String>, JsValue> {
    Ok(crate::order::history_path(&json_input(order, "order")?))
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = orderMachine)]
pub fn order_machine() -> Result<JsValue, JsValue> {
    to_js(&crate::order::machine())
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = orderDiagram)]
pub fn order_diagram(highlight: Vec<String>) -> String {
    let h: Vec<&str> = highlight.iter().map(String::as_str).collect();
    crate::order::diagram_svg(&h)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = orderRules)]
pub fn order_rules() -> Result<JsValue, JsValue> {
    to_js(&crate::rules::infos(crate::order::RULES))
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = inspectInput)]
pub fn inspect_input(
    input: &[u8],
    kind: Option<String>,
    path: Option<String>,
    now: f64,
    max_depth: Option<u32>,
    max_bytes: Option<u32>,
    max_diagnostics: Option<u32>,
) -> Result<JsValue, JsValue> {
    let options = payload_options(kind, path, max_depth, max_bytes, max_diagnostics)?;
    to_js(&crate::payload::inspect(input, &options, signed_seconds(now)?))
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = payloadRules)]
pub fn payload_rules() -> Result<JsValue, JsValue> {
    to_js(&crate::rules::infos(&crate::payload::all_rules()))
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = validateRequest)]
pub fn validate_request(
    method: String,
    path: String,
    header_pairs: Vec<String>,
    body: Option<Vec<u8>>,
    now: f64,
) -> Result<JsValue, JsValue> {
    let request = crate::payload::Request { method, path, headers: headers(header_pairs), body, now: signed_seconds(now)? };
    to_js(&crate::payload::validate_request(&request))
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = classifyProblem)]
pub fn classify_problem(status: u16, header_pairs: Vec<String>, body: &[u8], now: f64) -> Result<JsValue, JsValue> {
    let input =
        crate::payload::ProblemInput { status, headers: headers(header_pairs), body: body.to_vec(), now: Some(signed_seconds(now)?) };
    to_js(&crate::payload::classify_problem(&input))
}

/// Splits `data` into the inputs whose byte lengths are `lengths`, named `names`.
fn cli_inputs(names: Vec<String>, data: &[u8], lengths: &[u32]) -> Result<Vec<(String, Vec<u8>)>, JsValue> {
    let mut at = 0usize;
    let mut out = Vec::with_capacity(names.len());
    for (name, &len) in names.into_iter().zip(lengths) {
        let end = at
            .checked_add(len as usize)
            .filter(|&e| e <= data.len())
            .ok_or_else(|| error("INVALID_ARGUMENT", "input lengths exceed the data", None))?;
        out.push((name, data[at..end].to_vec()));
        at = end;
    }
    Ok(out)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = cliReport)]
#[allow(clippy::too_many_arguments)]
pub fn cli_report(
    check: &str,
    names: Vec<String>,
    data: &[u8],
    lengths: &[u32],
    format: &str,
    max_warnings: Option<u32>,
    kind: Option<String>,
    path: Option<String>,
    now: f64,
) -> Result<JsValue, JsValue> {
    let format: crate::format::Format = match format.parse() {
        Ok(f) => f,
        Err(e) => return cli_output(&crate::cli::Output::usage_error(&e)),
    };
    let check = match check {
        "lint" => crate::cli::Check::Lint,
        "order" => crate::cli::Check::Order,
        _ => {
            let kind = match kind.as_deref().map(|k| (k, crate::payload::PayloadKind::from_id(k))) {
                None => None,
                Some((_, Some(k))) => Some(k),
                Some((k, None)) => {
                    return cli_output(&crate::cli::Output::usage_error(&crate::diagnostic::bounded(format!(
                        "unknown --kind {k:?}: expected one of {}",
                        kind_list()
                    ))));
                }
            };
            crate::cli::Check::Validate { kind, path, now: signed_seconds(now)? }
        }
    };
    let inputs = cli_inputs(names, data, lengths)?;
    cli_output(&crate::cli::report_command(&check, &inputs, format, max_warnings.map(|m| m as usize)))
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = cliSign)]
pub fn cli_sign(
    secret: &[u8],
    timestamp: f64,
    body: &[u8],
    delivery_id: Option<String>,
    event_type: Option<String>,
    json: bool,
) -> Result<JsValue, JsValue> {
    let out = crate::cli::sign(secret, seconds(timestamp, "timestamp")?, body, delivery_id.as_deref(), event_type.as_deref(), json)
        .unwrap_or_else(|e| crate::cli::Output::usage_error(&e));
    cli_output(&out)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = cliVerify)]
#[allow(clippy::too_many_arguments)]
pub fn cli_verify(
    input: &[u8],
    request: bool,
    header_args: Vec<String>,
    secrets: &[u8],
    secret_lengths: &[u32],
    now: f64,
    tolerance: f64,
    json: bool,
) -> Result<JsValue, JsValue> {
    let secrets: Vec<Vec<u8>> =
        cli_inputs(vec![String::new(); secret_lengths.len()], secrets, secret_lengths)?.into_iter().map(|(_, b)| b).collect();
    let out =
        crate::cli::verify_command(input, request, &header_args, &secrets, seconds(now, "now")?, seconds(tolerance, "tolerance")?, json);
    cli_output(&out)
}

#[cfg(feature = "toolkit")]
#[wasm_bindgen(js_name = cliDiff)]
pub fn cli_diff(
    current_name: &str,
    current: &[u8],
    next_name: &str,
    next: &[u8],
    format: &str,
    threshold: Option<String>,
    max_entries: Option<u32>,
) -> Result<JsValue, JsValue> {
    let mut options = crate::menu::diff::DiffOptions::default();
    if let Some(t) = threshold.as_deref() {
        match crate::menu::diff::parse_threshold(t) {
            Ok(v) => options.threshold = v,
            Err(e) => return cli_output(&crate::cli::Output::usage_error(&e.to_string())),
        }
    }
    if let Some(m) = max_entries {
        options.max_entries = m as usize;
    }
    let format = match format {
        "json" => crate::cli::DiffFormat::Json,
        "markdown" => crate::cli::DiffFormat::Markdown,
        _ => crate::cli::DiffFormat::Text,
    };
    cli_output(&crate::cli::diff((current_name, current), (next_name, next), &options, format))
}
