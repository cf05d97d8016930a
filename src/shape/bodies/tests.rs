use super::*;

#[test]
fn hh_mm() {
    for ok in ["00:00", "09:30", "23:59"] {
        assert!(is_hh_mm(ok), "{ok}");
    }
    for bad in ["24:00", "9:30", "09:60", "0930", "09:3a", ""] {
        assert!(!is_hh_mm(bad), "{bad}");
    }
}

#[test]
fn shipped_table_follows_the_restrictions() {
    // available is not shipped in brand scope for product and modifierOption.
    assert!(!SHIPPED.iter().any(|(_, f, s, _)| *f == "available" && *s == "brand"));
    // category and modifierGroup are brand-only.
    assert!(SHIPPED.iter().filter(|(e, _, _, _)| matches!(*e, "category" | "modifierGroup")).all(|x| x.2 == "brand"));
    // pendingCustomerRollout exactly on modifierOption price and name in store scope.
    let pending: Vec<_> = SHIPPED.iter().filter(|x| x.3).map(|x| (x.0, x.1, x.2)).collect();
    assert_eq!(pending, [("modifierOption", "price", "store"), ("modifierOption", "name", "store")]);
    assert!(is_remote_code("BURGER-1.a:b_c") && !is_remote_code("a b") && !is_remote_code(&"x".repeat(101)));
}
