//! Onboarding (the account the sandbox plays) and the options for what the contract does not show.

use super::ids::Ids;
use crate::contract::{ANSWER_BUDGET_MS, RATE_FIXED_LIMIT, RATE_SLIDING_LIMIT, REMOTE_CODE_MAX_CHARS};
use serde::{Deserialize, Serialize};

/// The onboarding config as a test or a file gives it: `{ secret, pos, clients: [{ apiKey,
/// stores: [{ remoteId, storeId?, brandId?, autoAccept? }] }] }`. Every field is optional: what is
/// missing is generated (secret, API keys) or defaulted (one client, one brand, `STORE-1` and
/// `STORE-2` with `autoAccept: true`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConfigInput {
    /// The account's HMAC secret (one per account).
    #[serde(default)]
    pub secret: Option<String>,
    /// The POS's registered base URL.
    #[serde(default)]
    pub pos: Option<String>,
    /// The merchant clients.
    #[serde(default)]
    pub clients: Option<Vec<ClientInput>>,
}

/// One client as given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClientInput {
    /// Its API key (generated when missing).
    #[serde(default)]
    pub api_key: Option<String>,
    /// Its stores.
    #[serde(default)]
    pub stores: Vec<StoreInput>,
}

/// One store as given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StoreInput {
    /// The merchant's own code for the store.
    pub remote_id: String,
    /// Internal id (generated when missing).
    #[serde(default)]
    pub store_id: Option<i64>,
    /// Internal brand id (the client's first brand when missing).
    #[serde(default)]
    pub brand_id: Option<i64>,
    /// The service accepts orders itself when the POS answers the creation webhook with 200.
    #[serde(default)]
    pub auto_accept: Option<bool>,
}

/// The resolved account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    /// The HMAC secret.
    pub secret: String,
    /// The POS base URL (no trailing slash).
    pub pos: String,
    /// The clients.
    pub clients: Vec<Client>,
}

/// A resolved client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Client {
    /// Its API key.
    pub api_key: String,
    /// Its stores.
    pub stores: Vec<Store>,
}

/// A resolved store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Store {
    /// The merchant's code.
    pub remote_id: String,
    /// Internal id.
    pub store_id: i64,
    /// Internal brand id.
    pub brand_id: i64,
    /// Auto-accept store.
    pub auto_accept: bool,
}

/// A config that cannot be used, with a stable [`code`](Self::code).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The JSON does not have the config's shape.
    #[error("invalid sandbox config: {0}")]
    Shape(String),
    /// A value breaks a rule of onboarding.
    #[error("invalid sandbox config: {0}")]
    Rule(String),
}

impl ConfigError {
    /// `INVALID_CONFIG`.
    pub fn code(&self) -> &'static str {
        "INVALID_CONFIG"
    }
}

/// The largest config: clients, stores.
pub const MAX_CLIENTS: usize = 100;
/// Stores per client at most.
pub const MAX_STORES: usize = 1000;

