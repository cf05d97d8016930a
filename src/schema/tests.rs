use super::*;
use crate::payload::BodyKind;

/// Every object schema in `v`, with its JSON pointer.
fn objects<'v>(v: &'v Value, at: String, out: &mut Vec<(String, &'v Map<String, Value>)>) {
    match v {
        Value::Object(m) => {
            if m.get("type") == Some(&Value::from("object")) {
                out.push((at.clone(), m));
            }
            for (k, x) in m {
                objects(x, format!("{at}/{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                objects(x, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_kind_builds_with_the_dialect_a_title_and_ids_once() {
    let all = kinds();
    let mut ids: Vec<&str> = all.iter().map(|k| k.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), all.len(), "kind ids are unique");
    for k in &all {
        let s = schema(k.id).unwrap();
        assert_eq!(s["$schema"], DIALECT, "{}", k.id);
        assert!(s["title"].as_str().is_some_and(|t| !t.is_empty()), "{}", k.id);
        assert!(!k.summary.is_empty(), "{}", k.id);
        let text = render(k.id).unwrap();
        assert!(text.ends_with("}\n") && text.starts_with("{\n  \"$schema\""), "{}", k.id);
    }
    assert!(schema("nope").is_none() && render("").is_none());
}

#[test]
fn every_payload_kind_and_every_request_body_has_a_schema() {
    let ids: Vec<&str> = kinds().iter().map(|k| k.id).collect();
    for k in PayloadKind::ALL {
        assert!(ids.contains(&k.id()), "payload kind {} has a schema", k.id());
    }
    for e in crate::payload::ENDPOINTS {
        if matches!(e.body, BodyKind::None | BodyKind::Menu) {
            continue;
        }
        assert!(REQUEST_KINDS.iter().any(|(_, b)| *b == e.body), "{} has a request kind", e.id());
    }
    for (id, _) in REQUEST_KINDS {
        assert!(PayloadKind::from_id(id).is_none(), "request kind {id} is not also a payload kind");
    }
}

#[test]
fn every_field_has_the_contracts_words() {
    for k in kinds() {
        let s = schema(k.id).unwrap();
        let mut found = Vec::new();
        objects(&s, "#".into(), &mut found);
        assert!(!found.is_empty(), "{}", k.id);
        for (at, m) in found {
            // Conditions (`if`/`then`/`else`) restate fields described where they are defined.
            if at.split('/').any(|seg| matches!(seg, "if" | "then" | "else" | "not" | "contains")) {
                continue;
            }
            for (name, prop) in m.get("properties").and_then(Value::as_object).into_iter().flatten() {
                let described = prop.get("description").and_then(Value::as_str).is_some_and(|d| d.len() > 3);
                assert!(described, "{} {at}/properties/{name} has a description", k.id);
            }
        }
    }
}

#[test]
fn the_rules_named_as_left_out_are_rules_of_the_checkers() {
    let rules: Vec<&str> = crate::rules::all().iter().map(|r| r.id).collect();
    let mut named = 0;
    for k in kinds() {
        let s = schema(k.id).unwrap();
        let d = s["description"].as_str().unwrap();
        assert!(d.contains("poscheck "), "{}: the description points to the command that checks the rest", k.id);
        // The left-out list: "- what (`rule/id`)", one a line.
        for line in d.lines().filter(|l| l.starts_with("- ")) {
            let id = line.rsplit("(`").next().and_then(|x| x.strip_suffix("`)")).unwrap_or_default();
            assert!(rules.contains(&id), "{}: `{id}` is a rule id ({line})", k.id);
            named += 1;
        }
    }
    assert!(named >= 20, "{named} rules named");
}

#[test]
fn value_lists_and_formats_come_from_the_checkers() {
    let update = schema("orderUpdateEvent").unwrap();
    assert_eq!(update["properties"]["event"]["examples"], json!(crate::payload::webhooks::UPDATE_EVENTS));
    let menu = schema("fullMenu").unwrap();
    let code = &menu["$defs"]["Product"]["properties"]["remoteCode"];
    assert_eq!(code["maxLength"], json!(crate::menu::REMOTE_CODE_MAX_LEN));
    // The ASCII bytes the linter refuses in a remoteCode: all but letters, digits and `_ . - :`.
    assert_eq!(code["pattern"], "^[^\\x00-\\x2C\\x2F\\x3B-\\x40\\x5B-\\x5E\\x60\\x7B-\\x7F]+$");
    assert_eq!(
        menu["$defs"]["ModifierGroup"]["properties"]["type"]["pattern"],
        "^(?:[rR][aA][dD][iI][oO]|[cC][hH][eE][cC][kK][bB][oO][xX])$"
    );
    let created = schema("orderCreated").unwrap();
    assert_eq!(created["$defs"]["CurrencyCode"]["enum"].as_array().unwrap().len(), crate::payload::currency::ISO_4217.len());
    assert_eq!(created["properties"]["orderKey"]["pattern"], "^ord_[0-9A-Za-z]{16}$");
    assert!(created.get("additionalProperties").is_none(), "the creation envelope beyond data.order is not shown: tolerated");
    let detail = schema("orderDetail").unwrap();
    // Versioning 3-5: fields are added as Additive changes without a version change, so what the
    // POS receives stays open (the checker still warns about an unknown field).
    assert!(detail["$defs"]["OrderContent"].get("additionalProperties").is_none(), "data.order is open to additive fields");
    let reject = schema("rejectAnswer").unwrap();
    assert_eq!(reject["$defs"]["RejectAnswer"]["properties"]["reason"]["enum"], json!(crate::payload::REASON_CODES));
    let local = schema("localProduct").unwrap();
    assert_eq!(local["properties"]["tax"]["anyOf"][0]["enum"], json!([0, 0.15, 0.18]));
}

#[test]
fn set_fields_follow_the_shipped_table() {
    use crate::payload::bodies::{Entity, SHIPPED};
    for (id, entity) in [
        ("productPatch", Entity::Product),
        ("modifierOptionPatch", Entity::ModifierOption),
        ("categoryPatch", Entity::Category),
        ("modifierGroupPatch", Entity::ModifierGroup),
    ] {
        let s = schema(id).unwrap();
        let set = s["$defs"].as_object().unwrap().values().find(|d| d["title"].as_str().is_some_and(|t| t.ends_with("Set"))).unwrap();
        let mut listed: Vec<&str> = set["properties"].as_object().unwrap().keys().map(String::as_str).collect();
        let mut shipped: Vec<&str> = SHIPPED.iter().filter(|x| x.0 == entity.id()).map(|x| x.1).collect();
        listed.sort_unstable();
        shipped.sort_unstable();
        shipped.dedup();
        assert_eq!(listed, shipped, "{id}");
        assert_eq!(set["additionalProperties"], json!({ "type": "null" }), "{id}: a field not shipped is only null");
    }
}

#[test]
#[should_panic(expected = "must describe exactly the checker's fields")]
fn a_field_the_checker_knows_and_the_schema_does_not_describe_fails_the_generation() {
    object("T", "t", &["a", "b"], vec![f("a", P::Req, "a.", string())], Members::Closed);
}

/// Versioning 3-5 ("Changes are classified Breaking, Behavior or Additive"; the Additive changes in
/// force added fields to the detail, the list items and the history without a version change):
/// what the POS receives is open to unknown fields, what it sends is as strict as the checkers.
#[test]
fn received_kinds_are_open_to_additive_fields_and_sent_kinds_stay_closed() {
    for k in kinds() {
        let s = schema(k.id).unwrap();
        let received = k.summary.starts_with("webhook:") || k.summary.starts_with("response:");
        let sent = k.summary.starts_with("request:") || k.id == "orderCreatedResponse";
        let text = s.to_string();
        let closed = text.contains("\"additionalProperties\":false");
        if received {
            assert!(!closed, "{}: a received kind refuses no field", k.id);
            assert!(s["description"].as_str().unwrap().contains("Additive"), "{}: says why", k.id);
        }
        if sent {
            assert!(closed, "{}: a request body refuses unknown fields", k.id);
        }
    }
}

mod openapi {
    use super::*;
    use crate::schema::openapi::{document, render, DEFAULT_BASE_URL};

    fn resolve<'d>(doc: &'d Value, r: &str) -> &'d Value {
        let at = doc.pointer(r.strip_prefix('#').unwrap()).unwrap_or(&Value::Null);
        assert!(!at.is_null(), "{r} resolves");
        at
    }

    fn every_ref(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                    out.push(r.to_string());
                }
                m.values().for_each(|x| every_ref(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| every_ref(x, out)),
            _ => {}
        }
    }

    #[test]
    fn every_endpoint_of_the_table_is_an_operation_with_its_path_method_and_success() {
        let doc = document(DEFAULT_BASE_URL);
        assert_eq!(doc["servers"][0]["url"], DEFAULT_BASE_URL);
        let mut ids = Vec::new();
        let mut operations = 0;
        for (path, item) in doc["paths"].as_object().unwrap() {
            assert!(path.starts_with("/api/v1/"), "{path}");
            operations += item.as_object().unwrap().len();
        }
        assert_eq!(operations, crate::payload::ENDPOINTS.len(), "no operation beyond the table (the /_sandbox/ controls stay out)");
        for e in crate::payload::ENDPOINTS {
            let op = &doc["paths"][e.path][e.method.to_ascii_lowercase()];
            assert!(op.is_object(), "{}", e.id());
            assert!(op["responses"][e.success.to_string()].is_object(), "{}: its success status", e.id());
            let id = op["operationId"].as_str().unwrap();
            assert!(id.chars().next().unwrap().is_ascii_lowercase() && id.chars().all(|c| c.is_ascii_alphanumeric()), "{id}");
            ids.push(id.to_string());
            let params = op["parameters"].as_array().cloned().unwrap_or_default();
            let names: Vec<String> = params
                .iter()
                .map(|p| if let Some(r) = p["$ref"].as_str() { resolve(&doc, r)["name"].to_string() } else { p["name"].to_string() })
                .collect();
            for seg in e.path.split('/').filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}'))) {
                assert!(names.contains(&format!("\"{seg}\"")), "{}: path parameter {seg}", e.id());
            }
            for q in e.query {
                assert!(names.contains(&format!("\"{q}\"")), "{}: query parameter {q}", e.id());
            }
            let mutation = matches!(e.method, "POST" | "PUT" | "PATCH");
            for h in ["Idempotency-Key", "X-Service-Schema-Version"] {
                assert_eq!(names.contains(&format!("\"{h}\"")), mutation, "{}: {h} on mutations only", e.id());
            }
            for (status, r) in op["responses"].as_object().unwrap() {
                if status.starts_with('2') {
                    continue;
                }
                let r = resolve(&doc, r["$ref"].as_str().unwrap());
                assert!(r["content"]["application/problem+json"].is_object(), "{} {status}", e.id());
                assert_eq!(r["headers"]["Retry-After"].is_object(), status == "429", "{} {status}: Retry-After on 429", e.id());
            }
        }
        let n = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), n, "operationIds are unique");
    }

    /// The errors each endpoint lists in the contract (Endpoints: accept, preview, PUT /menu).
    #[test]
    fn the_error_statuses_the_contract_lists_are_there() {
        let doc = document(DEFAULT_BASE_URL);
        let statuses = |path: &str, method: &str| -> Vec<String> {
            doc["paths"][path][method]["responses"].as_object().unwrap().keys().filter(|s| !s.starts_with('2')).cloned().collect()
        };
        assert_eq!(statuses("/api/v1/Orders/{orderKey}/accept", "post"), ["400", "401", "404", "409", "422", "429"]);
        assert_eq!(statuses("/api/v1/menu/preview", "post"), ["400", "401", "404", "422", "429", "502", "503"]);
        assert_eq!(statuses("/api/v1/menu", "put"), ["400", "401", "404", "409", "422", "429", "502", "503"]);
        assert_eq!(statuses("/api/v1/Orders", "get"), ["401", "422", "429"]);
        let page = &doc["paths"]["/api/v1/Orders"]["get"]["parameters"];
        let size = page.as_array().unwrap().iter().find(|p| p["name"] == "PageSize").unwrap();
        assert_eq!(
            (size["schema"]["minimum"].as_u64(), size["schema"]["maximum"].as_u64()),
            (Some(1), Some(u64::from(crate::contract::PAGE_SIZE_MAX)))
        );
        let problem = &doc["components"]["schemas"]["Problem"];
        assert_eq!(problem["required"], json!(["type", "title", "detail", "status", "traceId", "meta"]));
        assert_eq!(problem["properties"]["traceId"]["type"], "string", "traceId is never null");
        let transition = &doc["components"]["schemas"]["TransitionMeta"]["properties"]["currentStatus"]["enum"];
        assert_eq!(transition, &json!(crate::contract::Status::NAMES));
    }

    #[test]
    fn every_ref_resolves_and_every_component_is_used() {
        let doc = document(DEFAULT_BASE_URL);
        let mut refs = Vec::new();
        every_ref(&doc, &mut refs);
        assert!(refs.len() > 100);
        for r in &refs {
            assert!(r.starts_with("#/components/"), "{r}: no $defs left");
            resolve(&doc, r);
        }
        for name in doc["components"]["schemas"].as_object().unwrap().keys() {
            assert!(refs.contains(&format!("#/components/schemas/{name}")), "{name} is used");
        }
        let text = doc.to_string();
        assert!(!text.contains("markdownDescription") && !text.contains("\"$schema\""), "no editor keywords");
    }

    /// Versioning 3-5: what the POS receives is open to additive fields; request bodies are not.
    #[test]
    fn received_schemas_are_open_request_bodies_closed() {
        let doc = document(DEFAULT_BASE_URL);
        let s = &doc["components"]["schemas"];
        for name in [
            "OrderDetail",
            "HistoryEntry",
            "OrderContent",
            "OrderListItem",
            "StoreMenu",
            "MenuProduct",
            "OrderUpdateEvent",
            "MenuChangeResult",
            "AcceptAnswer",
        ] {
            assert!(s[name]["additionalProperties"].is_null(), "{name} is open");
        }
        for name in ["RejectRequest", "StatusUpdateRequest", "FullMenuSubmission", "Product", "AvailabilityRequest"] {
            assert_eq!(s[name]["additionalProperties"], false, "{name} is as strict as the service");
        }
    }

    #[test]
    fn the_webhooks_carry_their_signature_headers_and_payloads() {
        let doc = document(DEFAULT_BASE_URL);
        let hooks = doc["webhooks"].as_object().unwrap();
        assert_eq!(hooks.len(), 3);
        for (name, item) in hooks {
            let (_, op) = item.as_object().unwrap().iter().next().unwrap();
            let names: Vec<&str> = op["parameters"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
            for h in ["X-Service-Timestamp", "X-Service-Signature-256", "X-Service-Delivery-Id"] {
                assert!(names.contains(&h), "{name}: {h}");
            }
            assert_eq!(names.contains(&"X-Service-Event-Type"), name == "orderCreated", "{name}");
            assert!(op["requestBody"]["content"]["application/json"]["schema"]["$ref"].is_string(), "{name}");
        }
    }

    /// The media types of the document that carry an example: every request body, every 2xx
    /// answer of an operation, the webhooks' bodies and answers with content. `(where, media)`.
    fn media_types(doc: &Value) -> Vec<(String, &Value)> {
        let mut out = Vec::new();
        for section in ["paths", "webhooks"] {
            for (path, item) in doc[section].as_object().unwrap() {
                for (method, op) in item.as_object().unwrap() {
                    let at = format!("{section} {method} {path}");
                    out.push((format!("{at} requestBody"), &op["requestBody"]["content"]["application/json"]));
                    for (status, r) in op["responses"].as_object().unwrap() {
                        let has = if section == "webhooks" { r["content"].is_object() } else { status.starts_with('2') };
                        if has {
                            out.push((format!("{at} {status}"), &r["content"]["application/json"]));
                        }
                    }
                }
            }
        }
        out
    }

    /// "Prism can mock from the document (its examples are valid)": Prism's static mode answers a
    /// media type's first example, so every request body and every 2xx answer has one.
    #[test]
    fn every_request_body_and_every_2xx_answer_has_examples_and_every_example_is_used() {
        let doc = document(DEFAULT_BASE_URL);
        let media = media_types(&doc);
        let mut used = Vec::new();
        let (mut bodies, mut answers) = (0, 0);
        for (at, m) in &media {
            if at.ends_with("requestBody") && m.is_null() {
                continue; // a GET
            }
            let examples = m["examples"].as_object().unwrap_or_else(|| panic!("{at}: no examples"));
            assert!(!examples.is_empty(), "{at}");
            for (name, e) in examples {
                assert!(name.chars().all(|c| c.is_ascii_alphanumeric()), "{at}: example name {name}");
                assert!(e["summary"].as_str().is_some_and(|s| !s.is_empty()) && !e["value"].is_null(), "{at} {name}");
                used.push(&e["value"]);
            }
            if at.ends_with("requestBody") {
                bodies += 1;
            } else {
                answers += 1;
            }
        }
        let with_body = crate::payload::ENDPOINTS.iter().filter(|e| !matches!(e.body, BodyKind::None)).count();
        assert_eq!((bodies, answers), (with_body + 3, crate::payload::ENDPOINTS.len() + 4), "request bodies, answers");
        let file: Map<String, Value> = serde_json::from_str(crate::schema::openapi::EXAMPLES).unwrap();
        for (kind, list) in file.iter().filter(|(k, _)| !k.starts_with('$')) {
            for e in list.as_array().unwrap() {
                assert!(used.contains(&&e["value"]), "{kind} {}: used in the document", e["name"]);
            }
        }
    }

    /// Each example is a copy of its source (a valid fixture, a 2xx request case; the sandbox's
    /// answer is compared in tests/js/openapi.test.mjs) and the checkers accept it with no error
    /// and no warning: `validatePayload` with its kind, `validateRequest` with its case's request.
    /// (The examples against the document's own schema: tests/js/openapi.test.mjs with ajv, and
    /// Redocly's no-invalid-media-type-examples in tests/openapi.)
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn every_example_is_a_copy_of_its_source_and_the_checkers_accept_it() {
        use crate::payload::{validate_payload, validate_request, PayloadOptions, Request};
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let read = |p: &str| -> Value { serde_json::from_str(&std::fs::read_to_string(fixtures.join(p)).unwrap()).unwrap() };
        let cases = read("requests/cases.json");
        let clean = |r: &crate::diagnostic::Report| r.error_count == 0 && r.warning_count == 0;
        let file: Map<String, Value> = serde_json::from_str(crate::schema::openapi::EXAMPLES).unwrap();
        let (mut copies, mut checked) = (0, 0);
        for (kind, list) in file.iter().filter(|(k, _)| !k.starts_with('$')) {
            assert!(kinds().iter().any(|k| k.id == kind) || kind == crate::schema::openapi::PREVIEW_EXAMPLES, "{kind} is a kind");
            for e in list.as_array().unwrap() {
                let (from, value) = (e["from"].as_str().unwrap(), &e["value"]);
                let at = format!("{kind} {from}");
                let mut request = None;
                if let Some(file) = from.strip_prefix("payload/") {
                    let (file, as_data) = file.strip_suffix(" as data").map_or((file, false), |f| (f, true));
                    assert!(file.ends_with(".valid.json"), "{at}: a valid fixture");
                    let fixture = read(&format!("payload/{file}"));
                    let expected = if as_data { json!({ "message": "OK", "data": fixture }) } else { fixture };
                    assert!(same(value, &expected), "{at}: the fixture (node tests/openapi/examples.mjs --write)");
                    copies += 1;
                } else if let Some(name) = from.strip_prefix("requests/") {
                    let found: Vec<&Value> = cases.as_array().unwrap().iter().filter(|c| c["name"] == name).collect();
                    assert_eq!(found.len(), 1, "{at}: one case of that name");
                    let r = &found[0]["request"];
                    assert!(same(&r["body"], value), "{at}: the case's body (node tests/openapi/examples.mjs --write)");
                    let mut headers = crate::http::Headers::new();
                    for (name, v) in r["headers"].as_object().unwrap() {
                        headers.push(name.clone(), v.as_str().unwrap_or_else(|| panic!("{at}: one value per header")));
                    }
                    request = Some(Request {
                        method: r["method"].as_str().unwrap().into(),
                        path: r["path"].as_str().unwrap().into(),
                        headers,
                        body: Some(value.to_string().into_bytes()),
                        now: r["now"].as_i64().unwrap(),
                    });
                    copies += 1;
                } else {
                    assert!(from.starts_with("sandbox/"), "{at}: a known source");
                }
                if let Some(request) = request {
                    let p = validate_request(&request);
                    assert!((200..300).contains(&p.status) && clean(&p.report), "{at}: {} {:?}", p.status, p.report.diagnostics);
                } else {
                    let id = if kind == crate::schema::openapi::PREVIEW_EXAMPLES { PayloadKind::Envelope.id() } else { kind.as_str() };
                    let kind = PayloadKind::from_id(id).unwrap_or_else(|| panic!("{at}: a payload kind"));
                    let options = PayloadOptions { kind: Some(kind), path: None, limits: Default::default() };
                    let r = validate_payload(value.to_string().as_bytes(), &options);
                    assert!(clean(&r), "{at}: {:?}", r.diagnostics);
                }
                checked += 1;
            }
        }
        assert!(copies >= 30 && checked > copies, "{copies} copies, {checked} checked");
    }

    /// Equal JSON values, numbers compared as numbers (the fixtures' generator writes `11.0`,
    /// JavaScript `11`).
    fn same(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
            (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
            (Value::Object(x), Value::Object(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|((kx, vx), (ky, vy))| kx == ky && same(vx, vy))
            }
            _ => a == b,
        }
    }

    /// An example the checker refuses fails the test above: the same check on a broken copy.
    #[test]
    fn the_checkers_refuse_a_broken_example() {
        use crate::payload::{validate_payload, PayloadOptions};
        let file: Map<String, Value> = serde_json::from_str(crate::schema::openapi::EXAMPLES).unwrap();
        let mut detail = file["orderDetail"][0]["value"].clone();
        detail["data"]["order"]["fulfillment"]["customerPickupAt"] = json!("2026-08-12T14:30:00Z");
        let options = PayloadOptions { kind: Some(PayloadKind::OrderDetail), path: None, limits: Default::default() };
        assert!(validate_payload(detail.to_string().as_bytes(), &options).error_count > 0, "both fulfillment times");
    }

    #[test]
    fn the_rendering_is_stable_and_ends_with_a_newline() {
        let a = render(DEFAULT_BASE_URL);
        assert_eq!(a, render(DEFAULT_BASE_URL));
        assert!(a.starts_with("{\n  \"openapi\": \"3.1.0\"") && a.ends_with("}\n"));
        assert_eq!(render("http://127.0.0.1:1/").replace("http://127.0.0.1:1\"", &format!("{DEFAULT_BASE_URL}\"")), a);
    }
}
