//! Bodies of the REST requests: order operations and the menu writes.

use super::fields::{as_obj, en, f_arr, f_bool, f_enum, f_image, f_int, f_num, f_obj, f_str, get, int, num, objects, strings, unknown, P};
use super::menu_read::group_min_max;
use super::rules as r;
use crate::check;
use crate::contract::{Day, ReasonCode, Scope, Status, TargetEntity, WriteStatus};
use crate::contract::{GroupType, MIN_MAX_PER_ORDER, MIN_POSITION, MIN_PRICE, TAX_RANGE};
use crate::diagnostic::{Collector, Path, Severity};
use crate::json::{Span, Value};
const GROUP_TYPES: &[&str] = GroupType::NAMES;
use crate::time;

/// What body an endpoint takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BodyKind {
    None,
    Accept,
    Reject,
    Status,
    Availability,
    Prices,
    PatchProduct,
    PatchOption,
    PatchCategory,
    PatchGroup,
    Changes,
    LocalProduct,
    /// The full menu submission tree, checked by the menu linter.
    Menu,
}

/// Checks a parsed body of kind `kind`; `now` is unix seconds.
pub(crate) fn check(c: &mut Collector, kind: BodyKind, path: &Path, v: &Value, now: i64) {
    match kind {
        BodyKind::Accept => accept(c, path, v),
        BodyKind::Reject => reject(c, path, v),
        BodyKind::Status => status(c, path, v, now),
        BodyKind::Availability => bulk(c, path, v, false),
        BodyKind::Prices => bulk(c, path, v, true),
        BodyKind::PatchProduct => patch(c, path, v, Entity::Product),
        BodyKind::PatchOption => patch(c, path, v, Entity::ModifierOption),
        BodyKind::PatchCategory => patch(c, path, v, Entity::Category),
        BodyKind::PatchGroup => patch(c, path, v, Entity::ModifierGroup),
        BodyKind::Changes => changes(c, path, v),
        BodyKind::LocalProduct => local_product(c, path, v),
        BodyKind::None | BodyKind::Menu => {}
    }
}

fn accept(c: &mut Collector, path: &Path, v: &Value) {
    if as_obj(c, path, v).is_none() {
        return;
    }
    if let Some(m) = v.member("remoteOrderId") {
        c.push(
            &r::ACCEPT_REMOTE_ORDER_ID,
            &path.key("remoteOrderId"),
            m.key_span,
            "remoteOrderId must not be sent on accept: the body is an empty JSON object",
        )
        .help("the remoteOrderId is the one your POS returned to the creation webhook");
    }
    unknown(c, path, v, ACCEPT_FIELDS);
}

/// The accept body is an empty JSON object: `remoteOrderId` is listed to be reported by its own
/// rule ("remoteOrderId must not be sent").
pub(crate) const ACCEPT_FIELDS: &[&str] = &["remoteOrderId"];
pub(crate) const REJECT_FIELDS: &[&str] = &["reasonCode", "message"];
pub(crate) const STATUS_FIELDS: &[&str] = &["status", "occurredAt"];

/// The reject reason codes.
/// The reasonCode values of POST reject (Orders rule 1).
pub const REASON_CODES: &[&str] = ReasonCode::NAMES;

fn reject(c: &mut Collector, path: &Path, v: &Value) {
    if as_obj(c, path, v).is_none() {
        return;
    }
    if let Some(code) = f_str(c, path, v, "reasonCode", P::Req) {
        if !REASON_CODES.contains(&code) {
            let span = v.get("reasonCode").map_or(v.span, |x| x.span);
            let d = c.push(
                &r::REJECT_REASON_CODE_NORMALIZED,
                &path.key("reasonCode"),
                span,
                format!("reasonCode \"{code}\" is not in the list: the service normalizes it to SYSTEM_ISSUE (returned so in data.reason)"),
            );
            if let Some(s) = check::did_you_mean(code, REASON_CODES, &[]) {
                d.help(format!("did you mean \"{s}\"?"));
            } else {
                d.help(format!("reason codes: {}", REASON_CODES.join(", ")));
            }
        }
    }
    f_str(c, path, v, "message", P::OptNull);
    unknown(c, path, v, REJECT_FIELDS);
}

