//! The walk over the two trees: where an item is, the entries and diagnostics it gives, and the
//! result assembled at the end.

use super::matching::deactivation_share;
use super::values::{anchor, percent, short, string};
use super::{rules, Change, DiffOptions, Entity, Entry, FieldChange, MenuDiff, Side, Summary, Truncation, MATCH_BASIS};
use crate::basis::Basis;
use crate::diagnostic::{merge_reports, service_path_to_pointer, Collector, Positions, Report, Rule};
use crate::json::{Span, Value};
use std::collections::HashMap;

/// Where an item is: `[data.]categories[ci].products[pi].modifierGroups[gi].options[oi]`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Loc {
    data: bool,
    ci: usize,
    pi: Option<usize>,
    gi: Option<usize>,
    oi: Option<usize>,
    /// The read names groups `modifiers` (before 2026-08-10).
    legacy_groups: bool,
}

impl Loc {
    pub(super) fn category(data: bool, ci: usize) -> Self {
        Self { data, ci, pi: None, gi: None, oi: None, legacy_groups: false }
    }
    pub(super) fn product(self, pi: usize) -> Self {
        Self { pi: Some(pi), ..self }
    }
    pub(super) fn group(self, gi: usize, legacy: bool) -> Self {
        Self { gi: Some(gi), legacy_groups: legacy, ..self }
    }
    pub(super) fn option(self, oi: usize) -> Self {
        Self { oi: Some(oi), ..self }
    }
    pub(super) fn path(&self) -> String {
        let mut s = String::with_capacity(64);
        if self.data {
            s.push_str("data.");
        }
        s.push_str(&format!("categories[{}]", self.ci));
        if let Some(p) = self.pi {
            s.push_str(&format!(".products[{p}]"));
        }
        if let Some(g) = self.gi {
            s.push_str(&format!(".{}[{g}]", if self.legacy_groups { "modifiers" } else { "modifierGroups" }));
        }
        if let Some(o) = self.oi {
            s.push_str(&format!(".options[{o}]"));
        }
        s
    }
    pub(super) fn field(&self, f: &str) -> String {
        format!("{}.{f}", self.path())
    }
}

/// An entry whose positions are filled in at the end (one pass over each input).
pub(super) struct Pending {
    pub(super) entry: Entry,
    /// Spans of the field changes' new values, parallel to `entry.changes`.
    field_spans: Vec<Option<Span>>,
}

/// The diff under way: the counts, the entries and the diagnostics so far.
pub(super) struct Differ<'o> {
    pub(super) options: &'o DiffOptions,
    pub(super) summary: Summary,
    pub(super) pending: Vec<Pending>,
    pub(super) total_entries: usize,
    pub(super) cur: Collector,
    pub(super) nxt: Collector,
    pub(super) diagnostics: usize,
    pub(super) diagnostics_stopped: bool,
    pub(super) compared: bool,
    pub(super) work: u64,
    /// Where the first image that could not be compared is, for the one info about them.
    pub(super) image_first: Option<Span>,
    /// (new category, deactivated category) → products that move from the one to the other.
    pub(super) moves: HashMap<(usize, usize), usize>,
    /// Created categories → the index of their entry (when listed).
    pub(super) created_categories: HashMap<usize, usize>,
}

/// Which collector a diagnostic goes to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum To {
    Cur,
    Next,
}

impl<'o> Differ<'o> {
    pub(super) fn new(options: &'o DiffOptions, threshold: f64) -> Self {
        Self {
            options,
            summary: Summary { threshold, ..Summary::default() },
            pending: Vec::new(),
            total_entries: 0,
            cur: budgeted(options.max_diagnostics),
            nxt: budgeted(options.max_diagnostics),
            diagnostics: 0,
            diagnostics_stopped: false,
            compared: false,
            work: 0,
            image_first: None,
            moves: HashMap::new(),
            created_categories: HashMap::new(),
        }
    }

    /// Pushes a diagnostic of the diff's own, within the budget; `None` once it is spent.
    pub(super) fn diag(
        &mut self,
        to: To,
        rule: &'static Rule,
        path: String,
        span: Span,
        message: String,
    ) -> Option<&mut crate::diagnostic::Pending> {
        if self.diagnostics_stopped {
            return None;
        }
        let c = if to == To::Cur { &mut self.cur } else { &mut self.nxt };
        if self.diagnostics >= self.options.max_diagnostics {
            self.diagnostics_stopped = true;
            let max = self.options.max_diagnostics;
            let pointer = service_path_to_pointer(&path);
            c.push_at(
                &rules::TOO_MANY_DIAGNOSTICS,
                path,
                pointer,
                span,
                format!("the diff stopped reporting after {max} diagnostics of its own; the counts and entries stay complete"),
            );
            return None;
        }
        self.diagnostics += 1;
        let pointer = service_path_to_pointer(&path);
        Some(c.push_at(rule, path, pointer, span, message))
    }

