use super::*;

#[test]
fn nodes_are_the_observable_states_and_edges_come_from_the_rows() {
    let svg = diagram_svg(&[]);
    let m = machine();
    for st in &m.states {
        let drawn = svg.contains(&format!(r#"data-state="{}""#, st.name));
        assert_eq!(drawn, st.observable, "{}", st.name);
    }
    for row in m.rows.iter().filter(|r| r.kind == RowKind::Transition) {
        assert!(svg.contains(row.id), "row {} not drawn", row.id);
    }
    assert!(svg.contains(r#"class="edge unknown""#));
    assert!(svg.contains("stroke-dasharray"));
    assert!(!svg.contains("<script") && !svg.contains("href") && !svg.contains("<style"));
}

#[test]
fn highlight_marks_states_and_edges_of_the_path() {
    let svg = diagram_svg(&["Pending", "Preparing", "Ready"]);
    assert!(svg.contains(r#"class="state initial hl" data-state="Pending""#));
    assert!(svg.contains(r#"class="state hl" data-state="Ready""#));
    // "Rejected is terminal"; HandedOver → Cancelled exists (refund or incident): not terminal.
    assert!(svg.contains(r#"class="state no-merchant-action" data-state="HandedOver""#));
    assert!(svg.contains(r#"class="state terminal" data-state="Rejected""#));
    assert!(svg.contains(r#"class="edge stated hl" data-from="Pending" data-to="Preparing""#));
    assert!(svg.contains(r#"class="edge stated hl" data-from="Preparing" data-to="Ready""#));
    assert!(svg.contains(r#"class="edge stated" data-from="Ready" data-to="HandedOver""#));
    // Not a path: Pending → Ready is not highlighted.
    assert!(!svg.contains(r#"data-from="Pending" data-to="Ready""#));
}

#[test]
fn a_step_with_a_stated_edge_never_lights_the_unknown_arc() {
    let svg = diagram_svg(&["Ready", "HandedOver"]);
    assert!(svg.contains(r#"class="edge stated hl" data-from="Ready" data-to="HandedOver""#));
    assert!(svg.contains(r#"class="edge unknown" data-from="Ready" data-to="HandedOver""#));
    let svg = diagram_svg(&["Pending", "Preparing", "Cancelled"]);
    assert!(svg.contains(r#"class="edge unknown hl" data-from="Preparing" data-to="Cancelled""#));
    assert!(svg.contains(r#"class="edge unknown" data-from="Pending" data-to="Cancelled""#));
}

#[test]
fn escapes_text() {
    assert_eq!(esc(r#"a<b>&"c'"#), "a&lt;b&gt;&amp;&quot;c&#39;");
    // Highlight values are compared, never written: hostile input cannot inject markup.
    let svg = diagram_svg(&["<script>", "Pending"]);
    assert!(!svg.contains("<script>"));
}

#[test]
fn svg_is_well_formed() {
    let svg = diagram_svg(&["Pending", "Rejected"]);
    // Every opened element is closed: a small tag balance check.
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg.as_str();
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let end = rest.find('>').expect("unterminated tag");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "mismatched </{name}>");
        } else if !tag.ends_with('/') {
            stack.push(tag.split_whitespace().next().unwrap().to_string());
        }
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
}