/// The write vocabulary of PUT status.
pub(crate) const WRITE_STATUSES: &[&str] = WriteStatus::NAMES;
/// The write status that returns 409 after accept ("the value stays in the enum for forward compatibility").
pub(crate) const STATUS_CONFLICT_AFTER_ACCEPT: &str = WriteStatus::Preparing.as_str();
/// The `occurredAt` clamp: "now minus 24 hours to now plus 5 minutes" (seconds).
pub(crate) const OCCURRED_AT_CLAMP_SECONDS: (i64, i64) =
    (crate::contract::OCCURRED_AT_PAST_SECONDS, crate::contract::OCCURRED_AT_FUTURE_SECONDS);

fn status(c: &mut Collector, path: &Path, v: &Value, now: i64) {
    if as_obj(c, path, v).is_none() {
        return;
    }
    if let Some(sv) = get(c, path, v, "status", P::Req) {
        let sp = path.key("status");
        if let Some(s) = check::string(c, &r::FIELD_TYPE, &sp, sv) {
            let snake: String =
                s.chars().flat_map(|ch| if ch.is_ascii_uppercase() { vec!['_', ch.to_ascii_lowercase()] } else { vec![ch] }).collect();
            let snake = snake.trim_start_matches('_').to_string();
            if s.eq_ignore_ascii_case(Status::Cancelled.as_str()) || s.eq_ignore_ascii_case("canceled") {
                c.push(
                    &r::STATUS_CANCELLED,
                    &sp,
                    sv.span,
                    "status \"cancelled\" is not accepted: the merchant cannot cancel after acceptance through the REST API",
                )
                .help("before acceptance, reject the order (POST /api/v1/Orders/{orderKey}/reject)");
            } else if s == STATUS_CONFLICT_AFTER_ACCEPT {
                c.push(
                    &r::STATUS_PREPARING_CONFLICT,
                    &sp,
                    sv.span,
                    "status \"preparing\" returns 409 after accept: accept already moved the order to Preparing",
                )
                .help("after accept, send ready, then handed_over");
            } else if !WRITE_STATUSES.contains(&s) {
                let d = c.push(
                    &r::ENUM_VALUE,
                    &sp,
                    sv.span,
                    format!("status must be one of \"preparing\", \"ready\", \"handed_over\", found \"{s}\""),
                );
                if let Some(w) = WRITE_STATUSES.iter().find(|w| **w == snake || w.eq_ignore_ascii_case(s)) {
                    d.help(format!("the write vocabulary is snake_case: \"{w}\""));
                }
            }
        }
    }
    if let Some(at) = get(c, path, v, "occurredAt", P::OptNull) {
        let ap = path.key("occurredAt");
        // An offset (…+02:00) is ISO 8601 but not UTC; whether the service refuses it is not shown.
        let offset = at.as_str().and_then(time::parse).filter(|t| !t.utc);
        if offset.is_some() {
            c.push(&r::TIMESTAMP_OFFSET, &ap, at.span, "occurredAt carries a UTC offset: timestamps of the contract are in UTC; whether the service accepts an offset is not shown")
                .help("send occurredAt in UTC, e.g. 2026-08-12T14:30:00Z");
        }
        if let Some(t) = offset.or_else(|| super::fields::ts(c, &ap, at)) {
            let lo = now.saturating_sub(OCCURRED_AT_CLAMP_SECONDS.0).saturating_mul(1000);
            let hi = now.saturating_add(OCCURRED_AT_CLAMP_SECONDS.1).saturating_mul(1000);
            let clamped = if t.unix_millis < lo {
                Some((lo, "more than 24 hours before now"))
            } else if t.unix_millis > hi {
                Some((hi, "more than 5 minutes after now"))
            } else {
                None
            };
            if let Some((to, why)) = clamped {
                c.push(
                    &r::STATUS_OCCURRED_AT_CLAMPED,
                    &ap,
                    at.span,
                    format!("occurredAt is {why}: the service clamps it to {}", time::format_unix_millis(to)),
                )
                .help("occurredAt is clamped to [now − 24 h, now + 5 min]; omit it to use the service clock");
            }
        }
    }
    unknown(c, path, v, STATUS_FIELDS);
}