impl Config {
    /// Resolves the config as given (`None`: the default), generating what is missing from `ids`.
    pub fn resolve(input: Option<ConfigInput>, ids: &mut Ids) -> Result<Self, ConfigError> {
        let input = input.unwrap_or_default();
        let secret = match input.secret {
            Some(s) if s.is_empty() => return Err(ConfigError::Rule("secret must not be empty".into())),
            Some(s) if s.len() > 1024 => return Err(ConfigError::Rule("secret is longer than 1,024 bytes".into())),
            Some(s) => s,
            None => format!("sbx_secret_{}", ids.base62(32)),
        };
        let pos = input.pos.unwrap_or_else(|| "http://127.0.0.1:3000".to_string());
        let pos = pos.trim_end_matches('/').to_string();
        if crate::check::http_url_scheme(&pos).is_none() || pos.len() > 2048 {
            return Err(ConfigError::Rule(format!(
                "pos must be an absolute http or https URL, found {:?}",
                pos.chars().take(80).collect::<String>()
            )));
        }
        let clients_in = input.clients.unwrap_or_else(|| {
            vec![ClientInput {
                api_key: None,
                stores: vec![
                    StoreInput { remote_id: "STORE-1".into(), ..Default::default() },
                    StoreInput { remote_id: "STORE-2".into(), auto_accept: Some(true), ..Default::default() },
                ],
            }]
        });
        if clients_in.is_empty() || clients_in.len() > MAX_CLIENTS {
            return Err(ConfigError::Rule(format!("clients must hold 1 to {MAX_CLIENTS} clients")));
        }
        let mut clients = Vec::new();
        let mut keys = std::collections::HashSet::new();
        let mut remote_ids = std::collections::HashSet::new();
        let mut store_ids = std::collections::HashSet::new();
        let mut next_store = 1001;
        for (ci, c) in clients_in.into_iter().enumerate() {
            let api_key = match c.api_key {
                Some(k) if k.trim().is_empty() || k.len() > 256 => {
                    return Err(ConfigError::Rule(format!("clients[{ci}].apiKey must be 1 to 256 characters")))
                }
                Some(k) => k,
                None => format!("sbx_key_{}", ids.base62(32)),
            };
            if !keys.insert(api_key.clone()) {
                return Err(ConfigError::Rule(format!("clients[{ci}].apiKey is used by another client")));
            }
            if c.stores.is_empty() || c.stores.len() > MAX_STORES {
                return Err(ConfigError::Rule(format!("clients[{ci}].stores must hold 1 to {MAX_STORES} stores")));
            }
            let brand = 71 + ci as i64;
            let mut stores = Vec::new();
            for (si, s) in c.stores.into_iter().enumerate() {
                if !crate::payload::is_remote_code(&s.remote_id) {
                    return Err(ConfigError::Rule(format!(
                        "clients[{ci}].stores[{si}].remoteId {:?}: letters, digits and _ . - :, up to {REMOTE_CODE_MAX_CHARS} characters",
                        s.remote_id.chars().take(40).collect::<String>()
                    )));
                }
                if !remote_ids.insert(s.remote_id.clone()) {
                    return Err(ConfigError::Rule(format!(
                        "clients[{ci}].stores[{si}].remoteId {:?} is used by another store",
                        s.remote_id
                    )));
                }
                let store_id = match s.store_id {
                    Some(id) => id,
                    None => {
                        while store_ids.contains(&next_store) {
                            next_store += 1;
                        }
                        next_store
                    }
                };
                if !store_ids.insert(store_id) {
                    return Err(ConfigError::Rule(format!("clients[{ci}].stores[{si}].storeId {store_id} is used by another store")));
                }
                stores.push(Store {
                    remote_id: s.remote_id,
                    store_id,
                    brand_id: s.brand_id.unwrap_or(brand),
                    auto_accept: s.auto_accept.unwrap_or(false),
                });
            }
            clients.push(Client { api_key, stores });
        }
        Ok(Self { secret, pos, clients })
    }

    /// The client of an API key.
    pub fn client_of(&self, api_key: &str) -> Option<usize> {
        self.clients.iter().position(|c| c.api_key == api_key)
    }

    /// The client and store of a store's remoteId.
    pub fn store(&self, remote_id: &str) -> Option<(usize, &Store)> {
        self.clients.iter().enumerate().find_map(|(ci, c)| c.stores.iter().find(|s| s.remote_id == remote_id).map(|s| (ci, s)))
    }
}

/// What the contract does not show, each with its assumed default (the README lists them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Options {
    /// Seconds from receivedAt to expiresAt. Not shown; assumed 300.
    pub acceptance_window_seconds: i64,
    /// Seconds after expiresAt at which the timeout job cancels a Pending order. Not shown;
    /// assumed 0 (the job runs at expiresAt).
    pub timeout_job_delay_seconds: i64,
    /// Seconds after a failed attempt at which the delivery is tried again, one entry a retry.
    /// Not shown; assumed [10, 60, 180]: 4 attempts, the last 250 s after the first, inside the
    /// assumed 300 s acceptance window (a creation webhook is not sent again once its order ended).
    pub retry_schedule_seconds: Vec<i64>,
    /// The POS's answer budget in milliseconds (stated for the creation webhook: 30 s; assumed for
    /// the others).
    pub answer_budget_ms: u64,
    /// Enforce the rate limits (stated: 100 a minute fixed, 1,000 an hour sliding, per API key).
    /// `false` for load tests.
    pub rate_limits: bool,
    /// Requests a minute (stated 100).
    pub per_minute: u32,
    /// Requests an hour (stated 1,000).
    pub per_hour: u32,
    /// The problem-type base (`{problem_base}`); clients match on the suffix.
    pub problem_base: String,
    /// Orders the sandbox holds at most (creating more is refused: reset between tests).
    pub max_orders: usize,
    /// Faults injected on the REST side.
    pub faults: Faults,
    /// Seconds from a menu write's 202 to its change being applied (and its webhook sent). Not
    /// shown; assumed 5 (the issue asks at most 60).
    pub menu_change_delay_seconds: i64,
    /// PUT /menu answers 409 when it would deactivate more than this share of the active brand
    /// products, unless confirmLargeDeactivation=true. Not shown; assumed the diff's 0.2.
    pub deactivation_threshold: f64,
    /// Image URLs containing one of these are refused with 422 "before emission", as an
    /// unreachable, non-image or oversized file would be (the sandbox fetches nothing). Assumed
    /// default: `[".invalid/"]` (the reserved top-level domain).
    pub bad_image_urls: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            acceptance_window_seconds: 300,
            timeout_job_delay_seconds: 0,
            retry_schedule_seconds: vec![10, 60, 180],
            answer_budget_ms: u64::from(ANSWER_BUDGET_MS),
            rate_limits: true,
            per_minute: RATE_FIXED_LIMIT,
            per_hour: RATE_SLIDING_LIMIT,
            problem_base: "https://sandbox.poscheck.invalid/problems".into(),
            max_orders: 100_000,
            faults: Faults::default(),
            menu_change_delay_seconds: 5,
            deactivation_threshold: crate::menu::diff::DEFAULT_THRESHOLD,
            bad_image_urls: vec![".invalid/".into()],
        }
    }
}

