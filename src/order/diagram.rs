//! The state diagram, generated from [`machine`](super::machine()): one node per observable state,
//! one edge per (from, to) pair of the transition rows, labelled by trigger; edges whose from-state
//! the spec does not show are dashed arcs. Standalone SVG with classes for the page to style
//! (presentation attributes give it a readable default look), no script, no external reference.

use super::machine::{machine, Basis, Machine, RowKind};
use std::fmt::Write as _;

const MARGIN: i32 = 30;
const TOP: i32 = 120;
const COL: i32 = 260;
const LANE: i32 = 150;
const NODE_W: i32 = 120;
const NODE_H: i32 = 44;

/// Escapes text for SVG/XML text and attribute values.
use crate::format::escape_xml as esc;

#[derive(Debug)]
struct Node {
    name: &'static str,
    rank: i32,
    lane: i32,
    terminal: bool,
}

impl Node {
    fn x(&self) -> i32 {
        MARGIN + self.rank * COL
    }
    fn y(&self) -> i32 {
        TOP + self.lane * LANE
    }
}

#[derive(Debug)]
struct Edge {
    from: &'static str,
    to: &'static str,
    unknown: bool,
    basis: Basis,
    labels: Vec<&'static str>,
    rows: Vec<&'static str>,
    titles: Vec<String>,
    /// Index of the unknown row this edge comes from (side and depth of its arc).
    unknown_row: usize,
}

fn layout(m: &Machine) -> Vec<Node> {
    let names: Vec<&'static str> = m.states.iter().filter(|s| s.observable).map(|s| s.name).collect();
    // Longest path from the initial state over the rows whose from-states are stated.
    let mut rank: Vec<i32> = names.iter().map(|n| if *n == m.initial { 0 } else { -1 }).collect();
    for _ in 0..names.len() {
        for row in m.rows.iter().filter(|r| r.kind == RowKind::Transition && !r.from_unknown) {
            let Some(to) = row.to.map(|t| t.as_str()) else { continue };
            let Some(ti) = names.iter().position(|n| *n == to) else {
                continue;
            };
            for from in row.from.iter().map(|f| f.as_str()) {
                if let Some(fi) = names.iter().position(|n| *n == from) {
                    if rank[fi] >= 0 && rank[fi] + 1 > rank[ti] && from != to {
                        rank[ti] = (rank[fi] + 1).min(names.len() as i32);
                    }
                }
            }
        }
    }
    let mut lanes_used: Vec<i32> = Vec::new();
    names
        .iter()
        .zip(rank)
        .map(|(&name, r)| {
            let r = r.max(0);
            let lane = lanes_used.iter().filter(|&&x| x == r).count() as i32;
            lanes_used.push(r);
            // Drawn as an end state: no merchant action is left (terminal or not).
            let terminal = m.states.iter().any(|s| s.name == name && !s.merchant_action_left);
            Node { name, rank: r, lane, terminal }
        })
        .collect()
}

fn edges(m: &Machine) -> Vec<Edge> {
    let mut out: Vec<Edge> = Vec::new();
    let mut unknown_index = 0usize;
    for row in m.rows.iter().filter(|r| r.kind == RowKind::Transition) {
        let Some(to) = row.to.map(|t| t.as_str()) else { continue };
        let froms = if row.from_unknown { row.from_candidates } else { row.from };
        let title = format!(
            "{}: {}{}{}",
            row.id,
            row.trigger_text,
            row.condition_text.map(|c| format!(" ({c})")).unwrap_or_default(),
            row.through.map(|t| format!("; passes through {t}, never observable")).unwrap_or_default()
        );
        for from in froms.iter().map(|f| f.as_str()) {
            if let Some(e) = out.iter_mut().find(|e| e.from == from && e.to == to && e.unknown == row.from_unknown) {
                e.labels.push(row.label);
                e.rows.push(row.id);
                e.titles.push(title.clone());
                e.basis = e.basis.max(row.basis);
            } else {
                out.push(Edge {
                    from,
                    to,
                    unknown: row.from_unknown,
                    basis: row.basis,
                    labels: vec![row.label],
                    rows: vec![row.id],
                    titles: vec![title.clone()],
                    unknown_row: unknown_index,
                });
            }
        }
        if row.from_unknown {
            unknown_index += 1;
        }
    }
    out
}

