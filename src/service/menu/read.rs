//! The store menu read (`GET /api/v1/menu/stores/{storeRemoteId}`), written from the catalog and
//! the store's layer: overrides, schedules, channels.

use super::state::{Catalog, Category, Group, MenuState, Override, Product, Window};
use crate::contract::{Day, Origin, OverrideType};
use serde_json::{json, Value};
use std::collections::HashMap;

fn minutes(hh_mm: &str) -> i64 {
    let (h, m) = hh_mm.split_once(':').unwrap_or(("0", "0"));
    h.parse::<i64>().unwrap_or(0) * 60 + m.parse::<i64>().unwrap_or(0)
}

/// Whether `w` is open at `now` (unix seconds, UTC), and when it opens next when closed.
fn window_state(w: &Window, now: i64) -> (bool, Option<i64>) {
    let day = now.div_euclid(86_400);
    let minute = now.rem_euclid(86_400) / 60;
    let weekday = |d: i64| ((d + 3).rem_euclid(7)) as usize; // 1970-01-01 was a Thursday.
    let on = |d: i64| w.days.iter().any(|x| x.eq_ignore_ascii_case(Day::NAMES[weekday(d)]));
    let (start, end) = (minutes(&w.start_time), minutes(&w.end_time));
    let open = if start < end {
        on(day) && minute >= start && minute < end
    } else {
        (on(day) && minute >= start) || (on(day - 1) && minute < end)
    };
    if open {
        return (true, None);
    }
    let next = (0..8).map(|k| day + k).filter(|&d| on(d)).map(|d| d * 86_400 + start * 60).find(|&t| t > now);
    (false, next)
}

fn w_str(out: &mut Vec<u8>, s: &str) {
    let _ = serde_json::to_writer(&mut *out, s);
}