/// The fields of the availability and prices shortcuts and of their `items[]`.
pub(crate) const BULK_FIELDS: &[&str] = &["stores", "items"];
pub(crate) const AVAILABILITY_ITEM_FIELDS: &[&str] = &["targetEntity", "targetCode", "available", "categoryCode"];
pub(crate) const PRICE_ITEM_FIELDS: &[&str] = &["targetEntity", "targetCode", "price", "categoryCode"];
/// `targetEntity` of the availability and prices shortcuts.
pub(crate) const BULK_TARGET_ENTITIES: &[&str] = &[PRODUCT, OPTION];

/// `stores[]`: strings; `required` says whether it must be present. An empty array is a warning.
fn stores(c: &mut Collector, path: &Path, v: &Value, required: bool) {
    let Some(list) = f_arr(c, path, v, "stores", if required { P::Req } else { P::Opt }) else {
        return;
    };
    let sp = path.key("stores");
    if list.is_empty() {
        let span = v.get("stores").map_or(v.span, |x| x.span);
        c.push(&r::WRITE_EMPTY_STORES, &sp, span, "stores is empty: the write targets no store");
    }
    for (i, s) in strings(c, &sp, list) {
        if s.trim().is_empty() {
            c.push(&r::FIELD_TYPE, &sp.index(i), list[i].span, "a store remoteId must not be empty");
        }
    }
}

/// PUT /menu/availability (`prices` false) and PUT /menu/prices (`prices` true): store scope.
fn bulk(c: &mut Collector, path: &Path, v: &Value, prices: bool) {
    if as_obj(c, path, v).is_none() {
        return;
    }
    stores(c, path, v, true);
    if let Some(items) = f_arr(c, path, v, "items", P::Req) {
        let ip = path.key("items");
        for (i, it) in objects(c, &ip, items) {
            let p = ip.index(i);
            let entity = f_enum(c, &p, it, "targetEntity", P::Req, BULK_TARGET_ENTITIES, false);
            f_str(c, &p, it, "targetCode", P::Req);
            if prices {
                if f_num(c, &p, it, "price", P::Req, Some(MIN_PRICE), None).is_some() && entity == Some(OPTION) {
                    let span = it.get("price").map_or(it.span, |x| x.span);
                    pending_rollout(c, &p.key("price"), span, "price");
                }
            } else {
                f_bool(c, &p, it, "available", P::Req);
            }
            f_str(c, &p, it, "categoryCode", P::OptNull);
            unknown(c, &p, it, if prices { PRICE_ITEM_FIELDS } else { AVAILABILITY_ITEM_FIELDS });
        }
    }
    unknown(c, path, v, BULK_FIELDS);
}

fn pending_rollout(c: &mut Collector, path: &Path, span: Span, field: &str) {
    c.push(&r::WRITE_PENDING_ROLLOUT, path, span, format!("modifierOption {field} in store scope is accepted and persisted but not yet reflected in the customer app (pendingCustomerRollout)"))
        .help("GET /api/v1/menu/capabilities lists the combinations still pending rollout");
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entity {
    Product,
    ModifierOption,
    Category,
    ModifierGroup,
}

impl Entity {
    pub(crate) fn id(self) -> &'static str {
        match self {
            Self::Product => PRODUCT,
            Self::ModifierOption => OPTION,
            Self::Category => CATEGORY,
            Self::ModifierGroup => GROUP,
        }
    }

    pub(crate) fn brand_only(self) -> bool {
        matches!(self, Self::Category | Self::ModifierGroup)
    }

    /// The entity a PATCH endpoint or a `changes[]` target edits (`None`: localProduct).
    pub(crate) fn of_target(target: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|e| e.id() == target)
    }

    pub(crate) const ALL: [Self; 4] = [Self::Product, Self::ModifierOption, Self::Category, Self::ModifierGroup];
}

/// `scope`: `store` (the default when omitted) or `brand`.
pub(crate) const SCOPES: &[&str] = Scope::NAMES;
pub(crate) const DEFAULT_SCOPE: &str = STORE;
const STORE: &str = Scope::Store.as_str();
const BRAND: &str = Scope::Brand.as_str();
const PRODUCT: &str = TargetEntity::Product.as_str();
const OPTION: &str = TargetEntity::ModifierOption.as_str();
const CATEGORY: &str = TargetEntity::Category.as_str();
const GROUP: &str = TargetEntity::ModifierGroup.as_str();
/// The fields of the PATCH bodies.
pub(crate) const PATCH_FIELDS: &[&str] = &["scope", "stores", "categoryCode", "set"];

