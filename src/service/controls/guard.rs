//! Who may reach the sandbox's own pages and controls (everything but the service's REST API):
//! a web page open in the developer's browser must not drive the local sandbox nor read its
//! secret.
//!
//! - **Host allowlist** (against DNS rebinding: a page on `evil.example` whose name is re-pointed
//!   at 127.0.0.1 reads the sandbox as same-origin): the console and `/_sandbox/…` answer only a
//!   `Host` naming the loopback (`127.0.0.1`, `localhost`, `[::1]`), the host the sandbox was
//!   bound to, or a name the user allowed (`--allowed-hosts`, `allowedHosts`); with a port, the
//!   sandbox's own.
//! - **No cross-origin control**: a control request carrying an `Origin` that is not the sandbox's
//!   own (`http://` + an allowed host + its port) is refused before anything runs. Requests
//!   without `Origin` (curl, test suites, the POS) pass.
//!
//! The service's REST API (`/api/v1/…`) is not guarded here: the contract protects it with its API
//! key, and a POS in a container calls it under another name (`host.docker.internal`).

use serde::Serialize;

/// The names that always reach the controls: the loopback's.
pub const LOOPBACK_NAMES: &[&str] = &["127.0.0.1", "localhost", "[::1]"];

/// Where the sandbox listens and which other names the user allowed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Access {
    /// The host it was bound to (`--host`), as given.
    pub bind_host: String,
    /// The port it listens on.
    pub port: u16,
    /// Names allowed beside the loopback's and the bound host (`--allowed-hosts`).
    pub allowed_hosts: Vec<String>,
}

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// `Host` names no allowed host (or another port).
    Host(String),
    /// No `Host` header at all (HTTP/1.1 requires one).
    NoHost,
    /// `Origin` is not the sandbox's own.
    Origin(String),
}

/// The problem document of a refusal (RFC 9457; `about:blank`: the sandbox's own answer, not one
/// of the service's problem types).
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Forbidden {
    #[serde(rename = "type")]
    kind: &'static str,
    title: &'static str,
    status: u16,
    detail: String,
    code: &'static str,
}

impl Refusal {
    /// The stable code of the refusal.
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::Host(_) | Refusal::NoHost => "FORBIDDEN_HOST",
            Refusal::Origin(_) => "CROSS_ORIGIN",
        }
    }

    /// What was refused, for a log line: the header and its value (cut).
    pub fn what(&self) -> String {
        match self {
            Refusal::Host(h) => format!("Host {}", quoted(h)),
            Refusal::NoHost => "no Host header".into(),
            Refusal::Origin(o) => format!("Origin {}", quoted(o)),
        }
    }

    /// The 403 problem document, as JSON text.
    pub fn problem(&self, access: &Access) -> String {
        let detail = match self {
            Refusal::Host(host) => format!(
                "the sandbox's console and controls answer only the Host names 127.0.0.1, localhost and [::1]{}{} (this request named {}): a web page that re-points its own name at this machine (DNS rebinding) must not read the sandbox's secret or drive it. To reach it under this name, start it with --allowed-hosts {} (createSandbox({{ allowedHosts: [...] }})). The REST API under /api/v1/ answers any Host.",
                bound_note(access),
                port_note(access),
                quoted(host),
                name_of(host).unwrap_or("NAME"),
            ),
            Refusal::NoHost => "the request carries no Host header: the sandbox's console and controls answer only requests naming it (127.0.0.1, localhost, [::1], or a name given with --allowed-hosts).".to_string(),
            Refusal::Origin(origin) => format!(
                "a request from the web page at {} may not use the sandbox's controls: only the sandbox's own pages (origin http://127.0.0.1:{port}, http://localhost:{port} or an allowed host) may. Requests without an Origin header (curl, test suites, a POS) are not affected.",
                quoted(origin),
                port = access.port,
            ),
        };
        let doc = Forbidden { kind: "about:blank", title: "Forbidden", status: 403, detail, code: self.code() };
        serde_json::to_string(&doc).unwrap_or_default()
    }
}

fn bound_note(access: &Access) -> String {
    if access.bind_host.is_empty() || is_loopback_name(&access.bind_host) || is_unspecified(&access.bind_host) {
        String::new()
    } else {
        format!(", the bound host {}", access.bind_host)
    }
}

fn port_note(access: &Access) -> String {
    let mut names: Vec<&str> = access.allowed_hosts.iter().map(String::as_str).collect();
    names.truncate(20);
    let allowed = if names.is_empty() { String::new() } else { format!(", the allowed names {}", names.join(", ")) };
    format!("{allowed}, with the port {} when one is given", access.port)
}

