//! The menu half of the service model: each brand's master catalog, each store's overrides and
//! local products, the store menu read computed from them, and the asynchronous menu changes with
//! their completion webhook ("Menu scopes and async model", "Menu endpoints", "Rules for PUT
//! /menu", "Store menu", "Menu change", "Capability entry", "MenuChangeCompletedWebhook").
//!
//! Requests reach it after the same pipeline as the order endpoints (key, faults, rate limits,
//! [`validate_request`](crate::payload::validate_request) with the menu linter for `PUT /menu`
//! and `POST /menu/preview`, idempotency). What the contract does not show is assumed, each in
//! [`Options`](super::Options) or below, and listed in the README:
//!
//! - the brand of a `PUT /menu` (the request names none): the client's first store's brand;
//! - how uploads match what is there: products by `remoteCode`, options by `remoteCode` within
//!   their group, categories by name, modifier groups by name (the remoteCodes of categories and
//!   groups are not preserved, stated) — the one menu matcher,
//!   [`match_level`](crate::menu::diff::match_level), which `diffMenu` calls too, so that it
//!   predicts what the read shows after the upload; the catalog passes what it knows beyond the
//!   read (deactivated items' keys, groups' remoteCodes) as its `Known` input, which decides
//!   what the diff calls ambiguous;
//! - deactivated items leave the store menu read (a later upload that names them again brings
//!   them back with their codes);
//! - the large-deactivation share: deactivated brand products over active brand products, above
//!   `deactivationThreshold` (default the diff's [`DEFAULT_THRESHOLD`](crate::menu::diff::DEFAULT_THRESHOLD)),
//!   computed by the diff's own [`deactivation_share`](crate::menu::diff::deactivation_share);
//! - a brand product's channels: delivery and pickup; the override precedence: unavailable,
//!   scheduled, channel, value; schedules in UTC;
//! - `pendingCustomerRollout` combinations are persisted (the catalog control shows them) and
//!   not shown in the store menu read;
//! - the `data` of `PUT /menu` and `POST /menu/preview` (not shown): the counts of the upload, and
//!   for preview the diff's entries and `warnings[]`;
//! - error codes of failed rows beyond `UNKNOWN_CATEGORY`: `UNKNOWN_TARGET`, `DUPLICATE_CODE`,
//!   `STORE_UNAVAILABLE` (a failure a test injects).

use crate::service::Service;
use serde_json::Value;

mod changes;
mod read;
mod rest;
mod state;
mod upload;

pub use changes::MAX_CHANGE_ROWS;
pub use state::{
    Catalog, Category, ChangeOp, Group, MenuChange, MenuState, ModifierOption, Override, Product, ResultRow, StoreLayer, Window,
};
pub use upload::UploadCounts;

/// Menu changes kept at most (the oldest applied ones go first).
pub const MAX_MENU_CHANGES: usize = 10_000;

/// Deactivated items a brand's catalog keeps per kind (categories, products, groups, and options
/// per group), so that an upload naming them again brings them back with their codes; past it the
/// oldest are forgotten. Without a bound, uploads of new codes would grow the catalog forever.
pub const MAX_DEACTIVATED: usize = 100_000;

/// Local products a store holds at most (a creation past it fails with `LIMIT`).
pub const MAX_LOCAL_PRODUCTS: usize = 10_000;

pub(super) fn code(ids: &mut crate::service::Ids, prefix: &str) -> String {
    format!("{prefix}_{}", ids.base62(12))
}

/// A JSON tree the menu reads: serde_json's (change bodies) or the toolkit's positioned parser's
/// (a whole submission: parsed about 6× faster than into serde_json's `Value`).
pub(super) trait Node: Sized {
    fn field(&self, k: &str) -> Option<&Self>;
    fn text(&self) -> Option<&str>;
    fn num(&self) -> Option<f64>;
    fn int(&self) -> Option<i64>;
    fn items(&self) -> &[Self];
    fn flag(&self) -> Option<bool>;
}

impl Node for Value {
    fn field(&self, k: &str) -> Option<&Self> {
        self.get(k)
    }
    fn text(&self) -> Option<&str> {
        self.as_str()
    }
    fn num(&self) -> Option<f64> {
        self.as_f64()
    }
    fn int(&self) -> Option<i64> {
        self.as_i64().or_else(|| self.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9e15).map(|f| f as i64))
    }
    fn items(&self) -> &[Self] {
        self.as_array().map_or(&[], Vec::as_slice)
    }
    fn flag(&self) -> Option<bool> {
        self.as_bool()
    }
}

impl<'a> Node for crate::json::Value<'a> {
    fn field(&self, k: &str) -> Option<&Self> {
        self.get(k)
    }
    fn text(&self) -> Option<&str> {
        self.as_str()
    }
    fn num(&self) -> Option<f64> {
        self.as_number().map(|n| n.value).filter(|v| v.is_finite())
    }
    fn int(&self) -> Option<i64> {
        let n = self.as_number()?;
        n.as_i64().or_else(|| Some(n.value).filter(|f| f.fract() == 0.0 && f.abs() < 9e15).map(|f| f as i64))
    }
    fn items(&self) -> &[Self] {
        self.as_array().unwrap_or_default()
    }
    fn flag(&self) -> Option<bool> {
        self.as_bool()
    }
}

pub(super) fn str_of<N: Node>(v: &N, k: &str) -> Option<String> {
    v.field(k).and_then(N::text).map(str::to_string)
}

pub(super) fn f64_of<N: Node>(v: &N, k: &str) -> Option<f64> {
    v.field(k).and_then(N::num)
}

pub(super) fn i64_of<N: Node>(v: &N, k: &str) -> Option<i64> {
    v.field(k).and_then(N::int)
}

pub(super) fn arr<'v, N: Node>(v: &'v N, k: &str) -> &'v [N] {
    v.field(k).map_or(&[], N::items)
}

impl Service {
    /// The menu state as kept: catalogs, store layers, changes (JSON for the controls).
    pub fn menu_state(&self) -> &MenuState {
        &self.menu
    }

    /// The store menu read of `store` (the `data`), without a request (no rate limit spent).
    pub fn store_menu(&mut self, store: &str, now_ms: i64) -> Result<Vec<u8>, crate::service::ControlError> {
        let (client, _) = self.config.store(store).ok_or_else(|| crate::service::ControlError::NotFound(format!("no store {store}")))?;
        let a = self.menu_read(client, store, now_ms);
        Ok(a.body)
    }
}

#[cfg(test)]
mod tests;
