//! The diff for people: plain text (a terminal, a CI log) and Markdown (a pull-request comment).
//!
//! Every string that comes from the inputs (names, codes, messages quoting them, file names) is
//! passed through [`clean`] (text) or [`md`] (Markdown): control characters, including ESC and
//! newlines, become visible `\u{…}` escapes, so an attacker-chosen name can neither drive the
//! terminal nor start a line of its own (a GitHub Actions workflow command is a line beginning with
//! `::`); Markdown also neutralizes its own syntax, HTML and `@` mentions.

use super::{percent, Change, Counts, Entity, Entry, FieldChange, MenuDiff, Side};
use crate::contract::TargetEntity;
use crate::diagnostic::Report;
use std::fmt::Write as _;

/// Control characters (C0, DEL, C1), line and paragraph separators and bidirectional controls
/// become `\u{XXXX}`; everything else is kept.
pub fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        let c = ch as u32;
        let hostile = ch.is_control() || matches!(c, 0x2028 | 0x2029 | 0x200E | 0x200F | 0x061C | 0x202A..=0x202E | 0x2066..=0x2069);
        if hostile {
            let _ = write!(out, "\\u{{{c:04X}}}");
        } else {
            out.push(ch);
        }
    }
    out
}

/// [`clean`], then Markdown's own syntax escaped (tables, emphasis, links, code, HTML, mentions).
pub fn md(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for ch in clean(s).chars() {
        match ch {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '@' => out.push_str("&#64;"),
            '|' => out.push_str("\\|"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '#' | '!' | '~' | '{' | '}' | '+' | '-' | '.' => {
                out.push('\\');
                out.push(ch);
            }
            c => out.push(c),
        }
    }
    out
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn counts(c: &Counts) -> String {
    format!(
        "{}, {}, {}, {}",
        plural(c.categories, TargetEntity::Category.as_str(), "categories"),
        plural(c.products, TargetEntity::Product.as_str(), "products"),
        plural(c.modifier_groups, "modifier group", "modifier groups"),
        plural(c.options, "option", "options")
    )
}

fn entity(e: Entity) -> &'static str {
    match e {
        Entity::Category => TargetEntity::Category.as_str(),
        Entity::Product => TargetEntity::Product.as_str(),
        Entity::ModifierGroup => "modifier group",
        Entity::Option => "option",
    }
}

fn change(c: Change) -> &'static str {
    match c {
        Change::Created => "created",
        Change::Updated => "updated",
        Change::Deactivated => "deactivated",
        Change::Ambiguous => "ambiguous",
    }
}

fn value(v: &Option<serde_json::Value>) -> String {
    match v {
        None => "(absent)".into(),
        Some(v) => v.to_string(),
    }
}

/// `BURGER-1 "Classic burger"` (raw: the caller escapes).
fn label(e: &Entry) -> String {
    let mut s = String::new();
    if let Some(c) = e.remote_code.as_deref().or(e.code.as_deref()) {
        s.push_str(c);
    }
    if let Some(n) = &e.name {
        if !s.is_empty() {
            s.push(' ');
        }
        let _ = write!(s, "\"{n}\"");
    }
    if let Some(p) = &e.parent {
        let _ = write!(s, " in {p}");
    }
    s
}

fn field_line(c: &FieldChange) -> String {
    let mut s = format!("{}: {} → {}", c.field, value(&c.old), value(&c.new));
    if let Some(n) = &c.note {
        let _ = write!(s, " ({n})");
    }
    s
}

fn verdict(d: &MenuDiff) -> String {
    let s = &d.summary;
    format!(
        "deactivation: {} of {} active products ({}), threshold {}: {}",
        s.deactivated.products,
        s.active_products,
        percent(s.deactivated_share),
        percent(s.threshold),
        if s.above_threshold {
            "ABOVE: PUT /api/v1/menu answers 409 unless confirmLargeDeactivation=true (the service's threshold is not shown)"
        } else {
            "below"
        }
    )
}

fn report_text(out: &mut String, report: &Report, file: &str) {
    for d in &report.diagnostics {
        let _ = writeln!(out, "{}:{}:{} {} {} {}", clean(file), d.line, d.column, d.severity.as_str(), d.rule_id, clean(&d.message));
        if !d.path.is_empty() {
            let _ = writeln!(out, "    at {}", clean(&d.path));
        }
        if let Some(h) = &d.help {
            let _ = writeln!(out, "    help: {}", clean(h));
        }
    }
}

