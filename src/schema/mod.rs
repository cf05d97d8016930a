//! JSON Schemas (2020-12) of what a POS exchanges with the service, for editors and for
//! generating types in other languages: one self-contained document per kind (`poscheck schema
//! KIND`; the npm package ships them as `schemas/<kind>.schema.json`).
//!
//! The schemas are generated from the checkers' own tables: every object lists exactly the fields
//! the checker knows (its `*_FIELDS` list, in its order), and the value lists (events, statuses,
//! reason codes, channels, currencies…), the id formats and the limits are the constants the
//! checkers test against. A field the checker knows and the schema does not describe (or the
//! reverse) fails the generation, so the two cannot drift apart.
//!
//! A schema holds only what JSON Schema can express: no uniqueness across nodes, no comparison
//! between two fields, no agreement between the request path and the body. Each schema's
//! description names what it leaves out and the command that checks it (`poscheck lint`,
//! `poscheck validate`). The checkers' warnings and infos are not in the schemas, with one
//! exception: in what the POS *sends* (the request bodies, its answers to the webhooks), a field
//! the contract does not define (a warning in the checkers, usually a typo) is refused where the
//! checker reports it (`additionalProperties: false`). What the POS *receives* (webhook payloads,
//! the resources it reads) stays open to unknown fields: the contract adds fields as Additive
//! changes without a version change (Versioning 3-5), and a client generated from a closed schema
//! would break on the next one (`Members::Additive`).
//!
//! ```
//! let schema = poscheck::schema::schema("orderUpdateEvent").unwrap();
//! assert_eq!(schema["title"], "OrderUpdateEvent");
//! assert_eq!(schema["properties"]["event"]["examples"][0], "cancelled");
//! assert!(poscheck::schema::kinds().iter().any(|k| k.id == "fullMenu"));
//! ```

pub mod openapi;
mod requests;
mod resources;
mod webhooks;

#[cfg(test)]
mod tests;

use crate::payload::fields::P;
use crate::payload::PayloadKind;
use serde_json::{json, Map, Value};

/// The JSON Schema dialect of every document.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// Annotation keywords the schemas use beyond the standard vocabularies (a validator in strict
/// mode, such as ajv's, must be told about them): `markdownDescription`, which VS Code shows on
/// hover in place of `description`.
pub const ANNOTATION_KEYWORDS: &[&str] = &["markdownDescription"];

/// One kind of document with a schema.
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    /// The camelCase id: a payload kind's id (`validatePayload`'s `kind`, `payloadKinds()`) or a
    /// REST request body's (`accept`, `productPatch`, …).
    pub id: &'static str,
    /// What the document is, in one line (for `poscheck schema --list`).
    pub summary: &'static str,
    build: fn() -> Value,
}

/// The REST request bodies, by their kind id, and the body kind the request checker reads.
const REQUEST_KINDS: &[(&str, crate::payload::BodyKind)] = {
    use crate::payload::BodyKind as B;
    &[
        ("accept", B::Accept),
        ("reject", B::Reject),
        ("statusUpdate", B::Status),
        ("availability", B::Availability),
        ("prices", B::Prices),
        ("productPatch", B::PatchProduct),
        ("modifierOptionPatch", B::PatchOption),
        ("categoryPatch", B::PatchCategory),
        ("modifierGroupPatch", B::PatchGroup),
        ("menuChangeBatch", B::Changes),
        (crate::contract::TargetEntity::LocalProduct.as_str(), B::LocalProduct),
    ]
};

