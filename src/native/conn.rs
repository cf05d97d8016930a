//! A connection as the sandbox's server reads and writes it: hyper parses HTTP; this wrapper only
//! watches the connection's bytes to answer what hyper answers bare with the problem documents
//! the npm face writes, as Node's server does:
//! - a request head not complete within 10 s: a 408 problem, then the connection is closed
//!   (`headersTimeout`); a connection idle between requests for 5 s is closed (`keepAliveTimeout`);
//! - an answer hyper writes itself to a request it cannot read (400, or 431 for a head above its
//!   buffer): the same status as a problem document, with `Connection: close`.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// A request head must be read within this (Node's `headersTimeout`).
pub(crate) const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// A connection idle between requests is closed after this (Node's `keepAliveTimeout`).
pub(crate) const IDLE_TIMEOUT: Duration = Duration::from_secs(5);

/// The problem document (JSON) of a request refused unread, with the model's traceId.
pub(crate) type Problem = Arc<dyn Fn(u16, &str) -> String + Send + Sync>;

/// What the connection's service tells the wrapper: a request is being answered (from its head
/// read to its answer given), and how many were.
#[derive(Debug, Default)]
pub(crate) struct Activity {
    /// A request is being answered.
    pub active: AtomicBool,
    /// Requests dispatched so far.
    pub dispatched: AtomicU64,
}

/// What the connection waits for, since when.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wait {
    /// No bytes of a new request yet: closed after [`IDLE_TIMEOUT`].
    Idle,
    /// Bytes of a head arrived after this many requests: 408 after [`HEAD_TIMEOUT`].
    Head(u64),
    /// A request is under way.
    Busy,
}

/// A connection watched as above.
pub(crate) struct Watched<S> {
    inner: S,
    activity: Arc<Activity>,
    problem: Problem,
    wait: Wait,
    /// When `wait` began.
    since: tokio::time::Instant,
    /// One timer for the connection's life, moved only when it fires early (a request answered
    /// costs no timer operation).
    sleep: Pin<Box<Sleep>>,
    /// An answer of hyper's being replaced: the replacement, how much of it is written, and the
    /// length of what hyper asked to write.
    rewrite: Option<(Vec<u8>, usize, usize)>,
    /// The 408 is being written before the connection ends.
    closing: Option<(Vec<u8>, usize)>,
}

impl<S> Watched<S> {
    pub(crate) fn new(inner: S, activity: Arc<Activity>, problem: Problem) -> Self {
        let now = tokio::time::Instant::now();
        let sleep = Box::pin(tokio::time::sleep_until(now + IDLE_TIMEOUT));
        Self { inner, activity, problem, wait: Wait::Idle, since: now, sleep, rewrite: None, closing: None }
    }
}

/// A problem answer as raw HTTP/1.1.
fn raw_problem(problem: &Problem, status: u16, title: &str, detail: &str) -> Vec<u8> {
    let body = problem(status, detail);
    format!(
        "HTTP/1.1 {status} {title}\r\nConnection: close\r\nContent-Type: application/problem+json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// hyper's own answer to a request it could not read: `HTTP/1.1 400 …` or `431 …` with no body
/// (the sandbox's own 4xx answers always carry one).
fn hyper_error(buf: &[u8]) -> Option<(u16, &'static str)> {
    let status = match buf.get(..13)? {
        b"HTTP/1.1 400 " => (400, "Bad Request"),
        b"HTTP/1.1 431 " => (431, "Request Header Fields Too Large"),
        _ => return None,
    };
    let head = std::str::from_utf8(buf).ok()?.to_ascii_lowercase();
    (head.ends_with("\r\n\r\n") && head.contains("\r\ncontent-length: 0\r\n")).then_some(status)
}

impl<S: AsyncRead + AsyncWrite + Unpin> Watched<S> {
    /// Writes what `closing` holds; ready once it is written (or cannot be).
    fn poll_closing(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        while let Some((bytes, at)) = &mut self.closing {
            match Pin::new(&mut self.inner).poll_write(cx, &bytes[*at..]) {
                Poll::Ready(Ok(n)) if n > 0 && *at + n < bytes.len() => *at += n,
                Poll::Ready(_) => self.closing = None,
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(())
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for Watched<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.closing.is_some() {
            return this.poll_closing(cx).map(|()| Ok(()));
        }
        let before = buf.filled().len();
        let active = this.activity.active.load(Ordering::Acquire);
        let dispatched = this.activity.dispatched.load(Ordering::Acquire);
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                let read = buf.filled().len() > before;
                if active {
                    this.wait = Wait::Busy;
                } else if read && this.wait != Wait::Head(dispatched) {
                    this.wait = Wait::Head(dispatched);
                    this.since = tokio::time::Instant::now();
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => {
                let next = match this.wait {
                    _ if active => Wait::Busy,
                    Wait::Busy => Wait::Idle,
                    Wait::Head(at) if at != dispatched => Wait::Idle,
                    w => w,
                };
                if next != this.wait {
                    this.wait = next;
                    this.since = tokio::time::Instant::now();
                }
                let limit = match this.wait {
                    Wait::Busy => return Poll::Pending,
                    Wait::Idle => IDLE_TIMEOUT,
                    Wait::Head(_) => HEAD_TIMEOUT,
                };
                let deadline = this.since + limit;
                if this.sleep.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                if tokio::time::Instant::now() < deadline {
                    // Fired for an earlier wait: moved to this one's deadline (and registered).
                    this.sleep.as_mut().reset(deadline);
                    let _ = this.sleep.as_mut().poll(cx);
                    return Poll::Pending;
                }
                if let Wait::Head(_) = this.wait {
                    let detail = "the request cannot be read as HTTP/1.1 (ERR_HTTP_REQUEST_TIMEOUT)";
                    this.closing = Some((raw_problem(&this.problem, 408, "Request Timeout", detail), 0));
                    return this.poll_closing(cx).map(|()| Ok(()));
                }
                Poll::Ready(Ok(()))
            }
        }
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.rewrite.is_none() {
            if let Some((status, title)) = hyper_error(buf) {
                let detail = if status == 431 {
                    "the request cannot be read as HTTP/1.1 (HPE_HEADER_OVERFLOW)"
                } else {
                    "the request cannot be read as HTTP/1.1"
                };
                this.rewrite = Some((raw_problem(&this.problem, status, title, detail), 0, buf.len()));
            }
        }
        if let Some((bytes, at, asked)) = &mut this.rewrite {
            while *at < bytes.len() {
                match Pin::new(&mut this.inner).poll_write(cx, &bytes[*at..]) {
                    Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                    Poll::Ready(Ok(n)) => *at += n,
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Pending => return Poll::Pending,
                }
            }
            let asked = *asked;
            this.rewrite = None;
            return Poll::Ready(Ok(asked));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn is_write_vectored(&self) -> bool {
        // hyper then writes each answer's head and body as one buffer, in which its own error
        // answers are recognized whole.
        false
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn recognizes_hyper_s_own_error_answers_only() {
        let bare = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: Sun, 29 Nov 2026 00:00:00 GMT\r\n\r\n";
        assert_eq!(super::hyper_error(bare), Some((431, "Request Header Fields Too Large")));
        let bad = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(super::hyper_error(bad), Some((400, "Bad Request")));
        let ours = b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/problem+json\r\ncontent-length: 120\r\n\r\n{\"type\":";
        assert_eq!(super::hyper_error(ours), None);
        assert_eq!(super::hyper_error(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"), None);
    }
}