/// The shipped (entity, field, scope) combinations and whether each is pending customer rollout.
pub(crate) const SHIPPED: &[(&str, &str, &str, bool)] = &[
    (PRODUCT, "available", STORE, false),
    (PRODUCT, "price", STORE, false),
    (PRODUCT, "name", STORE, false),
    (PRODUCT, "description", STORE, false),
    (PRODUCT, "schedule", STORE, false),
    (PRODUCT, "channels", STORE, false),
    (PRODUCT, "price", BRAND, false),
    (PRODUCT, "name", BRAND, false),
    (PRODUCT, "description", BRAND, false),
    (PRODUCT, "tax", BRAND, false),
    (PRODUCT, "maxPerOrder", BRAND, false),
    (PRODUCT, "image", BRAND, false),
    (OPTION, "available", STORE, false),
    (OPTION, "price", STORE, true),
    (OPTION, "name", STORE, true),
    (OPTION, "price", BRAND, false),
    (OPTION, "name", BRAND, false),
    (OPTION, "isDefault", BRAND, false),
    (OPTION, "maxPerOrder", BRAND, false),
    (CATEGORY, "name", BRAND, false),
    (CATEGORY, "position", BRAND, false),
    (GROUP, "name", BRAND, false),
    (GROUP, "min", BRAND, false),
    (GROUP, "max", BRAND, false),
    (GROUP, "type", BRAND, false),
];

/// `scope` (default store); reports brand-only entities in store scope. Returns the scope.
fn scope(c: &mut Collector, path: &Path, v: &Value, entity: Option<Entity>) -> Option<&'static str> {
    let sc = match v.get("scope") {
        None => Some(DEFAULT_SCOPE),
        Some(x) if x.is_null() => Some(DEFAULT_SCOPE),
        Some(_) => f_enum(c, path, v, "scope", P::Opt, SCOPES, false),
    }?;
    if let Some(e) = entity.filter(|e| e.brand_only() && sc == STORE) {
        let (span, msg) = match v.get("scope").filter(|x| !x.is_null()) {
            Some(x) => (x.span, format!("{} is brand-only: scope must be \"brand\", found \"store\"", e.id())),
            None => (
                Span::new(v.span.start, v.span.start + 1),
                format!("{} is brand-only: scope must be \"brand\" (store is the default when scope is omitted)", e.id()),
            ),
        };
        c.push(&r::WRITE_BRAND_ONLY, &path.key("scope"), span, msg);
        return None;
    }
    Some(sc)
}

/// PATCH /menu/{products,modifier-options,categories,modifiers}/{code}.
fn patch(c: &mut Collector, path: &Path, v: &Value, entity: Entity) {
    if as_obj(c, path, v).is_none() {
        return;
    }
    let sc = scope(c, path, v, Some(entity));
    match (sc, v.member("stores")) {
        (Some(STORE), None) => {
            c.push(
                &r::WRITE_STORES_SCOPE,
                &path.key("stores"),
                Span::new(v.span.start, v.span.start + 1),
                "stores is required in store scope (the default scope)",
            );
        }
        (Some(BRAND), Some(m)) => {
            c.push(
                &r::WRITE_STORES_SCOPE,
                &path.key("stores"),
                m.key_span,
                "stores must be omitted in brand scope: a brand write affects every store of the brand",
            );
        }
        (Some(STORE), Some(_)) => stores(c, path, v, true),
        _ => {}
    }
    category_code(c, path, v, entity, sc);
    if let Some(set) = f_obj(c, path, v, "set", P::Req) {
        set_fields(c, &path.key("set"), set, entity, sc);
    }
    unknown(c, path, v, PATCH_FIELDS);
}