/// A kind's one-line summary and the function that builds its schema.
type Entry = (&'static str, fn() -> Value);

/// The builder and the one-line summary of a payload kind. Every kind of [`PayloadKind::ALL`] has
/// one (the match is exhaustive).
fn payload_kind(kind: PayloadKind) -> Entry {
    match kind {
        PayloadKind::OrderUpdateEvent => {
            ("webhook: body of PUT {pos_base_url}/v1/order/{remoteId}/{remoteOrderId}/events", webhooks::order_update_event)
        }
        PayloadKind::MenuChangeCompleted => {
            ("webhook: body of POST {pos_base_url}/v1/menu/change/{changeKey}", webhooks::menu_change_completed)
        }
        PayloadKind::OrderCreated => ("webhook: body of POST {pos_base_url}/v1/order/{remoteId} (order creation)", webhooks::order_created),
        PayloadKind::OrderCreatedResponse => {
            ("POS answer: the 200 body of the creation webhook, { remoteOrderId }", webhooks::order_created_response)
        }
        PayloadKind::MerchantErrorResponse => {
            ("POS answer: the suggested body of a webhook error reply (any JSON is accepted)", webhooks::merchant_error_response)
        }
        PayloadKind::Envelope => ("response: the 2xx envelope { message, data } of every REST response", resources::envelope),
        PayloadKind::OrderDetail => {
            ("response: GET /api/v1/Orders/{orderKey}, the order (data, or the whole envelope)", resources::order_detail)
        }
        PayloadKind::OrderList => ("response: GET /api/v1/Orders, a list page (data, or the whole envelope)", resources::order_list),
        PayloadKind::StoreMenu => {
            ("response: GET /api/v1/menu/stores/{storeRemoteId}, the store menu (data, or the envelope)", resources::store_menu)
        }
        PayloadKind::MenuChange => {
            ("response: GET /api/v1/menu/changes/{changeId}, a menu change (data, or the envelope)", resources::menu_change)
        }
        PayloadKind::Capabilities => ("response: GET /api/v1/menu/capabilities (data, or the whole envelope)", resources::capabilities),
        PayloadKind::MenuWriteAccepted => {
            ("response: the 202 of an asynchronous menu write, data.changeId", resources::menu_write_accepted)
        }
        PayloadKind::AcceptAnswer => ("response: the 202 of POST /api/v1/Orders/{orderKey}/accept", resources::accept_answer),
        PayloadKind::RejectAnswer => ("response: the 202 of POST /api/v1/Orders/{orderKey}/reject", resources::reject_answer),
        PayloadKind::StatusAnswer => ("response: the 202 of PUT /api/v1/Orders/{orderKey}/status", resources::status_answer),
        PayloadKind::FullMenu => {
            ("request: body of PUT /api/v1/menu and POST /api/v1/menu/preview (full menu submission)", requests::full_menu)
        }
    }
}

/// The builder and the one-line summary of a request body kind; `None` for no body and for the
/// full menu (a payload kind of its own, `fullMenu`). The match is exhaustive: a new body kind
/// needs a schema.
fn request_kind(kind: crate::payload::BodyKind) -> Option<Entry> {
    use crate::payload::BodyKind as B;
    Some(match kind {
        B::Accept => ("request: body of POST /api/v1/Orders/{orderKey}/accept (an empty object)", requests::accept),
        B::Reject => ("request: body of POST /api/v1/Orders/{orderKey}/reject", requests::reject),
        B::Status => ("request: body of PUT /api/v1/Orders/{orderKey}/status", requests::status_update),
        B::Availability => ("request: body of PUT /api/v1/menu/availability", requests::availability),
        B::Prices => ("request: body of PUT /api/v1/menu/prices", requests::prices),
        B::PatchProduct => ("request: body of PATCH /api/v1/menu/products/{code}", requests::product_patch),
        B::PatchOption => ("request: body of PATCH /api/v1/menu/modifier-options/{code}", requests::modifier_option_patch),
        B::PatchCategory => ("request: body of PATCH /api/v1/menu/categories/{code}", requests::category_patch),
        B::PatchGroup => ("request: body of PATCH /api/v1/menu/modifiers/{code}", requests::modifier_group_patch),
        B::Changes => ("request: body of POST /api/v1/menu/changes (a batch of changes)", requests::menu_change_batch),
        B::LocalProduct => ("request: body of POST /api/v1/menu/stores/{storeRemoteId}/products", requests::local_product),
        B::None | B::Menu => return None,
    })
}

/// Every kind with a schema: the payload kinds (in `payloadKinds()` order), then the REST request
/// bodies.
pub fn kinds() -> Vec<Kind> {
    let payloads = PayloadKind::ALL.iter().map(|k| {
        let (summary, build) = payload_kind(*k);
        Kind { id: k.id(), summary, build }
    });
    let requests = REQUEST_KINDS.iter().filter_map(|(id, body)| {
        let (summary, build) = request_kind(*body)?;
        Some(Kind { id, summary, build })
    });
    payloads.chain(requests).collect()
}

/// The schema of the kind `id` (as listed by [`kinds`]), `None` for an unknown id.
pub fn schema(id: &str) -> Option<Value> {
    kinds().into_iter().find(|k| k.id == id).map(|k| (k.build)())
}

/// The schema of the kind `id` as the file the npm package ships: pretty-printed JSON (two
/// spaces) and a final newline.
pub fn render(id: &str) -> Option<String> {
    schema(id).map(|s| serde_json::to_string_pretty(&s).unwrap_or_default() + "\n")
}

// ---- building blocks ------------------------------------------------------------------------

/// A field of an object: its name, whether it must be present and may be null (the checker's
/// [`P`]), the contract's words for it, and its value's schema.
pub(crate) struct F {
    name: &'static str,
    p: P,
    description: String,
    schema: Value,
}

/// A field (see [`F`]).
pub(crate) fn f(name: &'static str, p: P, description: impl Into<String>, schema: Value) -> F {
    F { name, p, description: description.into(), schema }
}

/// `schema` with `description` as its first keyword.
pub(crate) fn described(description: &str, schema: Value) -> Value {
    let mut out = Map::new();
    out.insert("description".into(), Value::from(description));
    match schema {
        Value::Object(m) => out.extend(m),
        Value::Bool(false) => {
            out.insert("not".into(), json!({}));
        }
        _ => {}
    }
    Value::Object(out)
}

/// `schema` or null.
pub(crate) fn or_null(schema: Value) -> Value {
    if schema.as_object().is_some_and(Map::is_empty) {
        return schema; // any value, null included
    }
    json!({ "anyOf": [schema, { "type": "null" }] })
}

/// Whether unknown members are refused (the checker reports them) or tolerated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Members {
    /// `additionalProperties: false`: the checker reports a field it does not know. For what the
    /// POS sends (request bodies, its answers): "request bodies stay as strict as the service is".
    Closed,
    /// Unknown fields are tolerated (the contract does not show the rest of the object).
    Open,
    /// What the POS receives (webhook payloads, resources it reads): the checker still warns about
    /// a field it does not know, but the schema lets it through, because the contract adds fields
    /// without a version change ("Changes are classified Breaking, Behavior or Additive", Versioning
    /// 3; the Additive changes in force, Versioning 4, added fields to the detail, the list items,
    /// the history and the store menu).
    Additive,
}