    pub(super) fn entry(&mut self, entry: Entry, field_spans: Vec<Option<Span>>) {
        self.total_entries += 1;
        match entry.change {
            Change::Created => self.summary.created.add(entry.entity),
            Change::Updated => self.summary.updated.add(entry.entity),
            Change::Deactivated => self.summary.deactivated.add(entry.entity),
            Change::Ambiguous => self.summary.ambiguous.add(entry.entity),
        }
        if self.pending.len() < self.options.max_entries {
            self.pending.push(Pending { entry, field_spans });
        }
    }

    /// A matched pair, store item `cur` and submitted `next`: an `updated` entry (with the store's
    /// `code`) when `changes` is not empty, otherwise one more unchanged item.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn updated_or_unchanged(
        &mut self,
        entity: Entity,
        loc: Loc,
        cur: &Value,
        next: &Value,
        parent: Option<String>,
        basis: Basis,
        changes: Vec<FieldChange>,
        spans: Vec<Option<Span>>,
    ) {
        if changes.is_empty() {
            self.summary.unchanged.add(entity);
            return;
        }
        let mut e = entry_for(Change::Updated, entity, Side::Next, loc, next, "remoteCode", parent, basis);
        e.code = string(cur, "code").map(short);
        e.changes = changes;
        self.entry(e, spans);
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn simple(
        &mut self,
        change: Change,
        entity: Entity,
        side: Side,
        loc: Loc,
        item: &Value,
        parent: Option<String>,
        basis: Basis,
        note: Option<String>,
    ) {
        let key = if matches!(entity, Entity::Category | Entity::ModifierGroup) && side == Side::Current { "name" } else { "remoteCode" };
        let mut entry = entry_for(change, entity, side, loc, item, key, parent, basis);
        if side == Side::Current {
            entry.code = string(item, "code").map(short);
        }
        entry.note = note;
        self.entry(entry, Vec::new());
    }

    pub(super) fn run<'d>(&mut self, cur_root: &'d Value<'d>, next_root: &'d Value<'d>) {
        let (data, cur_categories) = match (cur_root.get("data"), cur_root.get("categories")) {
            (Some(d), _) if d.get("categories").is_some() => (true, d.get("categories")),
            (_, c) => (false, c),
        };
        let cur_categories = cur_categories.and_then(Value::as_array);
        // A full submission (categories with remoteCode and no code) is not the read.
        let submission = cur_categories.and_then(|c| c.first()).is_some_and(|c| c.get("remoteCode").is_some() && c.get("code").is_none());
        let Some(cur_categories) = cur_categories.filter(|_| !submission) else {
            let mut msg = "the current side is not a store menu read: expected data.categories[] (or categories[]) as returned by GET /api/v1/menu/stores/{storeRemoteId}".to_string();
            if submission {
                msg.push_str("; this looks like a full menu submission (categories[].remoteCode)");
            }
            self.diag(To::Cur, &rules::NOT_A_STORE_MENU, String::new(), Span::new(cur_root.span.start, cur_root.span.start + 1), msg)
                .map(|p| p.help("pass the live store menu as the current side and the submission as the next side"));
            return;
        };
        let Some(next_categories) = next_root.get("categories").and_then(Value::as_array) else {
            return; // the lint reported menu/root-shape
        };
        self.compared = true;
        let cats = self.categories(data, cur_categories, next_categories);
        self.products(data, cur_categories, next_categories, &cats);
        self.rename_hints(data, cur_categories, next_categories, &cats);
        if self.summary.images_not_compared > 0 {
            let n = self.summary.images_not_compared;
            let span = self.image_first.unwrap_or(Span::new(next_root.span.start, next_root.span.start + 1));
            self.diag(
                To::Next,
                &rules::IMAGE_NOT_COMPARED,
                String::new(),
                span,
                format!("{n} product image{} not compared: the read's image is the re-hosted WebP URL, not the submitted URL", if n == 1 { " was" } else { "s were" }),
            )
            .map(|p| p.help("the service downloads and re-hosts every submitted image; a changed picture behind the same URL is not visible here either"));
        }
        let s = &mut self.summary;
        let share = deactivation_share(s.deactivated.products, s.active_products, s.threshold);
        (s.deactivated_share, s.above_threshold) = (share.share, share.above);
        if s.above_threshold {
            let (n, of, share, t) = (s.deactivated.products, s.active_products, s.deactivated_share, s.threshold);
            self.diag(
                To::Next,
                &rules::LARGE_DEACTIVATION,
                "categories".into(),
                anchor(next_root, "categories"),
                format!(
                    "the upload would deactivate {n} of {of} active products ({}), above the threshold of {}: PUT /api/v1/menu answers 409 unless confirmLargeDeactivation=true is sent",
                    percent(share),
                    percent(t)
                ),
            )
            .map(|p| {
                p.help("check that the submission is complete (PUT /menu replaces the catalog); run POST /api/v1/menu/preview with the same body first, and send confirmLargeDeactivation=true only when the deactivation is intended. The service's threshold is not shown: this one is the caller's (default 20%, an assumption)")
            });
        }
    }

    pub(super) fn finish(mut self, current: &[u8], next: &[u8], current_report: Report, next_report: Report) -> MenuDiff {
        let shown = self.pending.len();
        if self.total_entries > shown {
            let total = self.total_entries;
            self.nxt
                .push_at(
                    &rules::TRUNCATED,
                    String::new(),
                    String::new(),
                    Span::new(0, 0),
                    format!("{total} changes; the first {shown} are listed (the counts are complete)"),
                )
                .help("raise the maxEntries option to list them all");
        }
        // Positions: one pass over each input for every entry and field change.
        let mut cur_offsets = Vec::new();
        let mut next_offsets = Vec::new();
        for p in &self.pending {
            match p.entry.side {
                Side::Current => cur_offsets.push(p.entry.span.start),
                Side::Next => next_offsets.push(p.entry.span.start),
            }
            next_offsets.extend(p.field_spans.iter().flatten().map(|s| s.start));
        }
        let cur_pos = Positions::new(current, &cur_offsets);
        let next_pos = Positions::new(next, &next_offsets);
        let mut entries: Vec<Entry> = Vec::with_capacity(shown);
        // Document order: the submission's entries, then the read's.
        self.pending.sort_by_key(|p| (p.entry.side == Side::Current, p.entry.span.start));
        for p in self.pending {
            let mut e = p.entry;
            let pos = if e.side == Side::Current { &cur_pos } else { &next_pos };
            (e.line, e.column) = pos.get(e.span.start);
            for (c, s) in e.changes.iter_mut().zip(p.field_spans) {
                if let Some(s) = s {
                    let (l, col) = next_pos.get(s.start);
                    (c.line, c.column, c.span) = (Some(l), Some(col), Some(s));
                }
            }
            entries.push(e);
        }
        let current_kind = current_report.kind.clone();
        let next_kind = next_report.kind.clone();
        let current = merge_reports(current_kind, vec![current_report, self.cur.finish(current)]);
        let next = merge_reports(next_kind, vec![next_report, self.nxt.finish(next)]);
        MenuDiff {
            compared: self.compared,
            summary: self.summary,
            entries,
            truncated: (self.total_entries > shown).then_some(Truncation { shown, total: self.total_entries }),
            basis: MATCH_BASIS,
            current,
            next,
            work: self.work,
        }
    }
}

/// A collector whose own budget backs the diff's count up (and bounds the text of its reports).
fn budgeted(max: usize) -> Collector {
    let mut c = Collector::new();
    c.set_budget(max.saturating_add(64), &rules::TOO_MANY_DIAGNOSTICS);
    c
}

/// An entry for `v` at `loc`, positioned at its `key` (else its name, else its first byte).
#[allow(clippy::too_many_arguments)]
fn entry_for(change: Change, entity: Entity, side: Side, loc: Loc, v: &Value, key: &str, parent: Option<String>, basis: Basis) -> Entry {
    let path = loc.path();
    Entry {
        change,
        entity,
        remote_code: string(v, "remoteCode").map(short),
        code: None,
        name: string(v, "name").map(short),
        parent,
        side,
        pointer: service_path_to_pointer(&path),
        path,
        line: 0,
        column: 0,
        span: if v.get(key).is_some() { anchor(v, key) } else { anchor(v, "name") },
        changes: Vec::new(),
        basis,
        note: None,
    }
}