/// `categoryCode`: optional string; required for a modifierOption in brand scope.
fn category_code(c: &mut Collector, path: &Path, v: &Value, entity: Entity, sc: Option<&str>) {
    if entity == Entity::ModifierOption && sc == Some(BRAND) && v.get("categoryCode").is_none_or(Value::is_null) {
        c.push(
            &r::WRITE_CATEGORY_CODE_REQUIRED,
            &path.key("categoryCode"),
            Span::new(v.span.start, v.span.start + 1),
            "categoryCode (the parent modifier group code) is required for a modifierOption in brand scope",
        );
        return;
    }
    f_str(c, path, v, "categoryCode", P::OptNull);
}

/// The `set` object: only shipped fields for (entity, scope), each with its value rules.
fn set_fields(c: &mut Collector, sp: &Path, set: &Value, entity: Entity, sc: Option<&str>) {
    let members = set.as_object().unwrap_or_default();
    let mut changes = 0usize;
    let mut group_bounds = false;
    for m in members {
        let field = m.key;
        if m.value.is_null() {
            continue;
        }
        changes += 1;
        let fp = sp.key(field);
        let Some(sc) = sc else {
            // Scope unknown: the combination cannot be judged, the value still can.
            set_value(c, sp, set, field, &mut group_bounds);
            continue;
        };
        match SHIPPED.iter().find(|(e, f, s, _)| *e == entity.id() && *f == field && *s == sc) {
            Some((_, _, _, pending)) => {
                set_value(c, sp, set, field, &mut group_bounds);
                if *pending {
                    pending_rollout(c, &fp, m.key_span, field);
                }
            }
            None => {
                let other = SHIPPED.iter().find(|(e, f, s, _)| *e == entity.id() && *f == field && *s != sc).map(|x| x.2);
                let msg = match other {
                    Some(o) => format!("{} \"{field}\" is not shipped in {sc} scope (only in {o} scope)", entity.id()),
                    None => format!("({}, \"{field}\", {sc}) is not a shipped combination", entity.id()),
                };
                let d = c.push(&r::WRITE_NOT_SHIPPED, &fp, m.key_span, msg);
                let allowed: Vec<&'static str> = SHIPPED.iter().filter(|(e, _, s, _)| *e == entity.id() && *s == sc).map(|x| x.1).collect();
                if let Some(s) =
                    check::did_you_mean(field, super::fields::MENU_FIELDS, super::fields::ALIASES).filter(|s| allowed.contains(s))
                {
                    d.help(format!("did you mean \"{s}\"?"));
                } else if other.is_none() {
                    d.help(format!("shipped in {sc} scope for {}: {}", entity.id(), allowed.join(", ")));
                }
            }
        }
    }
    if changes == 0 {
        c.push(&r::WRITE_EMPTY_SET, sp, set.span, "set has no non-null field: nothing would change");
    }
}

/// The value rules of one `set` field.
fn set_value(c: &mut Collector, sp: &Path, set: &Value, field: &str, group_bounds: &mut bool) {
    let Some(v) = set.get(field) else { return };
    let fp = sp.key(field);
    match field {
        "available" | "isDefault" => {
            check::boolean(c, &r::FIELD_TYPE, &fp, v);
        }
        "price" => {
            num(c, &fp, v, Some(MIN_PRICE), None);
        }
        "name" | "description" => {
            check::string(c, &r::FIELD_TYPE, &fp, v);
        }
        "schedule" => schedule(c, &fp, v),
        "channels" => channels(c, &fp, v),
        "tax" => {
            num(c, &fp, v, Some(TAX_RANGE.0), Some(TAX_RANGE.1));
        }
        "maxPerOrder" => {
            // Above 0 for every entity: stated for products ("maxPerOrder (integer above 0)"),
            // derived for modifier options, whose set names the same field ("maxPerOrder (brand
            // only)") and whose submission and read carry it with the same meaning.
            int(c, &fp, v, Some(MIN_MAX_PER_ORDER), None);
        }
        "image" => {
            f_image(c, sp, set, field, P::OptNull);
        }
        "position" => {
            int(c, &fp, v, Some(MIN_POSITION), None);
        }
        "min" | "max" if !*group_bounds => {
            *group_bounds = true;
            group_min_max(c, sp, set, P::OptNull);
        }
        "type" => {
            en(c, &fp, v, GROUP_TYPES, true);
        }
        _ => {}
    }
}