/// An object with exactly the fields of `known` (the checker's list, in its order), described by
/// `fields` (the same names, in the same order: anything else is a bug of the generator and
/// panics, which the tests catch).
pub(crate) fn object(title: &str, description: &str, known: &[&str], fields: Vec<F>, members: Members) -> Value {
    let names: Vec<&str> = fields.iter().map(|x| x.name).collect();
    assert_eq!(names, known, "the schema of {title} must describe exactly the checker's fields, in its order");
    let mut properties = Map::new();
    let mut required = Vec::new();
    for x in fields {
        assert!(!x.description.is_empty(), "{title}.{} has no description", x.name);
        let schema = if matches!(x.p, P::ReqNull | P::OptNull) { or_null(x.schema) } else { x.schema };
        properties.insert(x.name.into(), described(&x.description, schema));
        if matches!(x.p, P::Req | P::ReqNull) {
            required.push(x.name);
        }
    }
    let mut out = Map::new();
    if !title.is_empty() {
        out.insert("title".into(), Value::from(title));
    }
    out.insert("description".into(), Value::from(description));
    out.insert("type".into(), Value::from("object"));
    out.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        out.insert("required".into(), json!(required));
    }
    if members == Members::Closed {
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
    Value::Object(out)
}

/// Adds `rules` (if/then conditions) to an object schema, as `allOf`.
pub(crate) fn with_rules(mut schema: Value, rules: Vec<Value>) -> Value {
    if !rules.is_empty() {
        if let Some(m) = schema.as_object_mut() {
            m.insert("allOf".into(), Value::Array(rules));
        }
    }
    schema
}

/// `{ "$ref": "#/$defs/<name>" }`.
pub(crate) fn r#ref(name: &str) -> Value {
    json!({ "$ref": format!("#/$defs/{name}") })
}

/// An array of `items`.
pub(crate) fn array(items: Value) -> Value {
    json!({ "type": "array", "items": items })
}

pub(crate) fn string() -> Value {
    json!({ "type": "string" })
}

pub(crate) fn boolean() -> Value {
    json!({ "type": "boolean" })
}

