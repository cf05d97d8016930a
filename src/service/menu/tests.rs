#[test]
fn deactivated_items_past_the_bound_are_forgotten_oldest_first() {
    // (id, active): products keep their oldest deactivated at the end, categories at the start.
    let items = || vec![(1, true), (2, false), (3, true), (4, false), (5, false), (6, true)];
    let mut tail = items();
    super::state::forget_past(&mut tail, |x| x.1, true, 1);
    assert_eq!(tail, [(1, true), (2, false), (3, true), (6, true)]);
    let mut head = items();
    super::state::forget_past(&mut head, |x| x.1, false, 1);
    assert_eq!(head, [(1, true), (3, true), (5, false), (6, true)]);
    let mut none = items();
    super::state::forget_past(&mut none, |x| x.1, true, 3);
    assert_eq!(none, items(), "within the bound nothing goes");
}
