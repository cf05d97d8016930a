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
    assert_eq!(detail["$defs"]["OrderContent"]["additionalProperties"], false, "data.order reports unknown fields");
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
