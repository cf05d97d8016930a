//! What the POS reads about the menu: the store menu, a menu change, the capabilities.

use super::fields::{as_obj, f_arr, f_bool, f_change_key, f_enum, f_image, f_int, f_num, f_str, f_ts, get, has, objects, unknown, P};
use super::rules as r;
use super::webhooks::{completed_after_submitted, target_entity};
use crate::contract::{CapabilityEntity, Channel, MenuChangeStatus, Origin, OverrideType, Scope, TargetEntity};
use crate::diagnostic::{Collector, Path};
use crate::json::Value;

/// Reports `imageUrl` / `modifiers` (renamed on 2026-08-10) on a read object.
fn renamed(c: &mut Collector, path: &Path, v: &Value) {
    for &(old, new) in RENAMED_FIELDS {
        if let Some(m) = v.member(old) {
            c.push(&r::RENAMED_FIELD, &path.key(old), m.key_span, format!("\"{old}\" was renamed \"{new}\" on 2026-08-10"))
                .help(format!("read field names equal write names: use \"{new}\""));
        }
    }
}

/// The renamed read fields (2026-08-10): the former name, then the current one.
pub(crate) const RENAMED_FIELDS: &[(&str, &str)] = &[("imageUrl", "image"), ("modifiers", "modifierGroups")];

pub(crate) const STORE_MENU_FIELDS: &[&str] = &["categories"];
pub(crate) const CATEGORY_FIELDS: &[&str] = &["code", "name", "position", "products"];
pub(crate) const PRODUCT_FIELDS: &[&str] = &[
    "code",
    "categoryCode",
    "name",
    "price",
    "tax",
    "position",
    "maxPerOrder",
    "origin",
    "orderable",
    "channels",
    "remoteCode",
    "description",
    "image",
    "resumesAt",
    "overrides",
    "modifierGroups",
    "imageUrl",
    "modifiers",
];
pub(crate) const GROUP_FIELDS: &[&str] = &["code", "name", "min", "max", "type", "position", "options"];
pub(crate) const OPTION_FIELDS: &[&str] =
    &["code", "name", "price", "isDefault", "orderable", "remoteCode", "maxPerOrder", "resumesAt", "overrides"];
/// A product's `origin`: `brand` (master catalog) or `store` (local product).
pub(crate) const ORIGINS: &[&str] = Origin::NAMES;
/// Sales channels (`channels[]` of the read, of the menu writes and of a local product).
pub(crate) const CHANNELS: &[&str] = Channel::NAMES;

/// The store menu (`data` of GET /api/v1/menu/stores/{storeRemoteId}).
pub(crate) fn store_menu(c: &mut Collector, path: &Path, v: &Value) {
    if as_obj(c, path, v).is_none() {
        return;
    }
    let Some(categories) = f_arr(c, path, v, "categories", P::Req) else {
        return;
    };
    let cp = path.key("categories");
    for (i, cat) in objects(c, &cp, categories) {
        let p = cp.index(i);
        f_str(c, &p, cat, "code", P::Req);
        f_str(c, &p, cat, "name", P::Req);
        f_int(c, &p, cat, "position", P::Req, None, None);
        if let Some(products) = f_arr(c, &p, cat, "products", P::Req) {
            let pp = p.key("products");
            for (j, prod) in objects(c, &pp, products) {
                product(c, &pp.index(j), prod);
            }
        }
        unknown(c, &p, cat, CATEGORY_FIELDS);
    }
    unknown(c, path, v, STORE_MENU_FIELDS);
}

fn product(c: &mut Collector, p: &Path, v: &Value) {
    renamed(c, p, v);
    f_str(c, p, v, "code", P::Req);
    f_str(c, p, v, "categoryCode", P::Req);
    f_str(c, p, v, "name", P::Req);
    f_num(c, p, v, "price", P::Req, None, None);
    f_num(c, p, v, "tax", P::Req, None, None);
    f_int(c, p, v, "position", P::Req, None, None);
    f_int(c, p, v, "maxPerOrder", P::Req, None, None);
    f_enum(c, p, v, "origin", P::Req, ORIGINS, false);
    if let Some(channels) = f_arr(c, p, v, "channels", P::Req) {
        let chp = p.key("channels");
        for (i, ch) in channels.iter().enumerate() {
            super::fields::en(c, &chp.index(i), ch, CHANNELS, false);
        }
    }
    f_str(c, p, v, "remoteCode", P::ReqNull);
    f_str(c, p, v, "description", P::ReqNull);
    if v.get("imageUrl").is_none() {
        f_image(c, p, v, "image", P::ReqNull);
    }
    orderable_and_overrides(c, p, v);
    if v.get("modifiers").is_none() {
        if let Some(groups) = f_arr(c, p, v, "modifierGroups", P::Req) {
            let gp = p.key("modifierGroups");
            for (i, g) in objects(c, &gp, groups) {
                group(c, &gp.index(i), g);
            }
        }
    }
    unknown(c, p, v, PRODUCT_FIELDS);
}