/// A number of at least `min` (and at most `max`).
pub(crate) fn number(min: Option<f64>, max: Option<f64>) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), Value::from("number"));
    if let Some(x) = min {
        m.insert("minimum".into(), json_number(x));
    }
    if let Some(x) = max {
        m.insert("maximum".into(), json_number(x));
    }
    Value::Object(m)
}

/// An integer of at least `min`.
pub(crate) fn integer(min: Option<i64>) -> Value {
    match min {
        Some(x) => json!({ "type": "integer", "minimum": x }),
        None => json!({ "type": "integer" }),
    }
}

/// A number written as JSON writes it: `0` for a whole value, not `0.0`.
pub(crate) fn json_number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        Value::from(x as i64)
    } else {
        Value::from(x)
    }
}

/// One of `values` (exact).
pub(crate) fn one_of(values: &[&str]) -> Value {
    json!({ "type": "string", "enum": values })
}

/// A value that must not be there, with why.
pub(crate) fn forbidden() -> Value {
    json!({ "not": {} })
}

/// A string that is one of `values` compared ASCII-case-insensitively: a pattern (`[rR][aA]…`),
/// with the values as `examples` for completion.
pub(crate) fn one_of_any_case(values: &[&str]) -> Value {
    let alternatives: Vec<String> = values
        .iter()
        .map(|v| {
            v.chars()
                .map(|c| {
                    assert!(c.is_ascii_alphanumeric() || c == '_', "{v}: only letters, digits and _ are written as they are");
                    if c.is_ascii_alphabetic() {
                        format!("[{}{}]", c.to_ascii_lowercase(), c.to_ascii_uppercase())
                    } else {
                        c.to_string()
                    }
                })
                .collect()
        })
        .collect();
    json!({ "type": "string", "pattern": format!("^(?:{})$", alternatives.join("|")), "examples": values })
}

/// A regex character class item for a byte: `\xHH` (every engine reads it the same way).
fn hex(b: u8) -> String {
    format!("\\x{b:02X}")
}

/// The ranges of the ASCII bytes for which `allowed` is false, as a class body (`\x00-\x2C\x2F…`).
fn disallowed_ascii(allowed: impl Fn(u8) -> bool) -> String {
    let mut out = String::new();
    let mut b = 0u8;
    while b < 0x80 {
        if allowed(b) {
            b += 1;
            continue;
        }
        let start = b;
        while b < 0x80 && !allowed(b) {
            b += 1;
        }
        let end = b - 1;
        out.push_str(&hex(start));
        if end > start {
            out.push('-');
            out.push_str(&hex(end));
        }
    }
    out
}

/// A menu `remoteCode`: "letters, digits and `_ . - :`, no spaces, up to 100 characters". The ASCII
/// characters it refuses come from the linter's own test ([`crate::menu::is_remote_code_byte`]);
/// letters outside ASCII are let through (the linter warns about them: whether the service
/// accepts them is not shown), so are other characters outside ASCII, which the linter refuses.
pub(crate) fn remote_code() -> Value {
    json!({
        "type": "string",
        "minLength": 1,
        "maxLength": crate::menu::REMOTE_CODE_MAX_LEN,
        "pattern": format!("^[^{}]+$", disallowed_ascii(crate::menu::is_remote_code_byte)),
    })
}

