use super::*;

#[test]
fn names_and_all_agree_and_parse_back() {
    fn check<T: Copy + PartialEq + std::fmt::Debug>(
        all: &[T],
        names: &[&str],
        as_str: fn(T) -> &'static str,
        parse: fn(&str) -> Option<T>,
    ) {
        assert_eq!(all.len(), names.len());
        for (w, n) in all.iter().zip(names) {
            assert_eq!(as_str(*w), *n);
            assert_eq!(parse(n), Some(*w));
        }
        let mut sorted: Vec<&str> = names.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len(), "a word twice in one vocabulary: {names:?}");
    }
    check(Status::ALL, Status::NAMES, Status::as_str, Status::parse);
    check(WriteStatus::ALL, WriteStatus::NAMES, WriteStatus::as_str, WriteStatus::parse);
    check(ActorType::ALL, ActorType::NAMES, ActorType::as_str, ActorType::parse);
    check(DriverEvent::ALL, DriverEvent::NAMES, DriverEvent::as_str, DriverEvent::parse);
    check(UpdateEvent::ALL, UpdateEvent::NAMES, UpdateEvent::as_str, UpdateEvent::parse);
    check(ReasonCode::ALL, ReasonCode::NAMES, ReasonCode::as_str, ReasonCode::parse);
    check(TargetEntity::ALL, TargetEntity::NAMES, TargetEntity::as_str, TargetEntity::parse);
    check(Scope::ALL, Scope::NAMES, Scope::as_str, Scope::parse);
    check(Channel::ALL, Channel::NAMES, Channel::as_str, Channel::parse);
    check(Day::ALL, Day::NAMES, Day::as_str, Day::parse);
    check(OverrideType::ALL, OverrideType::NAMES, OverrideType::as_str, OverrideType::parse);
    check(CapabilityField::ALL, CapabilityField::NAMES, CapabilityField::as_str, CapabilityField::parse);
    check(ProblemSuffix::ALL, ProblemSuffix::NAMES, ProblemSuffix::as_str, ProblemSuffix::parse);
    check(MenuChangeStatus::ALL, MenuChangeStatus::NAMES, MenuChangeStatus::as_str, MenuChangeStatus::parse);
    check(MenuChangeOutcome::ALL, MenuChangeOutcome::NAMES, MenuChangeOutcome::as_str, MenuChangeOutcome::parse);
}

#[test]
fn the_words_are_the_contracts() {
    // Spelled here as the spec spells them (service-spec.md), independently of the enums.
    assert_eq!(Status::list(), "Pending, Accepted, Preparing, Ready, HandedOver, Rejected, Cancelled");
    assert_eq!(WriteStatus::list(), "preparing, ready, handed_over");
    assert_eq!(UpdateEvent::list(), "cancelled, driver_assigned, driver_released, delivered");
    assert_eq!(
        ReasonCode::list(),
        "STORE_CLOSED, OUT_OF_OPERATING_HOURS, ITEM_NOT_OFFERED, ITEM_OUT_OF_STOCK, PRICE_MISMATCH, SYSTEM_ISSUE"
    );
    assert_eq!(ProblemSuffix::AcceptanceTimeout.type_uri(), "{problem_base}/acceptance-timeout");
    assert!(!Status::Accepted.observable());
    assert_eq!(Status::OBSERVABLE.len(), Status::ALL.len() - 1);
    assert_eq!(WriteStatus::HandedOver.read(), Status::HandedOver);
}

#[test]
fn unknown_reason_codes_become_system_issue() {
    assert_eq!(ReasonCode::normalize("PRICE_MISMATCH"), ReasonCode::PriceMismatch);
    assert_eq!(ReasonCode::normalize("price_mismatch"), ReasonCode::SystemIssue);
    assert_eq!(ReasonCode::normalize("KITCHEN_ON_FIRE"), ReasonCode::SystemIssue);
}

#[test]
fn case_insensitive_where_the_contract_says_so() {
    assert_eq!(Channel::parse_ignore_case("PickUp"), Some(Channel::Pickup));
    assert_eq!(Channel::parse("PickUp"), None);
    assert_eq!(Day::parse_ignore_case("MON"), Some(Day::Mon));
    assert_eq!(GroupType::parse_ignore_case("Radio"), Some(GroupType::Radio));
}

#[test]
fn serde_uses_the_contracts_spelling() {
    assert_eq!(serde_json::to_string(&WriteStatus::HandedOver).unwrap(), "\"handed_over\"");
    assert_eq!(serde_json::from_str::<TargetEntity>("\"localProduct\"").unwrap(), TargetEntity::LocalProduct);
    assert!(serde_json::from_str::<Status>("\"DriverAssigned\"").is_err());
}

#[test]
fn the_delivered_at_cutoff_is_2026_08_12_utc() {
    let t = crate::time::parse("2026-08-12T00:00:00Z").unwrap();
    assert_eq!(t.unix_millis, DELIVERED_AT_CUTOFF_UNIX * 1000);
}

#[test]
fn words_json_keys_each_word_by_its_variant() {
    let v: serde_json::Value = serde_json::from_str(&words_json()).unwrap();
    assert_eq!(v["Status"]["HandedOver"], "HandedOver");
    assert_eq!(v["WriteStatus"]["HandedOver"], "handed_over");
    assert_eq!(v["TargetEntity"]["LocalProduct"], "localProduct");
    assert_eq!(v["merchantDone"], serde_json::json!(["HandedOver", "Rejected", "Cancelled"]));
    assert_eq!(v["limits"]["answerBudgetMs"], 30_000);
}
