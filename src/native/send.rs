//! One request out (a delivery to the POS, a probe's variant, a probe's own REST call): hyper's
//! client over plain TCP or rustls with the platform's roots, within a time budget, the answer's
//! first bytes kept. Never fails: no answer is status 0 with the reason, as the npm face's
//! `sendRequest`.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use std::time::{Duration, Instant};

/// The client every face of this module sends with (keep-alive connections, `http` and `https`).
pub(crate) type HttpClient = Client<hyper_rustls::HttpsConnector<hyper_util::client::legacy::connect::HttpConnector>, Full<Bytes>>;

/// A client for `http://` and `https://` URLs; the roots are the platform's (a POS behind a tunnel
/// has a public certificate). Without any root loaded, `https://` answers fail with the reason.
pub(crate) fn client() -> HttpClient {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let builder = hyper_rustls::HttpsConnectorBuilder::new();
    let connector = match builder.with_native_roots() {
        Ok(b) => b.https_or_http().enable_http1().build(),
        Err(_) => {
            let config = rustls::ClientConfig::builder().with_root_certificates(rustls::RootCertStore::empty()).with_no_client_auth();
            hyper_rustls::HttpsConnectorBuilder::new().with_tls_config(config).https_or_http().enable_http1().build()
        }
    };
    Client::builder(TokioExecutor::new()).pool_idle_timeout(Duration::from_secs(30)).pool_max_idle_per_host(64).build(connector)
}

/// What came back.
#[derive(Debug, Clone, Default)]
pub(crate) struct Answered {
    /// The status; 0 when no answer came.
    pub status: u16,
    /// The answer's first bytes.
    pub body: Vec<u8>,
    /// Why no answer came.
    pub error: Option<String>,
    /// The latency, ms (one decimal).
    pub ms: f64,
}

/// The innermost reason of an error chain, in a reader's words.
fn reason(e: &(dyn std::error::Error + 'static)) -> String {
    let mut last = e.to_string();
    let mut cur = e.source();
    while let Some(s) = cur {
        last = s.to_string();
        cur = s.source();
    }
    last
}

/// Sends `method url` with `headers` and `body`; waits at most `budget` for the whole answer and
/// keeps its first `max_bytes` bytes.
pub(crate) async fn send(
    client: &HttpClient,
    method: &str,
    url: &str,
    headers: &[(String, String)],
    body: Vec<u8>,
    budget: Duration,
    max_bytes: usize,
) -> Answered {
    let started = Instant::now();
    let ms = |started: Instant| (started.elapsed().as_secs_f64() * 10_000.0).round() / 10.0;
    let mut builder = hyper::Request::builder().method(method).uri(url);
    for (k, v) in headers {
        builder = builder.header(k.as_str(), v.as_str());
    }
    let request = match builder.body(Full::new(Bytes::from(body))) {
        Ok(r) => r,
        Err(e) => return Answered { error: Some(format!("the request cannot be sent: {e}")), ms: ms(started), ..Answered::default() },
    };
    let exchange = async {
        let response = client.request(request).await.map_err(|e| reason(&e))?;
        let status = response.status().as_u16();
        let mut body = response.into_body();
        let mut kept = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| reason(&e))?;
            if let Some(data) = frame.data_ref() {
                let room = max_bytes.saturating_sub(kept.len());
                kept.extend_from_slice(&data[..data.len().min(room)]);
            }
        }
        Ok::<_, String>((status, kept))
    };
    match tokio::time::timeout(budget, exchange).await {
        Ok(Ok((status, body))) => Answered { status, body, error: None, ms: ms(started) },
        Ok(Err(e)) => Answered { error: Some(e), ms: ms(started), ..Answered::default() },
        Err(_) => Answered { error: Some(format!("no answer within {} ms", budget.as_millis())), ms: ms(started), ..Answered::default() },
    }
}
