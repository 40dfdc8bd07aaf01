//! The user-agent step of the authorization-code flow.

use std::collections::HashMap;
use std::fmt;
use std::io::Write as _;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use url::Url;

use super::store::BoxFuture;
use crate::{Error, Result};

/// Takes the user to the authorization endpoint and brings back the redirect.
///
/// [`OAuthClient`](crate::OAuthClient) builds the authorization URL (with PKCE, `state`,
/// `resource`, `scope`), calls [`authorize`](Self::authorize), and checks what comes back
/// (`state`, `iss`, `code` or `error`). Built in: [`HeadlessUserAgent`] (follows the
/// redirects itself; for tests and for authorization servers that need no user) and
/// [`LoopbackUserAgent`] (a browser and a loopback redirect, RFC 8252).
pub trait UserAgent: Send + Sync + 'static {
    /// The redirect URI: registered with the client and sent in the authorization request.
    fn redirect_uri(&self) -> &str;

    /// Takes the user agent to `authorization_url` and returns the URL the authorization
    /// server redirected it to (the redirect URI with the response's query). Must be
    /// cancel-safe: the flow may be dropped while the user is away.
    fn authorize<'a>(&'a self, authorization_url: &'a Url) -> BoxFuture<'a, Result<Url>>;
}

impl<T: UserAgent> UserAgent for Arc<T> {
    fn redirect_uri(&self) -> &str {
        (**self).redirect_uri()
    }

    fn authorize<'a>(&'a self, authorization_url: &'a Url) -> BoxFuture<'a, Result<Url>> {
        (**self).authorize(authorization_url)
    }
}

/// Whether `url` is the redirect URI (same scheme, host, port and path).
fn is_redirect(url: &Url, redirect: &Url) -> bool {
    url.scheme() == redirect.scheme()
        && url.host_str() == redirect.host_str()
        && url.port_or_known_default() == redirect.port_or_known_default()
        && url.path() == redirect.path()
}

/// A user agent without a user: it GETs the authorization URL, follows the redirects (keeping
/// cookies, as a browser would), and stops at the redirect URI, reading the response from its
/// `Location`, which it never fetches.
///
/// It works with authorization servers that authorize without showing a page (already
/// logged-in sessions, test servers, some enterprise setups); a server that answers with a
/// login form makes it fail with [`Error::UserAgent`].
#[derive(Debug, Clone)]
pub struct HeadlessUserAgent {
    http: reqwest::Client,
    redirect_uri: String,
    redirect: Url,
    max_redirects: usize,
}

impl HeadlessUserAgent {
    /// A headless user agent announcing `redirect_uri` (nothing listens there).
    pub fn new(redirect_uri: impl Into<String>) -> Result<Self> {
        let redirect_uri = redirect_uri.into();
        let redirect = Url::parse(&redirect_uri)
            .map_err(|e| Error::Config(format!("redirect URI `{redirect_uri}`: {e}")))?;
        Ok(Self {
            http: super::http::default_client()?,
            redirect_uri,
            redirect,
            max_redirects: 20,
        })
    }

    /// Uses `http` (which must not follow redirects itself) for the authorization requests.
    pub fn http_client(mut self, http: reqwest::Client) -> Self {
        self.http = http;
        self
    }

    async fn run(&self, start: &Url) -> Result<Url> {
        // Cookies by (host, name); paths and expiry are not tracked (one flow, one host).
        let mut cookies: HashMap<(String, String), String> = HashMap::new();
        let mut url = start.clone();
        for _ in 0..self.max_redirects {
            if is_redirect(&url, &self.redirect) {
                return Ok(url);
            }
            let host = url.host_str().unwrap_or_default().to_owned();
            let cookie = cookies
                .iter()
                .filter(|((h, _), _)| *h == host)
                .map(|((_, name), value)| format!("{name}={value}"))
                .collect::<Vec<_>>()
                .join("; ");
            let mut request = self.http.get(url.clone());
            if !cookie.is_empty() {
                request = request.header(http::header::COOKIE, cookie);
            }
            let response = request
                .send()
                .await
                .map_err(|e| Error::UserAgent(format!("GET {}: {e}", without_query(&url))))?;
            for value in response.headers().get_all(http::header::SET_COOKIE) {
                let Ok(value) = value.to_str() else { continue };
                let lower = value.to_ascii_lowercase();
                let pair = value.split(';').next().unwrap_or_default();
                let Some((name, value)) = pair.split_once('=') else {
                    continue;
                };
                let key = (host.clone(), name.trim().to_owned());
                if value.is_empty() || lower.contains("max-age=0") {
                    cookies.remove(&key);
                } else {
                    cookies.insert(key, value.trim().to_owned());
                }
            }
            let status = response.status();
            let location = response
                .headers()
                .get(http::header::LOCATION)
                .and_then(|v| v.to_str().ok());
            match location {
                Some(location) if status.is_redirection() => {
                    url = url
                        .join(location)
                        .map_err(|e| Error::UserAgent(format!("bad redirect `{location}`: {e}")))?;
                }
                _ => {
                    return Err(Error::UserAgent(format!(
                        "{} answered {status} instead of redirecting (a page for a user?)",
                        without_query(&url)
                    )));
                }
            }
        }
        Err(Error::UserAgent(format!(
            "more than {} redirects",
            self.max_redirects
        )))
    }
}

