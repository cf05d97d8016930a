use super::*;
use serde_json::json;

/// The order `data` written back from its typed reading.
fn round_trip(data: Value) -> String {
    let Value::Object(map) = data else { panic!("an object") };
    serde_json::to_string(&Order::from_json(&map)).unwrap()
}

#[test]
fn an_order_given_as_json_is_written_back_byte_for_byte() {
    let data = json!({
        "orderKey": "ord_0123456789abcdef", "storeId": 7, "brandId": 3, "status": "Preparing",
        "unknownMember": {"b": 1, "a": [1.0, 2]},
        "receivedAt": "2026-01-05T10:00:00Z", "acceptedAt": "2026-01-05T10:01:00Z",
        "history": [
            {"fromStatus": null, "toStatus": "Pending", "changedAt": "2026-01-05T10:00:00Z", "actorType": "system", "actorId": null, "reason": null},
        ],
        "order": {"zeta": 1, "alpha": 2}
    });
    assert_eq!(round_trip(data.clone()), serde_json::to_string(&data).unwrap());
}

#[test]
fn a_history_row_whose_members_stand_in_another_order_is_kept_as_given() {
    // Equal as values, not as text: the row is not typed (a typed row would be written in the
    // contract's member order), so the order's text comes back unchanged.
    let rows = json!([{"toStatus": "Pending", "fromStatus": null, "changedAt": "2026-01-05T10:00:00Z", "actorType": "system", "actorId": null, "reason": null, "driver": null}]);
    let typed: Vec<HistoryRow> = ReadJson::read(&rows).expect("the row reads as a history row");
    let back = serde_json::to_value(&typed).unwrap();
    assert_eq!(back, rows, "the same value");
    assert_ne!(serde_json::to_string(&back).unwrap(), serde_json::to_string(&rows).unwrap(), "another text");
    assert!(exactly::<Vec<HistoryRow>>(&rows).is_none());
    let data = json!({"orderKey": "ord_0123456789abcdef", "status": "Pending", "history": rows});
    assert_eq!(round_trip(data.clone()), serde_json::to_string(&data).unwrap());
}

#[test]
fn same_text_tells_member_order_and_number_forms_apart() {
    assert!(same_text(&json!({"a": 1, "b": [true]}), &json!({"a": 1, "b": [true]})));
    assert!(!same_text(&json!({"a": 1, "b": 2}), &json!({"b": 2, "a": 1})));
    assert!(!same_text(&json!([{"a": 1, "b": 2}]), &json!([{"b": 2, "a": 1}])));
    assert!(!same_text(&json!(2.0), &json!(2)));
    assert!(!same_text(&json!([1]), &json!([1, 1])));
}