fn group(c: &mut Collector, p: &Path, v: &Value) {
    f_str(c, p, v, "code", P::Req);
    f_str(c, p, v, "name", P::Req);
    group_min_max(c, p, v, P::Req);
    f_enum(c, p, v, "type", P::Req, crate::contract::GroupType::NAMES, true);
    f_int(c, p, v, "position", P::Req, None, None);
    if let Some(options) = f_arr(c, p, v, "options", P::Req) {
        let op = p.key("options");
        for (i, o) in objects(c, &op, options) {
            let q = op.index(i);
            f_str(c, &q, o, "code", P::Req);
            f_str(c, &q, o, "name", P::Req);
            f_num(c, &q, o, "price", P::Req, None, None);
            f_bool(c, &q, o, "isDefault", P::Req);
            f_str(c, &q, o, "remoteCode", P::ReqNull);
            f_int(c, &q, o, "maxPerOrder", P::ReqNull, None, None);
            orderable_and_overrides(c, &q, o);
            unknown(c, &q, o, OPTION_FIELDS);
        }
    }
    unknown(c, p, v, GROUP_FIELDS);
}

/// `min` at least 0, `max` at least 1 and at least `min` (`menu/group-min-max`), for the read
/// and for PATCH modifiers (`presence` Opt there: absent = no change).
pub(crate) fn group_min_max(c: &mut Collector, p: &Path, v: &Value, presence: P) {
    let min_v = get(c, p, v, "min", presence);
    let max_v = get(c, p, v, "max", presence);
    let min = min_v.and_then(|x| crate::check::integer(c, &r::FIELD_TYPE, &p.key("min"), x, None, None));
    let max = max_v.and_then(|x| crate::check::integer(c, &r::FIELD_TYPE, &p.key("max"), x, None, None));
    if let (Some(m), Some(x)) = (min, min_v) {
        if m < crate::contract::MIN_GROUP_MIN {
            c.push(&r::MENU_GROUP_MIN_MAX, &p.key("min"), x.span, format!("min must be at least 0, found {m}"));
        }
    }
    if let (Some(m), Some(x)) = (max, max_v) {
        if m < crate::contract::MIN_GROUP_MAX {
            c.push(&r::MENU_GROUP_MIN_MAX, &p.key("max"), x.span, format!("max must be at least 1, found {m}"));
        } else if let Some(lo) = min.filter(|lo| *lo > m) {
            let min_span = min_v.map_or(x.span, |y| y.span);
            c.push(&r::MENU_GROUP_MIN_MAX, &p.key("max"), x.span, format!("max {m} is lower than min {lo}")).related(
                &p.key("min"),
                min_span,
                "min",
            );
        }
    }
}

pub(crate) const OVERRIDE_TYPES: &[&str] = OverrideType::NAMES;
pub(crate) const OVERRIDE_FIELDS: &[&str] = &["type", "reason", "replacedBy", "window", "fields"];
/// The override fields populated only on some types: "only fields applicable to the type are populated".
pub(crate) const OVERRIDE_FIELDS_BY_TYPE: &[(&str, &[&str])] = &[
    ("replacedBy", &[OverrideType::Substituted.as_str()]),
    ("window", &[OverrideType::Scheduled.as_str()]),
    ("fields", &[OverrideType::Channel.as_str(), OverrideType::Value.as_str()]),
];
pub(crate) const WINDOW_FIELDS: &[&str] = &["days", "startTime", "endTime"];
pub(crate) const OVERRIDE_VALUE_FIELDS: &[&str] = &["field", "value", "base"];

