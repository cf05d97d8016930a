//! The one menu matcher and the one deactivation share.
//!
//! Which item of the current tree each item of the next tree is, one level at a time (the
//! categories of the menu, its products, the modifier groups of a matched product, the options of
//! a matched group), and what share of the active catalog an upload deactivates. `diffMenu`
//! ([`diff`](super::diff)) and the sandbox's `PUT /api/v1/menu` (`crate::service::menu`) both call
//! [`match_level`] and [`deactivation_share`], so that the diff predicts what the sandbox does.
//!
//! The input is neutral: the keys of the two trees at one level, in their order (a category's
//! name, a product's remoteCode, a group's name, an option's remoteCode; [`MATCH_BASIS`] says what
//! each rests on). The rule: an item of the next tree is the current item that holds its key when
//! the key is held once on each side; a key held twice on either side is not matched (the diff
//! reports it ambiguous and does not guess).
//!
//! A caller that knows more than the store menu read (the sandbox, which holds its catalog) passes
//! that as [`Known`]: a second key per item (a deactivated item's key, a group's remoteCode) and
//! the items earlier calls took. It must then decide every item, so the matcher resolves, in the
//! next tree's order: the current item holding the key once and not yet taken, else the first
//! untaken current item holding the second key, else a new item.
//!
//! [`MATCH_BASIS`]: super::MATCH_BASIS

use std::collections::HashMap;

/// The keys of one level of the two trees, one per item in the trees' order (`None`: the item has
/// no key to be matched by).
#[derive(Debug, Clone, Copy)]
pub struct Keys<'a> {
    /// The current tree's items (the store menu read, or the catalog).
    pub current: &'a [Option<&'a str>],
    /// The next tree's items (the full submission).
    pub next: &'a [Option<&'a str>],
}

/// What a caller knows of the current side beyond the store menu read (the sandbox's catalog).
#[derive(Debug, Clone, Copy)]
pub struct Known<'a> {
    /// A second key per current item (parallel to [`Keys::current`]): what the read does not
    /// show or cannot match by (a deactivated item's key, a modifier group's remoteCode).
    pub current: &'a [Option<&'a str>],
    /// A second key per next item (parallel to [`Keys::next`]).
    pub next: &'a [Option<&'a str>],
    /// Current items taken by an earlier call (a modifier group another product matched); empty
    /// for none.
    pub taken: &'a [bool],
}

/// What a next-tree item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Match {
    /// The current item at this index.
    Matched(usize),
    /// No current item holds its key: it is new.
    Created,
    /// Its key is held by several items on one side (how many on each): not matched.
    Ambiguous {
        /// Current items holding the key.
        current: usize,
        /// Next items holding the key.
        next: usize,
    },
    /// It has no key.
    Unmatchable,
}

/// What becomes of a current-tree item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Left {
    /// The next item at this index is it.
    Matched(usize),
    /// Its key is in the next tree but held twice on one side: not classified.
    Ambiguous,
    /// Its key is not in the next tree: the upload deactivates it.
    Absent,
    /// It has no key (and no next item took it).
    Unkeyed,
}

/// The matching of one level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matching {
    /// Per next item, in order.
    pub next: Vec<Match>,
    /// Per current item, in order.
    pub current: Vec<Left>,
}

/// Key → (first index, how many).
type Multi<'a> = HashMap<&'a str, (usize, usize)>;

fn multi<'a>(work: &mut u64, keys: &[Option<&'a str>]) -> Multi<'a> {
    let mut m: Multi<'a> = HashMap::with_capacity(keys.len());
    for (i, k) in keys.iter().enumerate() {
        *work += 1;
        if let Some(k) = *k {
            m.entry(k).and_modify(|e| e.1 += 1).or_insert((i, 1));
        }
    }
    m
}

/// Matches one level: see the module's documentation. `work` counts the steps (one per key of
/// each side and one per next item), for the linear-time tests.
pub fn match_level(keys: Keys<'_>, known: Option<Known<'_>>, work: &mut u64) -> Matching {
    let cur = multi(work, keys.current);
    let mut by_next: Vec<Option<usize>> = vec![None; keys.current.len()];
    let (next, next_multi) = match known {
        None => {
            let next_multi = multi(work, keys.next);
            let next = keys
                .next
                .iter()
                .map(|k| {
                    *work += 1;
                    let Some(k) = *k else { return Match::Unmatchable };
                    let n = next_multi.get(k).map_or(0, |e| e.1);
                    match cur.get(k) {
                        Some(&(_, c)) if n > 1 || c > 1 => Match::Ambiguous { current: c, next: n },
                        None if n > 1 => Match::Ambiguous { current: 0, next: n },
                        Some(&(i, _)) => Match::Matched(i),
                        None => Match::Created,
                    }
                })
                .collect();
            (next, Some(next_multi))
        }
        Some(known) => (resolve(keys, known, &cur, work), None),
    };
    for (j, m) in next.iter().enumerate() {
        if let Match::Matched(i) = *m {
            by_next[i] = Some(j);
        }
    }
    let current = keys
        .current
        .iter()
        .zip(by_next)
        .map(|(k, taken_by)| match (taken_by, k) {
            (Some(j), _) => Left::Matched(j),
            (None, Some(k)) if next_multi.as_ref().is_some_and(|m| m.contains_key(k)) => Left::Ambiguous,
            (None, Some(_)) => Left::Absent,
            (None, None) => Left::Unkeyed,
        })
        .collect();
    Matching { next, current }
}

/// Every next item decided, in order: the current item holding its key once and not yet taken,
/// else the first untaken current item holding its second key, else new.
fn resolve(keys: Keys<'_>, known: Known<'_>, cur: &Multi<'_>, work: &mut u64) -> Vec<Match> {
    let mut second: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, k) in known.current.iter().enumerate() {
        *work += 1;
        if let Some(k) = *k {
            second.entry(k).or_default().push(i);
        }
    }
    let mut taken: Vec<bool> = (0..keys.current.len()).map(|i| known.taken.get(i).copied().unwrap_or(false)).collect();
    let mut out = Vec::with_capacity(keys.next.len());
    for (j, k) in keys.next.iter().enumerate() {
        *work += 1;
        let second_key = known.next.get(j).copied().flatten();
        let first = k.and_then(|k| cur.get(k)).filter(|&&(i, count)| count == 1 && !taken[i]).map(|&(i, _)| i);
        let pick = first.or_else(|| second_key.and_then(|k| second.get(k)).and_then(|v| v.iter().copied().find(|&i| !taken[i])));
        out.push(match pick {
            Some(i) => {
                taken[i] = true;
                Match::Matched(i)
            }
            None if k.is_none() && second_key.is_none() => Match::Unmatchable,
            None => Match::Created,
        });
    }
    out
}

/// The large-deactivation check of `PUT /api/v1/menu` ("Rules for PUT /menu", 2): the share of
/// the active catalog an upload deactivates, and whether it is above the threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Deactivation {
    /// Deactivated brand products over active brand products (0 when there are none).
    pub share: f64,
    /// The share is above the threshold: the service answers 409 unless
    /// `confirmLargeDeactivation=true` is sent.
    pub above: bool,
}

/// The deactivation share: `deactivated` of `active` brand products (assumed unit: the service's
/// is not shown), above `threshold` or not.
pub fn deactivation_share(deactivated: usize, active: usize, threshold: f64) -> Deactivation {
    let share = if active == 0 { 0.0 } else { deactivated as f64 / active as f64 };
    Deactivation { share, above: share > threshold }
}
