//! The receiver's check of a common delivery allocates nothing once a first parse has run on the
//! thread (issue 30: in wasm, each allocation is a call into dlmalloc, and fresh memory per delivery
//! is memory the caches lose between deliveries). Counted per thread by this binary's allocator, so
//! that the test harness's own threads do not count.

use poscheck::receiver::{payload_clean, route, Routing};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded to the system allocator unchanged; the counter is a
// const-initialized thread-local, which allocates nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn allocations_of(f: impl FnOnce() -> bool) -> (bool, usize) {
    let before = ALLOCATIONS.with(Cell::get);
    let out = f();
    (out, ALLOCATIONS.with(Cell::get) - before)
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/fixtures/payload/{path}", env!("CARGO_MANIFEST_DIR"))).expect("fixture")
}

#[test]
fn a_clean_delivery_is_checked_without_allocating() {
    // A percent-encoded parameter too: the route holds it decoded, and the check borrows it.
    for path in ["/v1/order/store-1", "/v1/order/store%2D1"] {
        let body = read("order-created.delivery.valid.json");
        let Routing::Matched { route } = route("POST", path, "") else { panic!("{path} is a route") };
        // The first parse on this thread makes the arena and the stacks kept for the next ones.
        assert!(payload_clean(&route, &body), "{path}: the fixture is clean");
        let (clean, n) = allocations_of(|| payload_clean(&route, &body));
        assert!(clean);
        assert_eq!(n, 0, "{path}: allocations of a second check");
    }
    // A body that is not clean is still answered (false) and the next clean one allocates nothing.
    let Routing::Matched { route } = route("POST", "/v1/order/store-1", "") else { panic!() };
    assert!(!payload_clean(&route, b"{\"displayCode\": 1}"));
    let body = read("order-created.delivery.valid.json");
    assert!(payload_clean(&route, &body));
    assert_eq!(allocations_of(|| payload_clean(&route, &body)).1, 0);
}