/// Faults injected on the REST side at the rates a test sets (each a fraction of requests, drawn
/// from the seeded generator, so a seeded run is reproducible).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Faults {
    /// Share of requests answered 429 with `Retry-After`.
    pub rate_limited: f64,
    /// The `Retry-After` of an injected 429, seconds (default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_seconds: Option<u32>,
    /// Share of requests answered 502.
    pub bad_gateway: f64,
    /// Share of requests answered 503.
    pub unavailable: f64,
    /// Share of requests answered late (the answer itself unchanged).
    pub slow: f64,
    /// How late, in milliseconds (default 2,000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slow_ms: Option<u32>,
    /// Only paths starting with this prefix get faults (e.g. `/api/v1/menu`); all when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_prefix: Option<String>,
    /// Only paths starting with this prefix get the 502s and 503s (the contract gives them on the
    /// menu endpoints only, `/api/v1/menu`, as the probe sets it); all when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_errors_prefix: Option<String>,
}

impl Options {
    /// Checks the options' ranges.
    pub fn check(&self) -> Result<(), ConfigError> {
        let bad = |m: &str| Err(ConfigError::Rule(m.to_string()));
        if !(1..=86_400).contains(&self.acceptance_window_seconds) {
            return bad("acceptanceWindowSeconds must be 1 to 86400");
        }
        if !(0..=86_400).contains(&self.timeout_job_delay_seconds) {
            return bad("timeoutJobDelaySeconds must be 0 to 86400");
        }
        if self.retry_schedule_seconds.len() > 50 || self.retry_schedule_seconds.iter().any(|s| !(0..=86_400).contains(s)) {
            return bad("retryScheduleSeconds holds at most 50 delays of 0 to 86400 seconds");
        }
        if !(1..=600_000).contains(&self.answer_budget_ms) {
            return bad("answerBudgetMs must be 1 to 600000");
        }
        if self.per_minute == 0 || self.per_hour == 0 || self.per_hour > 1_000_000 || self.per_minute > 1_000_000 {
            return bad("perMinute and perHour must be 1 to 1000000");
        }
        if self.max_orders == 0 || self.max_orders > 1_000_000 {
            return bad("maxOrders must be 1 to 1000000");
        }
        if !(0..=86_400).contains(&self.menu_change_delay_seconds) {
            return bad("menuChangeDelaySeconds must be 0 to 86400");
        }
        if !(0.0..=1.0).contains(&self.deactivation_threshold) {
            return bad("deactivationThreshold must be a share between 0 and 1");
        }
        if self.bad_image_urls.len() > 1000 || self.bad_image_urls.iter().any(|u| u.len() > 2048) {
            return bad("badImageUrls holds at most 1000 strings of at most 2048 bytes");
        }
        let f = &self.faults;
        for (name, v) in [("rateLimited", f.rate_limited), ("badGateway", f.bad_gateway), ("unavailable", f.unavailable), ("slow", f.slow)]
        {
            if !(0.0..=1.0).contains(&v) {
                return Err(ConfigError::Rule(format!("faults.{name} must be a share between 0 and 1")));
            }
        }
        if f.rate_limited + f.bad_gateway + f.unavailable > 1.0 {
            return bad("faults.rateLimited + badGateway + unavailable must not exceed 1");
        }
        if f.slow_ms.is_some_and(|ms| ms > 600_000) {
            return bad("faults.slowMs must be at most 600000");
        }
        Ok(())
    }
}