fn w_opt_str(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => w_str(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

fn w_num(out: &mut Vec<u8>, x: f64) {
    let _ = serde_json::to_writer(&mut *out, &x);
}

fn w_int(out: &mut Vec<u8>, x: i64) {
    out.extend_from_slice(x.to_string().as_bytes());
}

/// `{"code":…,"name":…` (an item's opening).
fn w_open(out: &mut Vec<u8>, code: &str, name: &str) {
    out.extend_from_slice(br#"{"code":"#);
    w_str(out, code);
    out.extend_from_slice(br#","name":"#);
    w_str(out, name);
}

/// `"key":` (keys are the contract's, plain ASCII).
fn w_key(out: &mut Vec<u8>, key: &str) {
    out.push(b'"');
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(b"\":");
}

/// The store menu read of one store, the whole answer of `GET /menu/stores/{id}`. Written
/// straight from the catalog (no JSON tree in between), each modifier group once per read and
/// copied into every product that shows it: linear in the catalog and the answer. `store` None:
/// the master catalog alone (what preview diffs against).
pub(super) fn render_store(menu: &MenuState, brand: i64, store: Option<&str>, now: i64) -> Vec<u8> {
    let empty = Catalog::default();
    let cat = menu.catalogs.get(&brand).unwrap_or(&empty);
    let layer = store.and_then(|s| menu.stores.get(s));
    let groups: HashMap<&str, &Group> = cat.groups.iter().filter(|g| g.active).map(|g| (g.code.as_str(), g)).collect();
    let mut cats: Vec<&Category> = cat.categories.iter().filter(|c| c.active).collect();
    cats.sort_by_key(|c| c.position);
    let mut by_cat: HashMap<&str, Vec<&Product>> = HashMap::new();
    for p in cat.products.iter().filter(|p| p.active) {
        by_cat.entry(p.category.as_str()).or_default().push(p);
    }
    if let Some(l) = layer {
        for p in l.local.iter().filter(|p| p.active) {
            by_cat.entry(p.category.as_str()).or_default().push(p);
        }
    }
    let overrides = |code: &str| layer.and_then(|l| l.overrides.get(code));
    let mut group_json: HashMap<&str, Vec<u8>> = HashMap::new();
    let mut out = Vec::with_capacity(64 + cat.products.len() * 600);
    out.extend_from_slice(br#"{"message":"OK","data":{"categories":["#);
    for (ci, c) in cats.iter().enumerate() {
        if ci > 0 {
            out.push(b',');
        }
        w_open(&mut out, &c.code, &c.name);
        out.extend_from_slice(br#","position":"#);
        w_int(&mut out, c.position);
        out.extend_from_slice(br#","products":["#);
        let products = by_cat.get(c.code.as_str()).map_or(&[][..], Vec::as_slice);
        for (pos, p) in products.iter().enumerate() {
            if pos > 0 {
                out.push(b',');
            }
            let o = overrides(&p.code);
            let (ovs, orderable, resumes, eff) =
                overrides_of(o, &p.channels, Some((&p.name, p.price, p.description.as_deref())), now, true);
            let (name, price, description) = match &eff {
                Some((n, pr, d)) => (n.as_str(), *pr, d.as_deref()),
                None => (p.name.as_str(), p.price, p.description.as_deref()),
            };
            let channels = o.and_then(|o| o.channels.as_ref()).unwrap_or(&p.channels);
            out.extend_from_slice(br#"{"code":"#);
            w_str(&mut out, &p.code);
            out.extend_from_slice(br#","categoryCode":"#);
            w_str(&mut out, &c.code);
            out.extend_from_slice(br#","name":"#);
            w_str(&mut out, name);
            out.extend_from_slice(br#","price":"#);
            w_num(&mut out, price);
            out.extend_from_slice(br#","tax":"#);
            w_num(&mut out, p.tax);
            out.extend_from_slice(br#","position":"#);
            w_int(&mut out, pos as i64);
            out.extend_from_slice(br#","maxPerOrder":"#);
            w_int(&mut out, p.max_per_order);
            out.extend_from_slice(br#","origin":"#);
            w_str(&mut out, if p.store.is_some() { Origin::Store } else { Origin::Brand }.as_str());
            out.extend_from_slice(if orderable { br#","orderable":true"# } else { br#","orderable":false"# });
            out.extend_from_slice(br#","channels":"#);
            let _ = serde_json::to_writer(&mut out, channels);
            out.extend_from_slice(br#","remoteCode":"#);
            w_str(&mut out, &p.remote_code);
            out.extend_from_slice(br#","description":"#);
            w_opt_str(&mut out, description);
            out.extend_from_slice(br#","image":"#);
            w_opt_str(&mut out, p.image.as_deref());
            out.extend_from_slice(br#","resumesAt":"#);
            w_opt_str(&mut out, resumes.as_deref());
            if !ovs.is_empty() {
                out.extend_from_slice(br#","overrides":"#);
                let _ = serde_json::to_writer(&mut out, &ovs);
            }
            out.extend_from_slice(br#","modifierGroups":["#);
            let mut first = true;
            for (gpos, gc) in p.groups.iter().enumerate() {
                let Some(g) = groups.get(gc.as_str()) else { continue };
                if !first {
                    out.push(b',');
                }
                first = false;
                // The group's JSON up to its position, written once per read.
                let head = group_json.entry(g.code.as_str()).or_insert_with(|| render_group(g, &overrides, now));
                out.extend_from_slice(head);
                w_key(&mut out, "position");
                w_int(&mut out, gpos as i64);
                out.push(b'}');
            }
            out.extend_from_slice(b"]}");
        }
        out.extend_from_slice(b"]}");
    }
    out.extend_from_slice(b"]}}");
    out
}

/// A modifier group's JSON without its position (which depends on the product) and its closing
/// brace: `{"code":…,"name":…,"min":…,"max":…,"type":…,"options":[…],`.
fn render_group<'a>(g: &Group, overrides: &impl Fn(&str) -> Option<&'a Override>, now: i64) -> Vec<u8> {
    let mut out = Vec::with_capacity(128 + g.options.len() * 160);
    w_open(&mut out, &g.code, &g.name);
    out.extend_from_slice(br#","min":"#);
    w_int(&mut out, g.min);
    out.extend_from_slice(br#","max":"#);
    w_int(&mut out, g.max);
    out.extend_from_slice(br#","type":"#);
    w_str(&mut out, &g.kind);
    out.extend_from_slice(br#","options":["#);
    for (i, op) in g.options.iter().filter(|o| o.active).enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let (ovs, orderable, resumes, _) = overrides_of(overrides(&op.code), &[], None, now, false);
        w_open(&mut out, &op.code, &op.name);
        out.extend_from_slice(br#","price":"#);
        w_num(&mut out, op.price);
        out.extend_from_slice(if op.is_default { br#","isDefault":true"# } else { br#","isDefault":false"# });
        out.extend_from_slice(if orderable { br#","orderable":true"# } else { br#","orderable":false"# });
        out.extend_from_slice(br#","remoteCode":"#);
        w_str(&mut out, &op.remote_code);
        out.extend_from_slice(br#","maxPerOrder":"#);
        match op.max_per_order {
            Some(m) => w_int(&mut out, m),
            None => out.extend_from_slice(b"null"),
        }
        out.extend_from_slice(br#","resumesAt":"#);
        w_opt_str(&mut out, resumes.as_deref());
        if !ovs.is_empty() {
            out.extend_from_slice(br#","overrides":"#);
            let _ = serde_json::to_writer(&mut out, &ovs);
        }
        out.push(b'}');
    }
    out.extend_from_slice(b"],");
    out
}

type Effective = (String, f64, Option<String>);

/// The overrides[] of an item, sorted by precedence (unavailable, scheduled, channel, value:
/// assumed), with `orderable` and `resumesAt` driven by element 0, and the values in effect.
fn overrides_of(
    o: Option<&Override>,
    base_channels: &[String],
    base: Option<(&String, f64, Option<&str>)>,
    now: i64,
    product: bool,
) -> (Vec<Value>, bool, Option<String>, Option<Effective>) {
    let Some(o) = o else {
        return (Vec::new(), true, None, None);
    };
    // Each override in precedence order, with what it makes of orderable and resumesAt; the
    // first one present drives both.
    let mut list = Vec::new();
    let mut drives: Option<(bool, Option<String>)> = None;
    let mut push = |entry: Value, state: (bool, Option<String>)| {
        list.push(entry);
        drives.get_or_insert(state);
    };
    if o.unavailable {
        push(json!({ "type": OverrideType::Unavailable.as_str(), "reason": null }), (false, None));
    }
    if let Some(w) = &o.schedule {
        let (open, next) = window_state(w, now);
        let window = json!({ "days": w.days, "startTime": w.start_time, "endTime": w.end_time });
        push(
            json!({ "type": OverrideType::Scheduled.as_str(), "reason": null, "window": window }),
            (open, if open { None } else { next.map(crate::time::format_unix_seconds) }),
        );
    }
    if let (true, Some(ch)) = (product, &o.channels) {
        let fields = json!([{ "field": "channels", "value": ch, "base": base_channels }]);
        push(json!({ "type": OverrideType::Channel.as_str(), "reason": null, "fields": fields }), (!ch.is_empty(), None));
    }
    let mut eff = None;
    if let Some((name, price, description)) = base {
        let mut fields = Vec::new();
        if let Some(p) = o.price {
            fields.push(json!({ "field": "price", "value": p, "base": price }));
        }
        if let Some(n) = &o.name {
            fields.push(json!({ "field": "name", "value": n, "base": name }));
        }
        if let Some(d) = &o.description {
            fields.push(json!({ "field": "description", "value": d, "base": description }));
        }
        if !fields.is_empty() {
            push(json!({ "type": OverrideType::Value.as_str(), "reason": null, "fields": fields }), (true, None));
        }
        eff = Some((
            o.name.clone().unwrap_or_else(|| name.clone()),
            o.price.unwrap_or(price),
            o.description.clone().or_else(|| description.map(str::to_string)),
        ));
    }
    let (orderable, resumes) = drives.unwrap_or((true, None));
    (list, orderable, resumes, eff)
}