/// The state diagram as a standalone SVG. `highlight` is a path of states (e.g. the statuses an
/// order went through, from [`history_path`](super::history_path)): those states and the edges
/// between consecutive ones get the class `hl`.
pub fn diagram_svg(highlight: &[&str]) -> String {
    let m = machine();
    let nodes = layout(&m);
    let edges = edges(&m);
    let max_rank = nodes.iter().map(|n| n.rank).max().unwrap_or(0);
    let max_lane = nodes.iter().map(|n| n.lane).max().unwrap_or(0);
    let width = MARGIN * 2 + max_rank * COL + NODE_W;
    let legend_y = TOP + max_lane * LANE + NODE_H + 40;
    let height = legend_y + 64;
    let hl_state = |s: &str| highlight.contains(&s);
    let on_path = |from: &str, to: &str| highlight.windows(2).any(|w| w[0] == from && w[1] == to);
    // A step of the path is drawn on the stated edge when there is one, else on the unknown arc.
    let hl_edge = |e: &Edge| on_path(e.from, e.to) && (!e.unknown || !edges.iter().any(|o| !o.unknown && o.from == e.from && o.to == e.to));
    let node = |name: &str| nodes.iter().find(|n| n.name == name);

    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="order-machine" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" aria-labelledby="order-machine-title" font-family="system-ui, sans-serif" font-size="12">"#
    );
    let _ = write!(s, r#"<title id="order-machine-title">Order states and transitions (generated from the transition table)</title>"#);
    s.push_str(r##"<defs><marker id="order-machine-arrow" class="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#444"/></marker><marker id="order-machine-arrow-hl" class="arrow hl" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#c2410c"/></marker></defs>"##);

    // Edges first, so nodes are drawn over their ends.
    let mut labelled_unknown_rows: Vec<usize> = Vec::new();
    for e in &edges {
        let (Some(a), Some(b)) = (node(e.from), node(e.to)) else {
            continue;
        };
        let hl = hl_edge(e);
        let mut class = format!("edge {}", if e.unknown { "unknown" } else { e.basis.as_str() });
        if hl {
            class.push_str(" hl");
        }
        let (path, lx, ly, anchor) = if e.unknown {
            // An arc: below the lane for the first unknown row, above for the next, alternating.
            let below = e.unknown_row % 2 == 0;
            let dist = (b.rank - a.rank).abs().max(1);
            let depth = 30 + 26 * dist;
            let (sx, tx) = (a.x() + NODE_W / 2, b.x() + NODE_W / 2);
            let (sy, ty, cy) = if below {
                (a.y() + NODE_H, b.y() + NODE_H, a.y().max(b.y()) + NODE_H + depth)
            } else {
                (a.y(), b.y(), a.y().min(b.y()) - depth)
            };
            let lowest = (sy + ty) / 8 + cy * 3 / 4;
            let ly = if below { lowest + 14 } else { lowest - 6 };
            (format!("M{sx},{sy} C{sx},{cy} {tx},{cy} {tx},{ty}"), (sx + tx) / 2, ly, "middle")
        } else if a.lane == b.lane {
            let (sx, tx) = if a.x() < b.x() { (a.x() + NODE_W, b.x()) } else { (a.x(), b.x() + NODE_W) };
            let y = a.y() + NODE_H / 2;
            (format!("M{sx},{y} L{tx},{y}"), (sx + tx) / 2, y - 8, "middle")
        } else {
            let (sx, sy) = (a.x() + NODE_W / 2, if b.y() > a.y() { a.y() + NODE_H } else { a.y() });
            let (tx, ty) = (b.x(), b.y() + NODE_H / 2);
            (format!("M{sx},{sy} L{sx},{ty} L{tx},{ty}"), sx + 8, (sy + ty) / 2, "start")
        };
        let marker = if hl { "order-machine-arrow-hl" } else { "order-machine-arrow" };
        let (stroke, dash, sw) = match (hl, e.unknown) {
            (true, _) => ("#c2410c", if e.unknown { r#" stroke-dasharray="6 4""# } else { "" }, "2.5"),
            (false, true) => ("#888", r#" stroke-dasharray="6 4""#, "1.2"),
            (false, false) => ("#444", "", "1.5"),
        };
        let _ = write!(
            s,
            r#"<g class="{class}" data-from="{}" data-to="{}" data-rows="{}"><title>{}</title><path d="{path}" fill="none" stroke="{stroke}" stroke-width="{sw}"{dash} marker-end="url(#{marker})"/>"#,
            esc(e.from),
            esc(e.to),
            esc(&e.rows.join(" ")),
            esc(&e.titles.join("\n"))
        );
        let show_label = !e.unknown || !labelled_unknown_rows.contains(&e.unknown_row);
        if show_label {
            if e.unknown {
                labelled_unknown_rows.push(e.unknown_row);
            }
            let n = e.labels.len() as i32;
            let _ = write!(s, r##"<text class="edge-label" x="{lx}" y="{ly}" text-anchor="{anchor}" fill="#333">"##);
            for (i, label) in e.labels.iter().enumerate() {
                let text = if e.unknown { format!("{label} (from-state not shown)") } else { (*label).to_string() };
                // Stack several labels upwards from the line.
                let dy = if i == 0 { -(n - 1) * 14 } else { 14 };
                let _ = write!(s, r#"<tspan x="{lx}" dy="{dy}">{}</tspan>"#, esc(&text));
            }
            s.push_str("</text>");
        }
        s.push_str("</g>");
    }

    for n in &nodes {
        let mut class = String::from("state");
        if n.name == m.initial {
            class.push_str(" initial");
        }
        if m.states.iter().any(|s| s.name == n.name && s.terminal) {
            class.push_str(" terminal");
        } else if n.terminal {
            class.push_str(" no-merchant-action");
        }
        let hl = hl_state(n.name);
        if hl {
            class.push_str(" hl");
        }
        let doc = m.states.iter().find(|s| s.name == n.name).map_or("", |s| s.doc);
        let (fill, stroke, sw) = if hl { ("#ffedd5", "#c2410c", "2.5") } else { ("#ffffff", "#333", "1.5") };
        let _ = write!(
            s,
            r##"<g class="{class}" data-state="{name}"><title>{name}: {doc}</title><rect x="{x}" y="{y}" width="{NODE_W}" height="{NODE_H}" rx="{rx}" fill="{fill}" stroke="{stroke}" stroke-width="{sw}"/><text class="state-name" x="{cx}" y="{ty}" text-anchor="middle" font-weight="600" fill="#111">{name}</text>"##,
            name = esc(n.name),
            doc = esc(doc),
            x = n.x(),
            y = n.y(),
            rx = if n.terminal { 4 } else { 16 },
            cx = n.x() + NODE_W / 2,
            ty = n.y() + if n.terminal { 19 } else { 27 },
        );
        if n.terminal {
            // Terminal for the POS; a service row may still leave it (HandedOver → Cancelled).
            let left_by_service = edges.iter().any(|e| e.from == n.name && !e.unknown);
            let note = if left_by_service { "no merchant action left" } else { "terminal" };
            let _ = write!(
                s,
                r##"<text class="state-note" x="{}" y="{}" text-anchor="middle" font-size="10" fill="#555">{note}</text>"##,
                n.x() + NODE_W / 2,
                n.y() + 34
            );
        }
        s.push_str("</g>");
    }

    // Legend: generated from the states that are not observable and from the line styles.
    let lx = MARGIN;
    let _ = write!(
        s,
        r##"<g class="legend"><path d="M{lx},{legend_y} l40,0" stroke="#444" stroke-width="1.5"/><text x="{}" y="{}" fill="#333">stated or derived from the spec</text>"##,
        lx + 48,
        legend_y + 4
    );
    let _ = write!(
        s,
        r##"<path d="M{},{legend_y} l40,0" stroke="#888" stroke-width="1.2" stroke-dasharray="6 4"/><text x="{}" y="{}" fill="#333">from-state not shown in the spec (unknown)</text>"##,
        lx + 300,
        lx + 348,
        legend_y + 4
    );
    for (i, st) in m.states.iter().filter(|st| !st.observable).enumerate() {
        let _ = write!(
            s,
            r##"<text class="legend-note" x="{lx}" y="{}" fill="#555">{}: {}</text>"##,
            legend_y + 26 + 16 * i as i32,
            esc(st.name),
            esc(st.doc)
        );
    }
    s.push_str(r##"<text class="legend-note" x=""##);
    let _ = write!(
        s,
        r##"{lx}" y="{}" fill="#555">A driver is not a status: assignments and releases never move it.</text></g>"##,
        legend_y + 42
    );
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests;