/// A value quoted for a message, cut to 100 characters.
fn quoted(text: &str) -> String {
    let cut: String = text.chars().take(100).collect();
    format!("{cut:?}")
}

/// The name part of a `Host` value (`name`, `name:port`, `[v6]`, `[v6]:port`), lower-case
/// ASCII not applied; `None` when it is not of that form.
fn split_host(host: &str) -> Option<(&str, Option<&str>)> {
    if host.is_empty() || host.len() > 255 {
        return None;
    }
    if host.starts_with('[') {
        let end = host.find(']')?;
        let (name, rest) = host.split_at(end + 1);
        return match rest {
            "" => Some((name, None)),
            _ => rest.strip_prefix(':').map(|p| (name, Some(p))),
        };
    }
    match host.rsplit_once(':') {
        Some((name, port)) if !name.contains(':') => Some((name, Some(port))),
        Some(_) => None,
        None => Some((host, None)),
    }
}

fn name_of(host: &str) -> Option<&str> {
    split_host(host).map(|(n, _)| n).filter(|n| !n.is_empty())
}

fn is_loopback_name(name: &str) -> bool {
    LOOPBACK_NAMES.iter().any(|l| l.eq_ignore_ascii_case(name))
}

fn is_unspecified(name: &str) -> bool {
    matches!(name, "0.0.0.0" | "::" | "[::]")
}

/// The bind host as a `Host` name would spell it (an IPv6 address in brackets).
fn bracketed(host: &str) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host.to_string()
    }
}

impl Access {
    /// Whether a `Host` header value names the sandbox.
    pub fn host_allowed(&self, host: &str) -> bool {
        let Some((name, port)) = split_host(host.trim()) else { return false };
        if port.is_some_and(|p| p.parse::<u16>().ok() != Some(self.port)) {
            return false;
        }
        let name = name.strip_suffix('.').unwrap_or(name);
        is_loopback_name(name)
            || (!self.bind_host.is_empty() && !is_unspecified(&self.bind_host) && bracketed(&self.bind_host).eq_ignore_ascii_case(name))
            || self.allowed_hosts.iter().any(|a| a.eq_ignore_ascii_case(name))
    }

    /// Whether an `Origin` header value is the sandbox's own: `http://` + an allowed host with the
    /// sandbox's port (`null`, another scheme or another port is not).
    pub fn origin_allowed(&self, origin: &str) -> bool {
        origin
            .strip_prefix("http://")
            .is_some_and(|host| !host.contains('/') && split_host(host).is_some_and(|(_, p)| p.is_some()) && self.host_allowed(host))
    }

    /// Checks a request to the console (`control` false) or to `/_sandbox/…` (`control` true)
    /// before anything runs. `host` and `origin` are the headers as received (`None`: absent).
    pub fn check(&self, control: bool, host: Option<&str>, origin: Option<&str>) -> Result<(), Refusal> {
        match host {
            None => return Err(Refusal::NoHost),
            Some(h) if !self.host_allowed(h) => return Err(Refusal::Host(h.to_string())),
            Some(_) => {}
        }
        match origin {
            Some(o) if control && !self.origin_allowed(o) => Err(Refusal::Origin(o.to_string())),
            _ => Ok(()),
        }
    }

    /// Whether the sandbox is bound beyond the loopback (its controls then reachable by the
    /// network, unauthenticated): the warning the faces print at start.
    pub fn exposed(&self) -> Option<String> {
        let name = self.bind_host.trim_start_matches('[').trim_end_matches(']');
        let loopback = is_loopback_name(&self.bind_host) || name == "::1" || name.starts_with("127.");
        (!loopback).then(|| {
            format!(
                "warning: the sandbox listens on {} beyond this machine's loopback: its controls under /_sandbox/ (which reset state and read the HMAC secret and API keys) are reachable by the network, unauthenticated",
                self.bind_host
            )
        })
    }
}

/// Names for `--allowed-hosts a,b`: split on commas, trimmed, empty ones dropped; an error names
/// the first that is not a host name or address.
pub fn parse_allowed_hosts(list: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let ok = name.len() <= 253
            && (name.starts_with('[')
                && name.ends_with(']')
                && name[1..name.len() - 1].bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.')
                || name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_'));
        if !ok {
            return Err(format!(
                "allowed hosts: {} is not a host name or address (names separated by commas, without port or scheme)",
                quoted(name)
            ));
        }
        out.push(name.to_ascii_lowercase());
        if out.len() > 100 {
            return Err("allowed hosts: at most 100 names".into());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