/// `schedule.days[]`: "three-letter codes mon to sun, case-insensitive".
pub(crate) const DAYS: &[&str] = Day::NAMES;
pub(crate) const SCHEDULE_FIELDS: &[&str] = &["days", "startTime", "endTime"];

fn is_hh_mm(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 5
        && b[2] == b':'
        && b[..2].iter().chain(&b[3..]).all(u8::is_ascii_digit)
        && (b[0] - b'0') * 10 + (b[1] - b'0') < 24
        && b[3] < b'6'
}

/// `schedule`: days[] (three-letter codes mon to sun, case-insensitive, at least one),
/// startTime and endTime (HH:mm).
fn schedule(c: &mut Collector, p: &Path, v: &Value) {
    if as_obj(c, p, v).is_none() {
        return;
    }
    if let Some(days) = f_arr(c, p, v, "days", P::Req) {
        let dp = p.key("days");
        if days.is_empty() {
            let span = v.get("days").map_or(v.span, |x| x.span);
            c.push(&r::WRITE_SCHEDULE, &dp, span, "days must hold at least one day (mon to sun)");
        }
        for (i, d) in strings(c, &dp, days) {
            if !DAYS.iter().any(|x| x.eq_ignore_ascii_case(d)) {
                c.push(
                    &r::WRITE_SCHEDULE,
                    &dp.index(i),
                    days[i].span,
                    format!("day \"{d}\" must be a three-letter code: mon, tue, wed, thu, fri, sat, sun"),
                );
            }
        }
    }
    for key in ["startTime", "endTime"] {
        if let Some(t) = f_str(c, p, v, key, P::Req) {
            if !is_hh_mm(t) {
                let span = v.get(key).map_or(v.span, |x| x.span);
                c.push(&r::WRITE_SCHEDULE, &p.key(key), span, format!("{key} must be HH:mm (00:00 to 23:59), found \"{t}\""));
            }
        }
    }
    unknown(c, p, v, SCHEDULE_FIELDS);
}

/// `channels[]`: delivery and/or pickup, case-insensitive; unknown values give 422.
fn channels(c: &mut Collector, p: &Path, v: &Value) {
    let Some(list) = check::array(c, &r::FIELD_TYPE, p, v) else {
        return;
    };
    if list.is_empty() {
        c.push(&r::WRITE_NO_CHANNEL, p, v.span, "channels is empty: no channel, the item is blocked everywhere");
    }
    for (i, ch) in list.iter().enumerate() {
        en(c, &p.index(i), ch, super::menu_read::CHANNELS, true);
    }
}

/// `changes[].targetEntity`.
pub(crate) const CHANGE_ENTITIES: &[&str] = TargetEntity::NAMES;
/// The target whose `set` fields the contract does not show.
pub(crate) const LOCAL_PRODUCT_TARGET: &str = TargetEntity::LocalProduct.as_str();
pub(crate) const CHANGES_FIELDS: &[&str] = &["stores", "changes"];
pub(crate) const CHANGE_FIELDS: &[&str] = &["targetEntity", "targetCode", "scope", "categoryCode", "set"];

/// POST /menu/changes.
fn changes(c: &mut Collector, path: &Path, v: &Value) {
    if as_obj(c, path, v).is_none() {
        return;
    }
    let mut any_store = false;
    let mut any_brand = false;
    if let Some(list) = f_arr(c, path, v, "changes", P::Req) {
        let lp = path.key("changes");
        for (i, ch) in objects(c, &lp, list) {
            let p = lp.index(i);
            let target = f_enum(c, &p, ch, "targetEntity", P::Req, CHANGE_ENTITIES, false);
            let entity = target.and_then(Entity::of_target);
            f_str(c, &p, ch, "targetCode", P::Req);
            let sc = scope(c, &p, ch, entity);
            match sc {
                Some(STORE) => any_store = true,
                Some(_) => any_brand = true,
                None => {}
            }
            match entity {
                Some(e) => category_code(c, &p, ch, e, sc),
                None => {
                    f_str(c, &p, ch, "categoryCode", P::OptNull);
                }
            }
            if let Some(set) = f_obj(c, &p, ch, "set", P::Req) {
                match (entity, target) {
                    (Some(e), _) => set_fields(c, &p.key("set"), set, e, sc),
                    (None, Some(LOCAL_PRODUCT_TARGET)) => {
                        c.push(
                            &r::WRITE_LOCAL_PRODUCT_SET,
                            &p.key("set"),
                            set.span,
                            "the set fields of a localProduct change are not shown in the contract; not checked",
                        );
                    }
                    _ => {}
                }
            }
            unknown(c, &p, ch, CHANGE_FIELDS);
        }
    }
    match v.member("stores") {
        None if any_store => {
            c.push(
                &r::WRITE_STORES_SCOPE,
                &path.key("stores"),
                Span::new(v.span.start, v.span.start + 1),
                "stores is required: some changes are in store scope (the default scope)",
            );
        }
        Some(m) if any_brand && !any_store => {
            c.push(&r::WRITE_STORES_SCOPE, &path.key("stores"), m.key_span, "stores must be omitted: every change is in brand scope");
        }
        Some(_) => stores(c, path, v, false),
        None => {}
    }
    unknown(c, path, v, CHANGES_FIELDS);
}

