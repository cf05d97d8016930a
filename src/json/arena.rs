//! The arena a parse places its tree in, and the emptied arena each thread keeps for the next one.

use std::cell::Cell;

/// The largest input [`Arena::for_input`] sizes its arena for at once.
pub const ARENA_HINT_MAX: usize = 16 * 1024 * 1024;

/// Where a parse places its tree: arrays' elements, objects' members and unescaped strings. A
/// document borrows the arena it was parsed into; dropping the arena frees the whole tree.
#[derive(Default)]
pub struct Arena(pub(super) bumpalo::Bump);

impl Arena {
    /// An empty arena; its first parse allocates.
    pub fn new() -> Self {
        Self::default()
    }

    /// An arena with room for the tree of about `input_len` bytes of JSON made of small objects
    /// (the size of the event and menu trees measured against their inputs), so that such a
    /// parse allocates once. Past [`ARENA_HINT_MAX`] bytes of input the room is that of
    /// `ARENA_HINT_MAX`, and the arena grows as the tree needs: the input may be refused unread
    /// (over [`Limits::max_bytes`](super::Limits::max_bytes), not JSON at its first byte), and a hint must not reserve
    /// twice what any caller passes (in wasm32, a failed reservation would trap the module).
    pub fn for_input(input_len: usize) -> Self {
        let room = input_len.min(ARENA_HINT_MAX) * 2;
        // The arena of an earlier parse on this thread, emptied, when it has the room.
        match SPARE_ARENA.try_with(Cell::take) {
            Ok(Some(spare)) if spare.chunk_capacity() >= room => Self(spare),
            _ => Self(bumpalo::Bump::with_capacity(room)),
        }
    }

    /// Bytes the arena holds, used or not.
    pub fn allocated_bytes(&self) -> usize {
        self.0.allocated_bytes()
    }
}

/// Arenas of at most this many bytes are kept for the next parse on their thread, emptied.
const SPARE_ARENA_MAX_BYTES: usize = 64 * 1024;

thread_local! {
    /// An emptied arena for the next [`Arena::for_input`]: a parse of a small document then
    /// allocates nothing for its tree.
    static SPARE_ARENA: Cell<Option<bumpalo::Bump>> = const { Cell::new(None) };
}

impl Drop for Arena {
    fn drop(&mut self) {
        if self.0.allocated_bytes() <= SPARE_ARENA_MAX_BYTES {
            self.0.reset();
            let arena = std::mem::take(&mut self.0);
            // Past the thread's end there is no spare to keep: the arena is freed.
            let _ = SPARE_ARENA.try_with(|spare| spare.set(Some(arena)));
        }
    }
}

impl std::fmt::Debug for Arena {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Arena").field("allocated_bytes", &self.allocated_bytes()).finish()
    }
}