/// `orderable`, `resumesAt` and `overrides[]` (sorted by precedence; element 0 drives the other two).
fn orderable_and_overrides(c: &mut Collector, p: &Path, v: &Value) {
    let orderable = f_bool(c, p, v, "orderable", P::Req);
    let resumes = f_ts(c, p, v, "resumesAt", P::ReqNull);
    let mut first_type = None;
    let mut any = false;
    if let Some(list) = f_arr(c, p, v, "overrides", P::Opt) {
        let op = p.key("overrides");
        if list.is_empty() {
            let span = v.get("overrides").map_or(v.span, |x| x.span);
            c.push(&r::MENU_EMPTY_OVERRIDES, &op, span, "overrides is an empty array; items with no override omit the field");
        }
        any = !list.is_empty();
        for (i, o) in objects(c, &op, list) {
            let t = override_entry(c, &op.index(i), o);
            if i == 0 {
                first_type = t;
            }
        }
    }
    if first_type == Some(OverrideType::Unavailable.as_str()) && orderable == Some(true) {
        let span = v.get("orderable").map_or(v.span, |x| x.span);
        c.push(
            &r::MENU_OVERRIDE_DRIVES_STATE,
            &p.key("orderable"),
            span,
            "orderable is true although overrides[0] (which drives it) is an unavailable override",
        );
    }
    if !any && resumes.is_some() {
        let span = v.get("resumesAt").map_or(v.span, |x| x.span);
        c.push(
            &r::MENU_OVERRIDE_DRIVES_STATE,
            &p.key("resumesAt"),
            span,
            "resumesAt is set but there is no override to drive it (element 0 of overrides drives resumesAt)",
        );
    }
}

fn override_entry(c: &mut Collector, p: &Path, o: &Value) -> Option<&'static str> {
    let t = f_enum(c, p, o, "type", P::Req, OVERRIDE_TYPES, false);
    f_str(c, p, o, "reason", P::ReqNull);
    for &(key, types) in OVERRIDE_FIELDS_BY_TYPE {
        if let Some(ty) = t {
            if !types.contains(&ty) && has(o, key) {
                let span = o.get(key).map_or(o.span, |x| x.span);
                c.push(
                    &r::MENU_OVERRIDE_FIELD_FOR_TYPE,
                    &p.key(key),
                    span,
                    format!("{key} is only populated on {} overrides, not on \"{ty}\"", types.join(" and ")),
                );
                continue;
            }
        }
        match key {
            "replacedBy" => {
                f_str(c, p, o, key, P::OptNull);
            }
            "window" => {
                if let Some(w) = super::fields::f_obj(c, p, o, key, P::OptNull) {
                    let wp = p.key("window");
                    if let Some(days) = f_arr(c, &wp, w, "days", P::Req) {
                        super::fields::strings(c, &wp.key("days"), days);
                    }
                    f_str(c, &wp, w, "startTime", P::Req);
                    f_str(c, &wp, w, "endTime", P::Req);
                    unknown(c, &wp, w, WINDOW_FIELDS);
                }
            }
            _ => {
                if let Some(fields) = f_arr(c, p, o, key, P::OptNull) {
                    let fp = p.key("fields");
                    for (i, f) in objects(c, &fp, fields) {
                        let q = fp.index(i);
                        f_str(c, &q, f, "field", P::Req);
                        get(c, &q, f, "value", P::ReqNull);
                        get(c, &q, f, "base", P::ReqNull);
                        unknown(c, &q, f, OVERRIDE_VALUE_FIELDS);
                    }
                }
            }
        }
    }
    unknown(c, p, o, OVERRIDE_FIELDS);
    t
}

/// `targetEntity` values of a menu change (the POST menu/changes vocabulary).
pub(crate) const CHANGE_TARGET_ENTITIES: &[&str] = TargetEntity::NAMES;
pub(crate) const MENU_CHANGE_FIELDS: &[&str] = &["changeId", "status", "schemaVersion", "submittedAt", "completedAt", "results"];
pub(crate) const MENU_CHANGE_ROW_FIELDS: &[&str] =
    &["storeRemoteId", "storeId", "targetEntity", "targetCode", "applied", "errorCode", "errorMessage", "appliedAt"];
/// A menu change's `status`: `Pending` while being applied (completedAt null), `Applied` once finished.
pub(crate) const MENU_CHANGE_STATUSES: &[&str] = MenuChangeStatus::NAMES;

