//! The menu endpoints' answers that read the state (store menu, capabilities, a change), and the
//! images' re-hosting.

use super::read::render_store;
use super::state::MenuChange;
use crate::contract::{MenuChangeStatus, ProblemSuffix, SCHEMA_VERSION};
use crate::service::rest::Answer;
use crate::service::{now_secs, Service};
use serde_json::{json, Value};

/// An image URL: re-hosted as a WebP URL of the sandbox's, or the reason it is refused.
pub(super) fn rehost(url: &str, bad: &[String], base: &str) -> Result<String, String> {
    if let Some(b) = bad.iter().find(|b| !b.is_empty() && url.contains(b.as_str())) {
        return Err(format!(
            "the image {url} cannot be used (the sandbox is told it is unreachable, not an image or too large: it matches {b:?})"
        ));
    }
    // A name of the URL's own: two SipHash-2-4 lanes (96 bits shown), stable across builds.
    #[allow(deprecated)]
    let lane = |k: u64| {
        use std::hash::Hasher;
        let mut h = std::hash::SipHasher::new_with_keys(0x696d_6167_6573_0000 | k, k);
        h.write(url.as_bytes());
        h.finish()
    };
    Ok(format!("{base}/images/{:016x}{:08x}.webp", lane(1), lane(2) >> 32))
}

impl Service {
    pub(super) fn image_base(&self) -> String {
        let b = self.options.problem_base.trim_end_matches('/');
        b.strip_suffix("/problems").unwrap_or(b).to_string()
    }

    /// The brand of a client's PUT /menu: its first store's (assumed: the request names none).
    pub(super) fn client_brand(&self, client: usize) -> Option<i64> {
        self.config.clients.get(client).and_then(|c| c.stores.first()).map(|s| s.brand_id)
    }

    pub(super) fn client_store(&self, client: usize, remote_id: &str) -> Option<(i64, i64)> {
        self.config.clients.get(client)?.stores.iter().find(|s| s.remote_id == remote_id).map(|s| (s.store_id, s.brand_id))
    }

    /// `GET /api/v1/menu/stores/{storeRemoteId}`.
    pub(in crate::service) fn menu_read(&mut self, client: usize, store: &str, now_ms: i64) -> Answer {
        let Some((_, brand)) = self.client_store(client, store) else {
            return self.not_found_menu(format!("store {store} is not a store of this client"));
        };
        let now = now_secs(now_ms);
        let scheduled = self.menu.stores.get(store).is_some_and(|l| l.overrides.values().any(|o| o.schedule.is_some()));
        let body = match self.menu.rendered.get(store) {
            Some(b) if !scheduled => b.to_vec(),
            _ => {
                let b = render_store(&self.menu, brand, Some(store), now);
                if !scheduled {
                    self.menu.rendered.insert(store.to_string(), b.clone());
                }
                b
            }
        };
        bytes_answer(200, body)
    }

    pub(super) fn not_found_menu(&mut self, detail: String) -> Answer {
        self.problem(404, Some(ProblemSuffix::NotFound.as_str()), "Not Found", detail, Value::Null)
    }

    pub(super) fn menu_validation(&mut self, field: &str, message: String) -> Answer {
        self.problem(
            422,
            Some(ProblemSuffix::Validation.as_str()),
            "One or more validation errors occurred",
            message.clone(),
            json!({ "errors": { field: [message] } }),
        )
    }

    /// `GET /api/v1/menu/capabilities`: the shipped table.
    pub(in crate::service) fn menu_capabilities(&self) -> Answer {
        let caps: Vec<Value> = crate::payload::SHIPPED_COMBINATIONS
            .iter()
            .map(|(e, f, s, p)| json!({ "entity": e, "field": f, "scope": s, "pendingCustomerRollout": p }))
            .collect();
        let body = json!({ "message": "OK", "data": { "capabilities": caps, "notes": "poscheck sandbox: the combinations of the contract's \"Menu scopes and async model\"" } });
        answer(200, &body)
    }

    /// `GET /api/v1/menu/changes/{changeId}`.
    pub(in crate::service) fn menu_change_read(&mut self, client: usize, id: &str) -> Answer {
        let Some(ch) = self.menu.changes.iter().find(|c| c.change_id == id && c.client == client) else {
            return self.not_found_menu(format!(
                "menu change {} does not exist or belongs to another client",
                id.chars().take(40).collect::<String>()
            ));
        };
        let data = change_resource(ch);
        let body = json!({ "message": "OK", "data": data });
        answer(200, &body)
    }
}

/// A 200 or 202 answer with a JSON body.
pub(super) fn answer(status: u16, body: &Value) -> Answer {
    bytes_answer(status, serde_json::to_vec(body).unwrap_or_default())
}

/// A 200 or 202 answer with a body already written.
fn bytes_answer(status: u16, body: Vec<u8>) -> Answer {
    Answer { status, body, problem: false, retry_after: None, delay_ms: 0, replayed: false }
}

/// The menu change resource (`data` of GET /menu/changes/{id}).
fn change_resource(ch: &MenuChange) -> Value {
    let rows: Vec<Value> = ch
        .results
        .iter()
        .map(|r| {
            json!({
                "storeRemoteId": r.store_remote_id, "storeId": r.store_id, "targetEntity": r.target_entity, "targetCode": r.target_code,
                "applied": r.applied, "errorCode": r.error_code, "errorMessage": r.error_message,
                "appliedAt": r.applied_at_ms.map(|t| crate::time::format_unix_seconds(now_secs(t))),
            })
        })
        .collect();
    json!({
        "changeId": ch.change_id,
        "status": if ch.completed_ms.is_some() { MenuChangeStatus::Applied } else { MenuChangeStatus::Pending }.as_str(),
        "schemaVersion": SCHEMA_VERSION,
        "submittedAt": crate::time::format_unix_seconds(now_secs(ch.submitted_ms)),
        "completedAt": ch.completed_ms.map(|t| crate::time::format_unix_seconds(now_secs(t))),
        "results": rows,
    })
}
