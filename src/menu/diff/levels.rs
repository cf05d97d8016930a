//! Each level of the menu, matched with the one matcher ([`match_level`]) and compared:
//! categories by name, products by remoteCode, modifier groups by name within their matched
//! product, options by remoteCode within their matched group.

use super::matching::{match_level, Keys, Left, Match};
use super::values::{anchor, arr, field_change, master, same, short, show, string};
use super::walk::{Differ, Loc, To};
use super::{rules, Change, Entity, FieldChange, Side};
use crate::basis::Basis;
use crate::contract::{Origin, TargetEntity};
use crate::json::{Span, Value};
use std::collections::HashMap;

/// How an item of the read with no key to match it by is reported: a diagnostic, and the note
/// and basis of its deactivated entry.
struct Unkeyed {
    path: String,
    anchor: Span,
    message: &'static str,
    basis: Basis,
    note: &'static str,
}

/// The fields of a matched pair that change, compared through their master values.
#[derive(Default)]
struct Compared {
    changes: Vec<FieldChange>,
    spans: Vec<Option<Span>>,
    /// (field, remark) of the fields a store override keeps in effect.
    overridden: Vec<(String, String)>,
}

impl Differ<'_> {
    /// The keys of one level, matched.
    fn match_keys(&mut self, current: &[Option<&str>], next: &[Option<&str>]) -> (Vec<Match>, Vec<Left>) {
        let m = match_level(Keys { current, next }, None, &mut self.work);
        (m.next, m.current)
    }

    /// A submitted item that matches several: reported, and listed as ambiguous.
    #[allow(clippy::too_many_arguments)]
    fn ambiguous(&mut self, entity: Entity, loc: Loc, v: &Value, key: &str, parent: Option<String>, basis: Basis, msg: String, help: &str) {
        self.diag(To::Next, &rules::AMBIGUOUS_MATCH, loc.field(key), anchor(v, key), msg.clone()).map(|d| d.help(help));
        self.simple(Change::Ambiguous, entity, Side::Next, loc, v, parent, basis, Some(msg));
    }

    /// A submitted object with no key: reported.
    fn unmatchable(&mut self, loc: Loc, v: &Value, key: &str, message: &str) {
        if v.as_object().is_some() {
            self.diag(To::Next, &rules::UNMATCHABLE, loc.path(), anchor(v, key), message.into());
        }
    }

    /// A current item no submitted item took: counted ambiguous, or deactivated (with the report
    /// of `unkeyed` when it has no key). Whether it ends deactivated.
    #[allow(clippy::too_many_arguments)]
    fn left(
        &mut self,
        state: Left,
        entity: Entity,
        loc: Loc,
        v: &Value,
        parent: Option<String>,
        basis: Basis,
        unkeyed: Option<Unkeyed>,
    ) -> bool {
        match (state, unkeyed) {
            (Left::Matched(_), _) => false,
            (Left::Ambiguous, _) => {
                self.summary.ambiguous.add(entity);
                false
            }
            (Left::Unkeyed, Some(u)) => {
                self.diag(To::Cur, &rules::UNMATCHABLE, u.path, u.anchor, u.message.into());
                self.simple(Change::Deactivated, entity, Side::Current, loc, v, parent, u.basis, Some(u.note.into()));
                true
            }
            (Left::Absent | Left::Unkeyed, _) => {
                self.simple(Change::Deactivated, entity, Side::Current, loc, v, parent, basis, None);
                true
            }
        }
    }

    /// Compares `fields` of a matched pair, the read's through their master values (a store
    /// override's base).
    fn compare_master(&mut self, cur: &Value, next: &Value, fields: &[&str]) -> Compared {
        let mut out = Compared::default();
        for &field in fields {
            let (base, in_effect) = master(&mut self.work, cur, field);
            let new = next.get(field);
            if same(base, new, false) {
                continue;
            }
            let note = in_effect.map(|v| {
                format!("compared with the master value (the override's base); a store override keeps {} in effect", show(Some(v)))
            });
            if let Some(v) = in_effect {
                out.overridden.push((
                    field.to_string(),
                    format!(
                        "{field} changes {} → {} in the master catalog, but a store override keeps {} in effect",
                        show(base),
                        show(new),
                        show(Some(v))
                    ),
                ));
            }
            out.changes.push(field_change(field, base, new, Basis::Stated, note));
            out.spans.push(new.map(|v| v.span));
        }
        out
    }

    /// Matches categories by name; returns, per current category, whether it is deactivated, and
    /// per next / current category the matched index on the other side.
    pub(super) fn categories<'d>(&mut self, data: bool, cur: &'d [Value<'d>], next: &'d [Value<'d>]) -> Cats<'d> {
        let cur_names: Vec<Option<&'d str>> = cur.iter().map(|c| string(c, "name")).collect();
        let next_names: Vec<Option<&'d str>> = next.iter().map(|c| string(c, "name")).collect();
        let (next_match, cur_left) = self.match_keys(&cur_names, &next_names);
        for (ni, m) in next_match.iter().enumerate() {
            self.work += 1;
            let v = &next[ni];
            let loc = Loc::category(false, ni);
            match *m {
                Match::Matched(ci) => {
                    let mut changes = Vec::new();
                    let mut spans = Vec::new();
                    if !same(cur[ci].get("position"), v.get("position"), false) {
                        changes.push(field_change("position", cur[ci].get("position"), v.get("position"), Basis::Derived, None));
                        spans.push(v.get("position").map(|x| x.span));
                    }
                    self.updated_or_unchanged(Entity::Category, loc, &cur[ci], v, None, Basis::Assumed, changes, spans);
                }
                Match::Created => {
                    if self.pending.len() < self.options.max_entries {
                        self.created_categories.insert(ni, self.pending.len());
                    }
                    self.simple(Change::Created, Entity::Category, Side::Next, loc, v, None, Basis::Assumed, None);
                }
                Match::Ambiguous { current: cn, next: nn } => {
                    let msg = format!(
                        "category \"{}\" cannot be matched: the name is used by {cn} categor{} of the store menu and {nn} of the submission, and category remoteCodes are not preserved",
                        short(next_names[ni].unwrap_or_default()),
                        if cn == 1 { "y" } else { "ies" }
                    );
                    let help = "give categories distinct names; the diff does not guess which one is meant";
                    self.ambiguous(Entity::Category, loc, v, "name", None, Basis::Assumed, msg, help);
                }
                Match::Unmatchable => self.unmatchable(
                    loc,
                    v,
                    "name",
                    "a category without a name cannot be matched with the store menu (category remoteCodes are not preserved)",
                ),
            }
        }
        let mut cur_state: Vec<CatState> = Vec::with_capacity(cur.len());
        for (ci, v) in cur.iter().enumerate() {
            self.work += 1;
            let loc = Loc::category(data, ci);
            let unkeyed = (cur_left[ci] == Left::Unkeyed).then(|| Unkeyed {
                path: loc.path(),
                anchor: anchor(v, "code"),
                message: "a category of the store menu without a name cannot be matched with the submission; absent from it, it would be deactivated",
                basis: Basis::Assumed,
                note: "no name to match it by",
            });
            let state = match cur_left[ci] {
                Left::Matched(ni) => CatState::Matched(ni),
                // Matched ambiguously (a duplicated name on one side): undetermined.
                Left::Ambiguous => CatState::Ambiguous,
                _ => CatState::Deactivated,
            };
            self.left(cur_left[ci], Entity::Category, loc, v, None, Basis::Assumed, unkeyed);
            cur_state.push(state);
        }
        Cats { next_match, cur_state, next_names, cur_names }
    }

    pub(super) fn products<'d>(&mut self, data: bool, cur: &'d [Value<'d>], next: &'d [Value<'d>], cats: &Cats<'d>) {
        // The read's products: brand ones by remoteCode, store-local ones apart.
        let mut cur_list: Vec<(usize, usize, &'d Value<'d>, Option<&'d str>)> = Vec::new();
        let mut local: HashMap<&'d str, (usize, usize)> = HashMap::new();
        for (ci, c) in cur.iter().enumerate() {
            for (pi, p) in arr(c, "products").iter().enumerate() {
                self.work += 1;
                if p.as_object().is_none() {
                    continue;
                }
                let code = string(p, "remoteCode");
                if string(p, "origin") == Some(Origin::Store.as_str()) {
                    self.summary.store_local_products += 1;
                    if let Some(code) = code {
                        local.entry(code).or_insert((ci, pi));
                    }
                    if cats.cur_state[ci] == CatState::Deactivated {
                        let loc = Loc::category(data, ci).product(pi);
                        let msg = format!(
                            "store-local product \"{}\" is in category \"{}\", which the upload would deactivate: a local product whose category does not exist is never displayed",
                            short(string(p, "name").unwrap_or("?")),
                            short(cats.cur_names[ci].unwrap_or("?"))
                        );
                        self.diag(To::Cur, &rules::LOCAL_CATEGORY_REMOVED, loc.path(), anchor(p, "remoteCode"), msg)
                            .map(|d| d.help("keep the category in the submission, or move the local product first (derived from POST /menu/stores/{storeRemoteId}/products: categoryCode must be an existing category)"));
                    }
                    continue;
                }
                self.summary.active_products += 1;
                cur_list.push((ci, pi, p, code));
            }
        }
        if self.summary.store_local_products > 0 {
            let n = self.summary.store_local_products;
            let (ci, pi) = local.values().min().copied().unwrap_or((0, 0));
            let at = cur.get(ci).and_then(|c| arr(c, "products").get(pi));
            let span = at.map_or(Span::new(0, 1), |p| anchor(p, "origin"));
            let path = Loc::category(data, ci).product(pi).field("origin");
            self.diag(
                To::Cur,
                &rules::STORE_LOCAL,
                path,
                span,
                format!("{n} store-local product{} (origin: store) {} not part of the master catalog that PUT /menu replaces: what the upload does to {} is not shown", if n == 1 { "" } else { "s" }, if n == 1 { "is" } else { "are" }, if n == 1 { "it" } else { "them" }),
            )
            .map(|d| d.help("they are neither counted as deactivated nor in the share; check them in the store menu after the upload"));
        }

        let mut next_list: Vec<(usize, usize, &'d Value<'d>, Option<&'d str>)> = Vec::new();
        for (ni, c) in next.iter().enumerate() {
            for (pi, p) in arr(c, "products").iter().enumerate() {
                self.work += 1;
                if p.as_object().is_some() {
                    next_list.push((ni, pi, p, string(p, "remoteCode")));
                }
            }
        }
        let cur_codes: Vec<Option<&'d str>> = cur_list.iter().map(|p| p.3).collect();
        let next_codes: Vec<Option<&'d str>> = next_list.iter().map(|p| p.3).collect();
        let (matches, cur_left) = self.match_keys(&cur_codes, &next_codes);
        for (k, m) in matches.iter().enumerate() {
            let (ni, pi, q, code) = next_list[k];
            let loc = Loc::category(false, ni).product(pi);
            match *m {
                Match::Matched(j) => {
                    let (ci, cpi, p, _) = cur_list[j];
                    self.product_pair(Loc::category(data, ci).product(cpi), p, ci, loc, q, ni, cats);
                }
                Match::Created => {
                    if let Some((ci, cpi)) = code.and_then(|c| local.get(c)) {
                        let msg = format!(
                            "product remoteCode \"{}\" is also the remoteCode of the store-local product at {}: how the service resolves this is not shown",
                            short(code.unwrap_or_default()),
                            Loc::category(data, *ci).product(*cpi).path()
                        );
                        self.diag(To::Next, &rules::STORE_LOCAL_COLLISION, loc.field("remoteCode"), anchor(q, "remoteCode"), msg)
                            .map(|d| d.help("give the brand product another remoteCode, or check the store menu after the upload"));
                    }
                    self.simple(Change::Created, Entity::Product, Side::Next, loc, q, None, Basis::Derived, None);
                }
                Match::Ambiguous { current: cn, next: nn } => {
                    let msg = format!(
                        "product remoteCode \"{}\" is used by {nn} product{} of the submission and {cn} of the store menu: the diff does not guess which one is meant",
                        short(code.unwrap_or_default()),
                        if nn == 1 { "" } else { "s" }
                    );
                    let help = "product remoteCodes are unique across the whole menu";
                    self.ambiguous(Entity::Product, loc, q, "remoteCode", None, Basis::Derived, msg, help);
                }
                Match::Unmatchable => {
                    self.unmatchable(loc, q, "remoteCode", "a product without a string remoteCode cannot be matched with the store menu")
                }
            }
        }
        for (j, &(ci, pi, p, _)) in cur_list.iter().enumerate() {
            self.work += 1;
            let loc = Loc::category(data, ci).product(pi);
            let unkeyed = (cur_left[j] == Left::Unkeyed).then(|| Unkeyed {
                path: loc.field("remoteCode"),
                anchor: anchor(p, "remoteCode"),
                message: "this brand product has no remoteCode: the submission cannot name it, so the upload would deactivate it",
                basis: Basis::Derived,
                note: "no remoteCode: the submission cannot name it",
            });
            self.left(cur_left[j], Entity::Product, loc, p, None, Basis::Stated, unkeyed);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn product_pair<'d>(&mut self, cloc: Loc, p: &'d Value<'d>, ci: usize, nloc: Loc, q: &'d Value<'d>, ni: usize, cats: &Cats<'d>) {
        let Compared { mut changes, mut spans, overridden } =
            self.compare_master(p, q, &["name", "description", "price", "tax", "maxPerOrder"]);
        // image: the read's is re-hosted (stated), so only presence can be compared.
        let (cur_img, legacy_img) = match (p.get("image"), p.member("imageUrl")) {
            (Some(i), _) => (Some(i), None),
            (None, Some(m)) => (Some(&m.value), Some(m.key_span)),
            (None, None) => (None, None),
        };
        if let Some(span) = legacy_img {
            self.diag(
                To::Cur,
                &rules::LEGACY_FIELD,
                cloc.field("imageUrl"),
                span,
                "\"imageUrl\" was renamed \"image\" on 2026-08-10; read as image for the diff".into(),
            );
        }
        if let Some(m) = q.member("imageUrl") {
            self.diag(To::Next, &rules::LEGACY_FIELD, nloc.field("imageUrl"), m.key_span, "\"imageUrl\" was renamed \"image\" on 2026-08-10: the submission field is image, so this product has no image for the service".into())
                .map(|d| d.help("rename it to \"image\" (every product of a full submission needs one)"));
        }
        let new_img = q.get("image");
        let has = |v: Option<&Value>| v.is_some_and(|v| !v.is_null());
        match (has(cur_img), has(new_img)) {
            (false, true) | (true, false) => {
                let note = if has(new_img) {
                    "the store menu shows no image"
                } else {
                    "the submission has no image (a full submission needs one: 422)"
                };
                changes.push(field_change("image", cur_img, new_img, Basis::Stated, Some(note.into())));
                spans.push(new_img.map(|v| v.span));
            }
            (true, true) if !same(cur_img, new_img, false) => {
                self.summary.images_not_compared += 1;
                self.image_first.get_or_insert(new_img.map_or(q.span, |v| v.span));
            }
            _ => {}
        }
        // category: the parent in each tree, through the category match.
        let moved_from = match cats.cur_state[ci] {
            CatState::Matched(nj) if nj != ni => Some(cats.cur_names[ci]),
            CatState::Deactivated => Some(cats.cur_names[ci]),
            _ => None,
        };
        if let Some(from) = moved_from {
            if cats.cur_state[ci] == CatState::Deactivated && cats.next_match.get(ni) == Some(&Match::Created) {
                self.work += 1;
                *self.moves.entry((ni, ci)).or_insert(0) += 1;
            }
            if !matches!(cats.next_match.get(ni), Some(Match::Ambiguous { .. }) | None) {
                let to = cats.next_names[ni];
                let msg = format!(
                    "product \"{}\" would move from category \"{}\" to \"{}\"",
                    short(string(q, "remoteCode").unwrap_or_default()),
                    short(from.unwrap_or("?")),
                    short(to.unwrap_or("?"))
                );
                let mut c = FieldChange {
                    field: TargetEntity::Category.as_str().into(),
                    old: from.map(|s| short(s).into()),
                    new: to.map(|s| short(s).into()),
                    basis: Basis::Assumed,
                    note: Some("categories are matched by name".into()),
                    line: None,
                    column: None,
                    span: None,
                };
                if from.is_none() || to.is_none() {
                    c.note = Some("a category without a name".into());
                }
                changes.push(c);
                spans.push(None);
                self.diag(To::Next, &rules::MOVES_CATEGORY, nloc.field("remoteCode"), anchor(q, "remoteCode"), msg)
                    .map(|d| d.help("check the product's category in the submission; categories are matched by name (an assumption: their remoteCodes are not preserved)"));
            }
        }
        self.updated_or_unchanged(Entity::Product, nloc, p, q, None, Basis::Derived, changes, spans);
        self.overrides_kept(nloc, p, q, TargetEntity::Product.as_str(), &overridden);
        self.groups(cloc, p, nloc, q);
    }

    /// A created category holding most of the products of a deactivated one: perhaps a rename.
    pub(super) fn rename_hints<'d>(&mut self, data: bool, cur: &'d [Value<'d>], next: &'d [Value<'d>], cats: &Cats<'d>) {
        let mut best: HashMap<usize, (usize, usize)> = HashMap::new();
        for (&(ni, ci), &n) in &self.moves {
            self.work += 1;
            let b = best.entry(ni).or_insert((ci, 0));
            if n > b.1 || (n == b.1 && ci < b.0) {
                *b = (ci, n);
            }
        }
        let mut hints: Vec<(usize, usize, usize)> = best.into_iter().map(|(ni, (ci, n))| (ni, ci, n)).collect();
        hints.sort_unstable();
        for (ni, ci, n) in hints {
            let total = arr(&next[ni], "products").len();
            if n * 2 <= total {
                continue;
            }
            let (new_name, old_name) = (short(cats.next_names[ni].unwrap_or("?")), short(cats.cur_names[ci].unwrap_or("?")));
            let code = string(&cur[ci], "code").map(|c| format!(" (code {})", short(c))).unwrap_or_default();
            let msg = format!(
                "category \"{new_name}\" is new, but {n} of its {total} products are in the store menu's category \"{old_name}\"{code}, which would be deactivated: if this is a rename, how the service matches categories is not shown"
            );
            if let Some(&i) = self.created_categories.get(&ni) {
                if let Some(p) = self.pending.get_mut(i) {
                    p.entry.note = Some(format!("perhaps a rename of \"{old_name}\" at {}", Loc::category(data, ci).path()));
                }
            }
            let v = &next[ni];
            self.diag(To::Next, &rules::POSSIBLE_RENAME, Loc::category(false, ni).field("name"), anchor(v, "name"), msg)
                .map(|d| d.help("categories are matched by name here (an assumption: their remoteCodes are not preserved); rename with PATCH /api/v1/menu/categories/{code} (brand scope) before the upload if the service should keep the category"));
        }
    }

    /// A kept item with store overrides: they stay on top of the new master values.
    fn overrides_kept(&mut self, nloc: Loc, p: &Value, q: &Value, what: &str, overridden: &[(String, String)]) {
        let list = arr(p, "overrides");
        let Some(first) = list.first() else { return };
        let kind = short(string(first, "type").unwrap_or("?"));
        let reason = string(first, "reason").map(|r| format!(" (reason: \"{}\")", short(r))).unwrap_or_default();
        let mut msg = format!(
            "{} store override{} on this {what} stay{} on top of the master catalog after the upload: overrides[0] is \"{kind}\"{reason}",
            list.len(),
            if list.len() == 1 { "" } else { "s" },
            if list.len() == 1 { "s" } else { "" }
        );
        for (_, m) in overridden.iter().take(3) {
            msg.push_str("; ");
            msg.push_str(m);
        }
        self.diag(To::Next, &rules::OVERRIDE_KEPT, nloc.field("remoteCode"), anchor(q, "remoteCode"), msg)
            .map(|d| d.help("PUT /menu is brand scope and does not remove store overrides (store scope): remove them with a store-scope change if the new master values should show"));
    }

    fn groups<'d>(&mut self, cloc: Loc, p: &'d Value<'d>, nloc: Loc, q: &'d Value<'d>) {
        let (cur, legacy) = match (p.get("modifierGroups"), p.member("modifiers")) {
            (Some(g), _) => (g.as_array().unwrap_or(&[]), false),
            (None, Some(m)) => {
                self.diag(
                    To::Cur,
                    &rules::LEGACY_FIELD,
                    cloc.field("modifiers"),
                    m.key_span,
                    "\"modifiers\" was renamed \"modifierGroups\" on 2026-08-10; read as modifierGroups for the diff".into(),
                );
                (m.value.as_array().unwrap_or(&[]), true)
            }
            _ => (&[][..], false),
        };
        if let Some(m) = q.member("modifiers") {
            self.diag(To::Next, &rules::LEGACY_FIELD, nloc.field("modifiers"), m.key_span, "\"modifiers\" was renamed \"modifierGroups\" on 2026-08-10: the submission field is modifierGroups, so these groups are not part of the submission".into())
                .map(|d| d.help("rename it to \"modifierGroups\""));
        }
        let next = arr(q, "modifierGroups");
        if cur.is_empty() && next.is_empty() {
            return;
        }
        let product = format!("{} {}", TargetEntity::Product, short(string(q, "remoteCode").unwrap_or("?")));
        let cur_names: Vec<Option<&'d str>> = cur.iter().map(|g| string(g, "name")).collect();
        let next_names: Vec<Option<&'d str>> = next.iter().map(|g| string(g, "name")).collect();
        let (matches, cur_left) = self.match_keys(&cur_names, &next_names);
        for (gi, m) in matches.iter().enumerate() {
            let g = &next[gi];
            let loc = nloc.group(gi, false);
            match *m {
                Match::Matched(cj) => {
                    let c = &cur[cj];
                    let mut changes = Vec::new();
                    let mut spans = Vec::new();
                    for field in ["min", "max", "type"] {
                        if !same(c.get(field), g.get(field), field == "type") {
                            changes.push(field_change(field, c.get(field), g.get(field), Basis::Stated, None));
                            spans.push(g.get(field).map(|v| v.span));
                        }
                    }
                    self.updated_or_unchanged(Entity::ModifierGroup, loc, c, g, Some(product.clone()), Basis::Assumed, changes, spans);
                    self.options(cloc.group(cj, legacy), c, loc, g);
                }
                Match::Created => {
                    self.simple(Change::Created, Entity::ModifierGroup, Side::Next, loc, g, Some(product.clone()), Basis::Assumed, None)
                }
                Match::Ambiguous { .. } => {
                    let msg = format!("modifier group \"{}\" of {product} cannot be matched: its name is used twice on one side, and group remoteCodes are not preserved", short(next_names[gi].unwrap_or_default()));
                    let help = "give the groups of a product distinct names; the diff does not guess";
                    self.ambiguous(Entity::ModifierGroup, loc, g, "name", Some(product.clone()), Basis::Assumed, msg, help);
                }
                Match::Unmatchable => self.unmatchable(
                    loc,
                    g,
                    "remoteCode",
                    "a modifier group without a name cannot be matched with the store menu (group remoteCodes are not preserved)",
                ),
            }
        }
        for (cj, c) in cur.iter().enumerate() {
            self.work += 1;
            if c.as_object().is_some() {
                self.left(cur_left[cj], Entity::ModifierGroup, cloc.group(cj, legacy), c, Some(product.clone()), Basis::Assumed, None);
            }
        }
    }

    fn options<'d>(&mut self, cloc: Loc, cg: &'d Value<'d>, nloc: Loc, ng: &'d Value<'d>) {
        let cur = arr(cg, "options");
        let next = arr(ng, "options");
        let parent = format!("group \"{}\"", short(string(ng, "name").unwrap_or("?")));
        let cur_codes: Vec<Option<&'d str>> = cur.iter().map(|o| string(o, "remoteCode")).collect();
        let next_codes: Vec<Option<&'d str>> = next.iter().map(|o| string(o, "remoteCode")).collect();
        let (matches, cur_left) = self.match_keys(&cur_codes, &next_codes);
        for (oi, m) in matches.iter().enumerate() {
            let o = &next[oi];
            let loc = nloc.option(oi);
            match *m {
                Match::Matched(cj) => {
                    let c = &cur[cj];
                    let Compared { changes, spans, overridden } = self.compare_master(c, o, &["name", "price", "isDefault", "maxPerOrder"]);
                    self.updated_or_unchanged(Entity::Option, loc, c, o, Some(parent.clone()), Basis::Derived, changes, spans);
                    self.overrides_kept(loc, c, o, "option", &overridden);
                }
                Match::Created => {
                    self.simple(Change::Created, Entity::Option, Side::Next, loc, o, Some(parent.clone()), Basis::Derived, None)
                }
                Match::Ambiguous { .. } => {
                    let msg = format!(
                        "option remoteCode \"{}\" of {parent} is used twice on one side: the diff does not guess which one is meant",
                        short(next_codes[oi].unwrap_or_default())
                    );
                    let help = "option remoteCodes are unique within a group";
                    self.ambiguous(Entity::Option, loc, o, "remoteCode", Some(parent.clone()), Basis::Derived, msg, help);
                }
                Match::Unmatchable => {
                    self.unmatchable(loc, o, "remoteCode", "an option without a string remoteCode cannot be matched with the store menu")
                }
            }
        }
        for (cj, c) in cur.iter().enumerate() {
            self.work += 1;
            if c.as_object().is_none() {
                continue;
            }
            let unkeyed = (cur_left[cj] == Left::Unkeyed).then(|| Unkeyed {
                path: cloc.field("remoteCode"),
                anchor: anchor(c, "remoteCode"),
                message: "this option has no remoteCode: the submission cannot name it, so the upload would deactivate it",
                basis: Basis::Derived,
                note: "no remoteCode: the submission cannot name it",
            });
            self.left(cur_left[cj], Entity::Option, cloc.option(cj), c, Some(parent.clone()), Basis::Stated, unkeyed);
        }
    }
}

/// The state of a current category after matching.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CatState {
    Matched(usize),
    Deactivated,
    Ambiguous,
}

/// The categories matched, for the products' moves and the rename hints.
pub(super) struct Cats<'d> {
    next_match: Vec<Match>,
    cur_state: Vec<CatState>,
    next_names: Vec<Option<&'d str>>,
    cur_names: Vec<Option<&'d str>>,
}
