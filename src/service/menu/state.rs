//! The menu state: each brand's master catalog, each store's overrides and local products, and
//! the menu changes.

use super::MAX_DEACTIVATED;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, HashMap};

/// Drops deactivated items past [`MAX_DEACTIVATED`]: those nearest the end when `oldest_last`,
/// else those nearest the start.
pub(super) fn forget_deactivated<T>(items: &mut Vec<T>, active: impl Fn(&T) -> bool, oldest_last: bool) {
    forget_past(items, active, oldest_last, MAX_DEACTIVATED);
}

pub(super) fn forget_past<T>(items: &mut Vec<T>, active: impl Fn(&T) -> bool, oldest_last: bool, max: usize) {
    let inactive = items.iter().filter(|x| !active(x)).count();
    let mut drop = inactive.saturating_sub(max);
    if drop == 0 {
        return;
    }
    if oldest_last {
        items.reverse();
    }
    items.retain(|x| {
        if drop > 0 && !active(x) {
            drop -= 1;
            return false;
        }
        true
    });
    if oldest_last {
        items.reverse();
    }
}

/// A brand's master catalog.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
    /// Categories, active and deactivated.
    pub categories: Vec<Category>,
    /// Products, active and deactivated, in the order of the last upload.
    pub products: Vec<Product>,
    /// Modifier groups (shared at brand level).
    pub groups: Vec<Group>,
}

/// A category of the master catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Category {
    /// The service's code.
    pub code: String,
    /// The POS's code as last submitted (not preserved in the read, stated).
    pub remote_code: String,
    /// `name`.
    pub name: String,
    /// `position`.
    pub position: i64,
    /// `active`.
    pub active: bool,
}

/// A product: of the master catalog, or local to a store (`store` set).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Product {
    /// `code`.
    pub code: String,
    /// `remoteCode`.
    pub remote_code: String,
    /// The category's service code.
    pub category: String,
    /// `name`.
    pub name: String,
    /// `description`.
    pub description: Option<String>,
    /// `price`.
    pub price: f64,
    /// `tax`.
    pub tax: f64,
    /// `maxPerOrder`.
    pub max_per_order: i64,
    /// The re-hosted image URL.
    pub image: Option<String>,
    /// `channels`.
    pub channels: Vec<String>,
    /// Modifier groups' codes, in order.
    pub groups: Vec<String>,
    /// `active`.
    pub active: bool,
    /// The store of a local product.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
}

/// A modifier group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    /// `code`.
    pub code: String,
    /// `remoteCode`.
    pub remote_code: String,
    /// `name`.
    pub name: String,
    /// `min`.
    pub min: i64,
    /// `max`.
    pub max: i64,
    /// `type`: `radio` or `checkbox`.
    #[serde(rename = "type")]
    pub kind: String,
    /// `options`.
    pub options: Vec<ModifierOption>,
    /// `active`.
    pub active: bool,
}

/// An option of a modifier group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModifierOption {
    /// `code`.
    pub code: String,
    /// `remoteCode`.
    pub remote_code: String,
    /// `name`.
    pub name: String,
    /// `price`.
    pub price: f64,
    /// `isDefault`.
    pub is_default: bool,
    /// `maxPerOrder`.
    pub max_per_order: Option<i64>,
    /// `active`.
    pub active: bool,
}

/// A schedule override's window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Window {
    /// `days`.
    pub days: Vec<String>,
    /// `startTime`.
    pub start_time: String,
    /// `endTime`.
    pub end_time: String,
}

/// A store's overrides of one item (a product or an option, by service code).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Override {
    /// `available: false` (an `unavailable` override).
    pub unavailable: bool,
    /// `schedule`.
    pub schedule: Option<Window>,
    /// `channels`.
    pub channels: Option<Vec<String>>,
    /// `price`.
    pub price: Option<f64>,
    /// `name`.
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// Persisted, not reflected in the read (`pendingCustomerRollout`): option price and name.
    pub pending: BTreeMap<String, Value>,
}

/// A store's layer on top of its brand's catalog.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreLayer {
    /// `overrides`.
    pub overrides: BTreeMap<String, Override>,
    /// `local`.
    pub local: Vec<Product>,
}

/// A row of a change's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultRow {
    /// `storeRemoteId`.
    pub store_remote_id: Option<String>,
    /// `storeId`.
    pub store_id: Option<i64>,
    /// `targetEntity`.
    pub target_entity: String,
    /// `targetCode`.
    pub target_code: String,
    /// `applied`.
    pub applied: bool,
    /// `errorCode`.
    pub error_code: Option<String>,
    /// `errorMessage`.
    pub error_message: Option<String>,
    /// `appliedAtMs`.
    pub applied_at_ms: Option<i64>,
}

/// One change of a batch, as `POST /menu/changes` takes it (every write compiles to it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeOp {
    /// `targetEntity`.
    pub target_entity: String,
    /// `targetCode`.
    pub target_code: String,
    /// `scope`.
    pub scope: String,
    /// `categoryCode`.
    pub category_code: Option<String>,
    /// `set`.
    pub set: Map<String, Value>,
    /// The body of a local product's creation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<Value>,
}

/// A menu change (a 202's changeId).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MenuChange {
    /// `changeId`.
    pub change_id: String,
    /// `client`.
    pub client: usize,
    /// `brand`.
    pub brand: i64,
    /// `stores`.
    pub stores: Vec<String>,
    /// `ops`.
    pub ops: Vec<ChangeOp>,
    /// `submittedMs`.
    pub submitted_ms: i64,
    /// `completedMs`.
    pub completed_ms: Option<i64>,
    /// `results`.
    pub results: Vec<ResultRow>,
}

/// The menu state of the service.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct MenuState {
    /// Master catalogs by brand id.
    pub catalogs: BTreeMap<i64, Catalog>,
    /// Store layers by store remoteId.
    pub stores: BTreeMap<String, StoreLayer>,
    /// Changes, oldest first.
    pub changes: Vec<MenuChange>,
    /// Stores whose changes fail (a test's injection), with the error code.
    pub failing: BTreeMap<String, String>,
    /// The store menu reads as last written, until the menu changes.
    #[serde(skip)]
    pub(super) rendered: HashMap<String, Vec<u8>>,
}

impl MenuState {
    pub(super) fn changed(&mut self) {
        self.rendered.clear();
    }

    /// The brand catalog, created empty on first use.
    pub(super) fn catalog_mut(&mut self, brand: i64) -> &mut Catalog {
        self.rendered.clear();
        self.catalogs.entry(brand).or_default()
    }
}