/// `<prefix>` + 16 base62 characters (`ord_…`, `chg_…`), the checkers' [`crate::check::is_prefixed_base62`].
pub(crate) fn prefixed_key(prefix: &str) -> Value {
    assert!(prefix.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
    json!({
        "type": "string",
        "pattern": format!("^{prefix}[0-9A-Za-z]{{{}}}$", crate::check::KEY_BASE62_LEN),
        "examples": [format!("{prefix}{}", &"7Hq2LmN9pQ4rS8tVxYz3"[..crate::check::KEY_BASE62_LEN])],
    })
}

/// A string with at least one character other than white space (the checkers' `trim().is_empty()`).
pub(crate) fn non_blank() -> Value {
    json!({ "type": "string", "pattern": "\\S" })
}

/// The characters that end a URL's authority and that no part of an image URL may hold.
const URL_BREAKS: &str = "/?#";
const URL_NEVER: &str = "\\s\\x00-\\x1F\\x7F-\\x9F";

/// An absolute http or https URL with a host (the checkers' [`crate::check::http_url_scheme`]):
/// the scheme in any case, `://`, an optional user part, a host that does not start with `:`, and
/// no white space or control character anywhere.
pub(crate) fn http_url() -> Value {
    let any = format!("[^{URL_NEVER}]");
    let userinfo = format!("(?:[^{URL_BREAKS}{URL_NEVER}]*@)?");
    let host = format!("[^{URL_BREAKS}@:{URL_NEVER}][^{URL_BREAKS}@{URL_NEVER}]*");
    json!({
        "type": "string",
        "pattern": format!("^[hH][tT][tT][pP][sS]?://{userinfo}{host}(?:[{URL_BREAKS}]{any}*)?$"),
        "examples": ["https://cdn.example.com/images/burger.png"],
    })
}

/// The date and time of a timestamp ("ISO 8601"), the checkers' [`crate::time::parse`]:
/// `YYYY-MM-DDTHH:MM:SS[.fraction]`, then the offset pattern `offset`.
fn timestamp_pattern(offset: &str) -> String {
    format!("^[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}[Tt][0-9]{{2}}:[0-9]{{2}}:[0-9]{{2}}(?:\\.[0-9]+)?{offset}$")
}

/// A timestamp "ISO 8601 in UTC": `Z` (or the zero offset `+00:00`).
pub(crate) fn utc_timestamp() -> Value {
    json!({
        "title": "Timestamp",
        "description": "ISO 8601 in UTC (\"Timestamps are ISO 8601 in UTC\"), e.g. 2026-08-12T14:30:00Z.",
        "type": "string",
        "format": "date-time",
        "pattern": timestamp_pattern("(?:[Zz]|[+-]00:00)"),
        "examples": ["2026-08-12T14:30:00Z"],
    })
}

/// A timestamp with any offset: ISO 8601 (an offset other than UTC is a warning where it is
/// accepted, e.g. occurredAt of PUT status).
pub(crate) fn any_offset_timestamp() -> Value {
    json!({
        "type": "string",
        "format": "date-time",
        "pattern": timestamp_pattern("(?:[Zz]|[+-][0-9]{2}:[0-9]{2})"),
        "examples": ["2026-08-12T14:30:00Z"],
    })
}

/// The name of the shared timestamp definition.
pub(crate) const TIMESTAMP: &str = "Timestamp";

/// `keys` must be present (and are declared in `properties` beside `required`, as validators in
/// strict mode ask of a `required` in a conditional).
pub(crate) fn require(keys: &[&str]) -> Value {
    let declared: Map<String, Value> = keys.iter().map(|k| (k.to_string(), Value::Bool(true))).collect();
    json!({ "required": keys, "properties": declared })
}

/// An `if`/`then` rule: when the object's `key` equals `value`, `then` applies.
pub(crate) fn when(key: &str, value: impl Into<Value>, then: Value) -> Value {
    json!({ "if": { "properties": { key: { "const": value.into() } }, "required": [key] }, "then": then })
}

/// An `if`/`then` rule: when the object's `key` is one of `values`, `then` applies.
pub(crate) fn when_in(key: &str, values: &[&str], then: Value) -> Value {
    json!({ "if": { "properties": { key: { "enum": values } }, "required": [key] }, "then": then })
}

/// The description of a whole document.
pub(crate) struct About<'a> {
    /// What the document is and where it travels.
    pub what: String,
    /// The contract's own words about it.
    pub contract: &'a str,
    /// The command and function that check everything.
    pub check: String,
    /// What the schema leaves out: (rule id, why).
    pub left_out: &'a [(&'a str, &'a str)],
}

impl About<'_> {
    /// The text; `closed`: the document refuses unknown fields somewhere.
    fn text(&self, closed: bool) -> String {
        let mut s = format!("{}\n\n{}\n\n", self.what, self.contract);
        s.push_str(&format!(
            "This schema holds only what JSON Schema can express; {} checks everything, positions every finding and says what each rests on.",
            self.check
        ));
        if !self.left_out.is_empty() {
            s.push_str(" Left out here:\n");
            for (rule, why) in self.left_out {
                s.push_str(&format!("\n- {why} (`{rule}`)"));
            }
        }
        s.push_str("\n\nThe checkers' warnings and infos are not in the schema (what the service accepts with a warning is valid here)");
        s.push_str(if closed {
            ", except fields the contract does not define: the checkers report them as warnings (usually a typo), and this schema refuses them where the checkers report them."
        } else {
            ". Fields the contract does not define are let through: the checkers report them as warnings, but the contract adds fields as Additive changes without a version change (Versioning 3-5), so a client must tolerate them."
        });
        s
    }
}

