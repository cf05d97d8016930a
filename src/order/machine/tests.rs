use super::*;

#[test]
fn row_ids_are_unique_and_kebab_case() {
    for (i, r) in ROWS.iter().enumerate() {
        assert!(r.id.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'), "{}", r.id);
        assert!(ROWS[i + 1..].iter().all(|o| o.id != r.id), "duplicate row {}", r.id);
        assert!(!r.spec.is_empty() && !r.trigger_text.is_empty() && !r.label.is_empty(), "{}", r.id);
    }
}

#[test]
fn accepted_is_never_a_target_nor_a_source() {
    for r in ROWS {
        assert_ne!(r.to, Some(Status::Accepted), "{}", r.id);
        assert!(!r.from.contains(&Status::Accepted) && !r.from_candidates.contains(&Status::Accepted), "{}", r.id);
    }
    let m = machine();
    let accepted = m.states.iter().find(|s| s.name == ACCEPTED).unwrap();
    assert!(!accepted.observable && !accepted.terminal);
    assert_eq!(m.states.iter().filter(|s| !s.observable).count(), 1);
}

#[test]
fn allowed_transitions_match_the_spec() {
    assert_eq!(allowed_transitions(Status::Ready), vec![Status::HandedOver]);
    assert_eq!(allowed_transitions(Status::Pending), vec![Status::Preparing, Status::Rejected]);
    assert_eq!(allowed_transitions(Status::Preparing), vec![Status::Ready]);
    for t in [Status::HandedOver, Status::Rejected, Status::Cancelled] {
        assert!(allowed_transitions(t).is_empty(), "{t}");
    }
    let m = machine();
    // "Rejected is terminal"; the table has HandedOver → Cancelled (refund or incident).
    let terminal: Vec<_> = m.states.iter().filter(|s| s.terminal).map(|s| s.name).collect();
    assert_eq!(terminal, vec![REJECTED, CANCELLED]);
    let no_merchant_action: Vec<_> = m.states.iter().filter(|s| !s.merchant_action_left).map(|s| s.name).collect();
    assert_eq!(no_merchant_action, vec![HANDED_OVER, REJECTED, CANCELLED]);
    assert_eq!(m.states.iter().find(|s| s.name == REJECTED).unwrap().terminal_basis, Basis::Stated);
}

#[test]
fn normalization() {
    assert_eq!(normalize_write("handed_over"), Some(Status::HandedOver));
    assert_eq!(normalize_write("ready"), Some(Status::Ready));
    assert_eq!(normalize_write("preparing"), Some(Status::Preparing));
    assert_eq!(normalize_write("cancelled"), None);
    assert_eq!(normalize_write("Ready"), None);
}

#[test]
fn unknown_from_rows_name_no_stated_state() {
    for r in ROWS {
        assert_eq!(r.from_unknown, r.from.is_empty(), "{}", r.id);
        assert_eq!(r.from_unknown, !r.from_candidates.is_empty(), "{}", r.id);
        if r.from_unknown {
            assert!(!r.unknown.is_empty(), "{} must say what is not shown", r.id);
        }
    }
    let m = machine();
    assert!(m.unknowns.iter().any(|u| u.row == Some("cancellation-by-service")));
    assert!(m.unknowns.len() >= ROWS.iter().map(|r| r.unknown.len()).sum::<usize>());
}

#[test]
fn machine_serializes_in_camel_case() {
    let v = serde_json::to_value(machine()).unwrap();
    assert_eq!(v["rows"][0]["trigger"]["kind"], "action");
    assert_eq!(v["rows"][0]["fromUnknown"], false);
    assert_eq!(v["states"][1]["observable"], false);
    assert_eq!(v["writeVocabulary"][2]["normalizesTo"], "HandedOver");
}