/// The menu change resource (`data` of GET /api/v1/menu/changes/{changeId}).
pub(crate) fn menu_change(c: &mut Collector, path: &Path, v: &Value) {
    if as_obj(c, path, v).is_none() {
        return;
    }
    f_change_key(c, path, v, "changeId", P::Req);
    let status = f_enum(c, path, v, "status", P::Req, MENU_CHANGE_STATUSES, false);
    get(c, path, v, "schemaVersion", P::ReqNull);
    completed_after_submitted(c, path, v, P::ReqNull);
    if let (Some(st), Some(done)) = (status, v.get("completedAt")) {
        let pending_done = st == MenuChangeStatus::Pending.as_str() && !done.is_null();
        let applied_open = st == MenuChangeStatus::Applied.as_str() && done.is_null();
        if pending_done || applied_open {
            let msg = if pending_done {
                "completedAt is set while status is Pending (it is null while pending)"
            } else {
                "completedAt is null although status is Applied (processing finished)"
            };
            c.push(&r::CHANGE_COMPLETED_AT_STATUS, &path.key("completedAt"), done.span, msg);
        }
    }
    let mut failures = 0usize;
    if let Some(results) = f_arr(c, path, v, "results", P::Req) {
        let rp = path.key("results");
        for (i, row) in objects(c, &rp, results) {
            let p = rp.index(i);
            f_str(c, &p, row, "storeRemoteId", P::ReqNull);
            f_int(c, &p, row, "storeId", P::ReqNull, None, None);
            target_entity(c, &p, row, CHANGE_TARGET_ENTITIES);
            f_str(c, &p, row, "targetCode", P::Req);
            let applied = f_bool(c, &p, row, "applied", P::Req);
            f_str(c, &p, row, "errorCode", P::ReqNull);
            f_str(c, &p, row, "errorMessage", P::ReqNull);
            match get(c, &p, row, "appliedAt", P::ReqNull) {
                Some(at) if applied == Some(false) => {
                    c.push(
                        &r::CHANGE_APPLIED_AT_FAILED,
                        &p.key("appliedAt"),
                        at.span,
                        "appliedAt is null when the row failed (applied is false)",
                    );
                }
                Some(at) => {
                    super::fields::ts(c, &p.key("appliedAt"), at);
                }
                None => {}
            }
            if applied == Some(false) {
                failures += 1;
            }
            unknown(c, &p, row, MENU_CHANGE_ROW_FIELDS);
        }
    }
    if status == Some(MenuChangeStatus::Applied.as_str()) && failures > 0 {
        let span = v.get("status").map_or(v.span, |x| x.span);
        c.push(
            &r::CHANGE_APPLIED_WITH_FAILURES,
            &path.key("status"),
            span,
            format!("status Applied means processing finished, not success: {failures} result row(s) failed"),
        )
        .help("read results[].errorCode per store; menu write failures are not HTTP errors");
    }
    unknown(c, path, v, MENU_CHANGE_FIELDS);
}

pub(crate) const CAP_ENTITIES: &[&str] = CapabilityEntity::NAMES;
pub(crate) const CAP_SCOPES: &[&str] = Scope::NAMES;
pub(crate) const CAPABILITIES_FIELDS: &[&str] = &["capabilities", "notes"];
pub(crate) const CAPABILITY_FIELDS: &[&str] = &["entity", "field", "scope", "pendingCustomerRollout"];

/// The capabilities (`data` of GET /api/v1/menu/capabilities).
pub(crate) fn capabilities(c: &mut Collector, path: &Path, v: &Value) {
    if as_obj(c, path, v).is_none() {
        return;
    }
    if let Some(list) = f_arr(c, path, v, "capabilities", P::Req) {
        let lp = path.key("capabilities");
        let mut seen: Vec<(String, String, String, usize, crate::json::Span)> = Vec::new();
        for (i, e) in objects(c, &lp, list) {
            let p = lp.index(i);
            let mut triple = Vec::with_capacity(3);
            for (key, vocab) in [("entity", CAP_ENTITIES), ("field", super::fields::MENU_FIELDS), ("scope", CAP_SCOPES)] {
                if let Some(s) = f_str(c, &p, e, key, P::Req) {
                    if !vocab.contains(&s) {
                        let span = e.get(key).map_or(e.span, |x| x.span);
                        c.push(
                            &r::CAPABILITIES_UNKNOWN_VALUE,
                            &p.key(key),
                            span,
                            format!("{key} \"{s}\" is not in the contract's vocabulary: {}", vocab.join(", ")),
                        );
                    }
                    triple.push(s.to_string());
                }
            }
            f_bool(c, &p, e, "pendingCustomerRollout", P::Req);
            if let [en, fi, sc] = triple.as_slice() {
                if let Some(first) = seen.iter().find(|s| &s.0 == en && &s.1 == fi && &s.2 == sc) {
                    c.push(
                        &r::CAPABILITIES_DUPLICATE,
                        &p,
                        e.span,
                        format!("({en}, {fi}, {sc}) is already listed at capabilities[{}]", first.3),
                    )
                    .related(&lp.index(first.3), first.4, "first listed here");
                } else {
                    seen.push((en.clone(), fi.clone(), sc.clone(), i, e.span));
                }
            }
            unknown(c, &p, e, CAPABILITY_FIELDS);
        }
    }
    f_str(c, path, v, "notes", P::ReqNull);
    unknown(c, path, v, CAPABILITIES_FIELDS);
}