/// A whole document: the dialect, a comment, the title and description, the root schema's
/// keywords, then the definitions.
pub(crate) fn document(id: &str, title: &str, about: About, root: Value, defs: Vec<(&str, Value)>) -> Value {
    let closed = has_closed_object(&root) || defs.iter().any(|(_, d)| has_closed_object(d));
    let text = about.text(closed);
    let mut out = Map::new();
    out.insert("$schema".into(), Value::from(DIALECT));
    out.insert(
        "$comment".into(),
        Value::from(format!(
            "Generated by poscheck {} (`poscheck schema {id}`) from the checkers' own tables; do not edit.",
            env!("CARGO_PKG_VERSION")
        )),
    );
    out.insert("title".into(), Value::from(title));
    out.insert("description".into(), Value::from(text.clone()));
    out.insert("markdownDescription".into(), Value::from(text));
    if let Value::Object(m) = root {
        for (k, mut v) in m {
            if k == "properties" {
                v = with_editor_schema(id, v);
            }
            if k != "title" && k != "description" {
                out.insert(k, v);
            }
        }
    }
    if !defs.is_empty() {
        let mut d = Map::new();
        for (name, schema) in defs {
            assert!(d.insert(name.to_string(), schema).is_none(), "{name} is defined twice");
        }
        out.insert("$defs".into(), Value::Object(d));
    }
    Value::Object(out)
}

/// Whether `schema` holds an object that refuses unknown members (`additionalProperties: false`).
fn has_closed_object(schema: &Value) -> bool {
    match schema {
        Value::Object(m) => m.get("additionalProperties") == Some(&Value::Bool(false)) || m.values().any(has_closed_object),
        Value::Array(a) => a.iter().any(has_closed_object),
        _ => false,
    }
}

/// The root's `properties` with `$schema` first: the key an editor (VS Code) reads to find the
/// schema of a file. It is not part of the contract, but without it a closed root would refuse the
/// file that names its schema.
fn with_editor_schema(id: &str, properties: Value) -> Value {
    let Value::Object(m) = properties else { return properties };
    let mut out = Map::new();
    out.insert(
        "$schema".into(),
        json!({
            "description": format!("Not part of the contract: the JSON Schema an editor validates this file with (e.g. ./node_modules/poscheck/schemas/{id}.schema.json). Do not send it: the checkers report it as an unknown field."),
            "type": "string",
        }),
    );
    out.extend(m);
    Value::Object(out)
}

/// How a payload kind's document is checked: `poscheck validate --kind <id>`.
pub(crate) fn validate_check(id: &str) -> String {
    format!("`poscheck validate --kind {id} FILE` (in JS `validatePayload(body, {{ kind: '{id}' }})`)")
}

/// How a request body is checked: `poscheck validate` on the raw request.
pub(crate) fn request_check() -> String {
    "`poscheck validate request.http` on the raw HTTP request, which also predicts the service's answer (in JS `validateRequest({ method, path, headers, body })`)".to_string()
}

/// A resource the POS reads, which may come bare (`data`) or inside the `{ message, data }`
/// envelope: `anyOf` of the two, with the resource under `$defs/<name>`.
pub(crate) fn bare_or_enveloped(name: &str) -> (Value, (String, Value)) {
    let envelope_name = format!("{name}Envelope");
    let envelope = envelope_of(&envelope_name, r#ref(name));
    (json!({ "anyOf": [r#ref(name), r#ref(&envelope_name)] }), (envelope_name, envelope))
}

/// The 2xx envelope `{ message: string, data }` with `data` described by `data`.
pub(crate) fn envelope_of(title: &str, data: Value) -> Value {
    object(
        title,
        "The 2xx envelope of every REST response: `{ message: string, data: object }`. \"message is human text that may change; business logic uses the HTTP status and data.\"",
        crate::payload::fields::ENVELOPE_FIELDS,
        vec![
            f("message", P::Req, "Human text that may change; business logic uses the HTTP status and data.", string()),
            f("data", P::Req, "The resource.", data),
        ],
        Members::Additive,
    )
}