/// Plain text: the counts, the verdict, one line per entry with its field changes, then the
/// diagnostics of both sides.
pub fn text(d: &MenuDiff, current_file: &str, next_file: &str) -> String {
    let mut out = String::new();
    let (cf, nf) = (clean(current_file), clean(next_file));
    let _ = writeln!(out, "menu diff: {nf} against the store menu {cf}");
    if !d.compared {
        let _ = writeln!(out, "not compared: one side could not be read as a menu (see the diagnostics below)");
    } else {
        let s = &d.summary;
        let _ = writeln!(out, "created:     {}", counts(&s.created));
        let _ = writeln!(out, "updated:     {}", counts(&s.updated));
        let _ = writeln!(out, "deactivated: {}", counts(&s.deactivated));
        let _ = writeln!(out, "unchanged:   {}", counts(&s.unchanged));
        if s.ambiguous.total() > 0 {
            let _ = writeln!(out, "ambiguous:   {}", counts(&s.ambiguous));
        }
        if s.store_local_products > 0 {
            let _ = writeln!(
                out,
                "store-local: {} (not in the master catalog; what PUT /menu does to them is not shown)",
                plural(s.store_local_products, TargetEntity::Product.as_str(), "products")
            );
        }
        let _ = writeln!(out, "{}", verdict(d));
        if s.would_be_refused {
            let _ = writeln!(out, "the submission has lint errors: the service would refuse it (422) as it is");
        }
        if !d.entries.is_empty() {
            out.push('\n');
        }
        for e in &d.entries {
            let file = if e.side == Side::Next { &nf } else { &cf };
            let _ = writeln!(out, "{file}:{}:{} {} {} {}", e.line, e.column, change(e.change), entity(e.entity), clean(&label(e)));
            for c in &e.changes {
                let _ = writeln!(out, "    {}", clean(&field_line(c)));
            }
            if let Some(n) = &e.note {
                let _ = writeln!(out, "    note: {}", clean(n));
            }
        }
        if let Some(t) = &d.truncated {
            let _ = writeln!(out, "… {} more changes not listed (maxEntries)", t.total - t.shown);
        }
    }
    if !d.next.diagnostics.is_empty() || !d.current.diagnostics.is_empty() {
        out.push('\n');
    }
    report_text(&mut out, &d.next, next_file);
    report_text(&mut out, &d.current, current_file);
    out
}

/// Markdown for a pull-request comment: a counts table, the verdict, a table of changes, the
/// diagnostics in a collapsed section, and what the matching rests on.
pub fn markdown(d: &MenuDiff, current_file: &str, next_file: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### Menu diff: {} against the store menu {}\n", md(next_file), md(current_file));
    if !d.compared {
        let _ = writeln!(out, "**Not compared:** one side could not be read as a menu (see the diagnostics below).\n");
    } else {
        let s = &d.summary;
        let _ = writeln!(out, "| | categories | products | modifier groups | options |\n|---|---:|---:|---:|---:|");
        for (name, c) in [
            ("created", &s.created),
            ("updated", &s.updated),
            ("deactivated", &s.deactivated),
            ("unchanged", &s.unchanged),
            ("ambiguous", &s.ambiguous),
        ] {
            let _ = writeln!(out, "| {name} | {} | {} | {} | {} |", c.categories, c.products, c.modifier_groups, c.options);
        }
        out.push('\n');
        let icon = if s.above_threshold { "⚠️" } else { "✅" };
        let _ = writeln!(out, "{icon} {}\n", md(&verdict(d)));
        if s.store_local_products > 0 {
            let _ = writeln!(
                out,
                "{} store\\-local products (origin: store) are outside the master catalog: what PUT /menu does to them is not shown\\.\n",
                s.store_local_products
            );
        }
        if s.would_be_refused {
            let _ = writeln!(out, "❌ The submission has lint errors: the service would refuse it \\(422\\) as it is\\.\n");
        }
        if !d.entries.is_empty() {
            let _ = writeln!(out, "| change | entity | item | where | fields |\n|---|---|---|---|---|");
            for e in &d.entries {
                let file = if e.side == Side::Next { next_file } else { current_file };
                let mut fields: Vec<String> = e.changes.iter().map(|c| md(&field_line(c))).collect();
                if let Some(n) = &e.note {
                    fields.push(md(n));
                }
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {}:{}:{} | {} |",
                    change(e.change),
                    entity(e.entity),
                    md(&label(e)),
                    md(file),
                    e.line,
                    e.column,
                    fields.join("<br>")
                );
            }
            out.push('\n');
        }
        if let Some(t) = &d.truncated {
            let _ = writeln!(out, "… {} more changes not listed \\(maxEntries\\)\\.\n", t.total - t.shown);
        }
    }
    let n = d.next.diagnostics.len() + d.current.diagnostics.len();
    if n > 0 {
        let _ = writeln!(out, "<details><summary>{}</summary>\n", plural(n, "diagnostic", "diagnostics"));
        for (report, file) in [(&d.next, next_file), (&d.current, current_file)] {
            for x in &report.diagnostics {
                let _ = writeln!(
                    out,
                    "- **{}** {} {}:{}:{} {}",
                    x.severity.as_str(),
                    md(x.rule_id),
                    md(file),
                    x.line,
                    x.column,
                    md(&x.message)
                );
            }
        }
        out.push_str("\n</details>\n\n");
    }
    out.push_str("<details><summary>What the matching rests on</summary>\n\n");
    for b in d.basis {
        let basis = match b.basis {
            super::Basis::Stated => "stated",
            super::Basis::Derived => "derived",
            super::Basis::Assumed => "assumed",
        };
        let _ = writeln!(out, "- {}: {} \\({basis}: {}\\)", md(b.topic), md(b.rule), md(b.source));
    }
    out.push_str("\n</details>\n");
    out
}