/// Letters, digits and `_ . - :`, no spaces, 1 to 100 characters.
pub(crate) fn is_remote_code(s: &str) -> bool {
    !s.is_empty() && s.len() <= crate::contract::REMOTE_CODE_MAX_CHARS && s.bytes().all(crate::contract::is_remote_code_byte)
}

/// "Local product tax: only 0, 0.15, 0.18".
pub(crate) const LOCAL_PRODUCT_TAXES: &[f64] = &[0.0, 0.15, 0.18];

pub(crate) const LOCAL_PRODUCT_FIELDS: &[&str] =
    &["code", "name", "price", "categoryCode", "description", "channels", "tax", "maxPerOrder", "image", "available", "position"];

/// POST /menu/stores/{storeRemoteId}/products.
fn local_product(c: &mut Collector, path: &Path, v: &Value) {
    if as_obj(c, path, v).is_none() {
        return;
    }
    if let Some(code) = f_str(c, path, v, "code", P::Req) {
        if !is_remote_code(code) {
            let span = v.get("code").map_or(v.span, |x| x.span);
            c.push(
                &r::LOCAL_PRODUCT_CODE_FORMAT,
                &path.key("code"),
                span,
                format!(
                    "code \"{code}\" is kept as remoteCode, which allows letters, digits and _ . - : (no spaces), up to 100 characters"
                ),
            );
        }
    }
    f_str(c, path, v, "name", P::Req);
    f_num(c, path, v, "price", P::Req, Some(MIN_PRICE), None);
    f_str(c, path, v, "categoryCode", P::Req);
    f_str(c, path, v, "description", P::OptNull);
    if let Some(ch) = get(c, path, v, "channels", P::OptNull) {
        channels(c, &path.key("channels"), ch);
    }
    if let Some(t) = f_num(c, path, v, "tax", P::OptNull, None, None) {
        if !LOCAL_PRODUCT_TAXES.contains(&t) {
            let span = v.get("tax").map_or(v.span, |x| x.span);
            c.push(&r::LOCAL_PRODUCT_TAX, &path.key("tax"), span, format!("a local product's tax is 0, 0.15 or 0.18, found {t}"));
        }
    }
    f_int(c, path, v, "maxPerOrder", P::OptNull, Some(MIN_MAX_PER_ORDER), None);
    f_image(c, path, v, "image", P::OptNull);
    if let Some(a) = f_bool(c, path, v, "available", P::OptNull) {
        let span = v.get("available").map_or(v.span, |x| x.span);
        let d = c.push(
            &r::LOCAL_PRODUCT_AVAILABLE_IGNORED,
            &path.key("available"),
            span,
            "available is ignored on creation: the product is always created active",
        );
        if a {
            d.severity(Severity::Info);
        } else {
            d.help("create it, then set available false with PUT /api/v1/menu/availability");
        }
    }
    if let Some(m) = v.member("position") {
        c.push(
            &r::LOCAL_PRODUCT_POSITION,
            &path.key("position"),
            m.key_span,
            "position is not accepted: the product is placed at the end of its category",
        );
    }
    unknown(c, path, v, LOCAL_PRODUCT_FIELDS);
}

#[cfg(test)]
mod tests;