fn without_query(url: &Url) -> String {
    let mut url = url.clone();
    url.set_query(None);
    url.to_string()
}

impl UserAgent for HeadlessUserAgent {
    fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    fn authorize<'a>(&'a self, authorization_url: &'a Url) -> BoxFuture<'a, Result<Url>> {
        Box::pin(self.run(authorization_url))
    }
}

type Opener = Arc<dyn Fn(&Url) -> Result<()> + Send + Sync>;

/// The interactive user agent of a native application (RFC 8252): it shows the authorization
/// URL to the user (by default on stderr; [`on_open`](Self::on_open) can open a browser
/// instead) and waits for the browser to come back to a loopback redirect URI
/// `http://127.0.0.1:<port>/callback`, on which it listens.
///
/// The listener is bound by [`bind`](Self::bind) and kept for the life of the user agent, so
/// the redirect URI stays the same across flows (it is registered with the client).
#[derive(Clone)]
pub struct LoopbackUserAgent {
    listener: Arc<std::net::TcpListener>,
    redirect_uri: String,
    open: Opener,
    timeout: Duration,
}

impl fmt::Debug for LoopbackUserAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoopbackUserAgent")
            .field("redirect_uri", &self.redirect_uri)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl LoopbackUserAgent {
    /// Listens on `127.0.0.1:<port>` (0: any free port); the redirect URI is
    /// `http://127.0.0.1:<port>/callback`.
    pub fn bind(port: u16) -> Result<Self> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))
            .map_err(|e| Error::Config(format!("cannot listen on 127.0.0.1:{port}: {e}")))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| Error::Config(format!("loopback listener: {e}")))?;
        let port = listener
            .local_addr()
            .map_err(|e| Error::Config(format!("loopback listener: {e}")))?
            .port();
        Ok(Self {
            listener: Arc::new(listener),
            redirect_uri: format!("http://127.0.0.1:{port}/callback"),
            open: Arc::new(|url: &Url| {
                // Never stdout: it may carry a protocol (stdio transports).
                writeln!(
                    std::io::stderr(),
                    "Open this URL in a browser to authorize the MCP client:\n{url}"
                )
                .map_err(|e| Error::UserAgent(format!("cannot write to stderr: {e}")))
            }),
            timeout: Duration::from_secs(300),
        })
    }

    /// Calls `open` with the authorization URL instead of printing it on stderr (for
    /// instance to launch a browser, or to show the URL in a UI).
    pub fn on_open(mut self, open: impl Fn(&Url) -> Result<()> + Send + Sync + 'static) -> Self {
        self.open = Arc::new(open);
        self
    }

    /// How long to wait for the browser to come back (5 minutes by default).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn run(&self, authorization_url: &Url) -> Result<Url> {
        let std = self
            .listener
            .try_clone()
            .map_err(|e| Error::UserAgent(format!("loopback listener: {e}")))?;
        let listener = tokio::net::TcpListener::from_std(std)
            .map_err(|e| Error::UserAgent(format!("loopback listener: {e}")))?;
        (self.open)(authorization_url)?;
        let base = Url::parse(&self.redirect_uri)
            .map_err(|e| Error::Config(format!("redirect URI: {e}")))?;
        tokio::time::timeout(self.timeout, async {
            loop {
                let (mut stream, _) = listener
                    .accept()
                    .await
                    .map_err(|e| Error::UserAgent(format!("loopback accept: {e}")))?;
                let mut buf = vec![0u8; 8192];
                let mut len = 0;
                // Read the request head (the request line is all that matters).
                while len < buf.len() {
                    let n = match stream.read(&mut buf[len..]).await {
                        Ok(n) => n,
                        Err(_) => break,
                    };
                    if n == 0 {
                        break;
                    }
                    len += n;
                    if buf[..len].windows(4).any(|w| w == b"\r\n\r\n") {
                        break;
                    }
                }
                let head = String::from_utf8_lossy(&buf[..len]);
                let target = head
                    .lines()
                    .next()
                    .and_then(|line| line.strip_prefix("GET "))
                    .and_then(|rest| rest.split(' ').next())
                    .and_then(|target| base.join(target).ok());
                match target {
                    Some(url) if url.path() == base.path() => {
                        let body = "Authorization complete. You can close this window.";
                        let _ = stream
                            .write_all(
                                format!(
                                    "HTTP/1.1 200 OK\r\ncontent-type: text/plain; charset=utf-8\r\n\
                                     content-length: {}\r\nconnection: close\r\n\r\n{body}",
                                    body.len()
                                )
                                .as_bytes(),
                            )
                            .await;
                        return Ok(url);
                    }
                    _ => {
                        let _ = stream
                            .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                            .await;
                    }
                }
            }
        })
        .await
        .map_err(|_| Error::UserAgent(format!("no redirect within {:?}", self.timeout)))?
    }
}

impl UserAgent for LoopbackUserAgent {
    fn redirect_uri(&self) -> &str {
        &self.redirect_uri
    }

    fn authorize<'a>(&'a self, authorization_url: &'a Url) -> BoxFuture<'a, Result<Url>> {
        Box::pin(self.run(authorization_url))
    }
}
