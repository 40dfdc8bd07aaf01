//! Helpers of the `auth_*` tests: the authorization server (`tests/peers/oidc/provider.mjs`,
//! npm `oidc-provider` under Node), `everything-server --http --auth-issuer`, and our client
//! with `mcp-auth`'s `OAuthClient` plugged into the HTTP transport's auth hook.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use mcp_auth::{
    HeadlessUserAgent, InMemoryTokenStore, OAuthClient, StoredToken, TokenKey, TokenStore,
    UserAgent,
};
use mcp_client::{Client, ClientBuilder};
use mcp_jsonrpc::BoxError;
use mcp_transport_http::client::{AuthChallenge, AuthProvider, StreamableHttpClientTransport};
use mcp_types::CallToolRequestParams;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

use crate::support::bins::everything_server;
use crate::support::client::{WAIT, within};
use crate::support::peers::peers;
use crate::support::peers_dir;

/// Where the headless user agent says it is redirected to (nothing listens there).
pub(crate) const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";

/// A child process killed when dropped, with what it printed on stderr.
pub(crate) struct Process {
    stderr: Arc<Mutex<Vec<String>>>,
    _child: Child,
}

impl Process {
    /// Spawns `cmd` and waits (up to [`WAIT`]) for the `listening on <url>` line it prints on
    /// `from_stdout` or stderr; returns the process and `<url>`.
    async fn spawn_listening(mut cmd: Command, what: &str, from_stdout: bool) -> (Process, String) {
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("spawning {what}: {e}"));
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        let stderr_lines = BufReader::new(child.stderr.take().expect("piped stderr")).lines();
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let (mut announcing, other) = if from_stdout {
            drain(stderr_lines, Some(stderr.clone()));
            (LineSource::Stdout(stdout), None)
        } else {
            (LineSource::Stderr(stderr_lines), Some(stdout))
        };
        if let Some(stdout) = other {
            drain(stdout, None);
        }
        let listening = async {
            while let Some(line) = announcing.next_line().await {
                if !from_stdout {
                    stderr.lock().expect("stderr lock").push(line.clone());
                }
                if let Some(url) = line.strip_prefix("listening on ") {
                    return Some(url.to_owned());
                }
            }
            None
        };
        let url = within(&format!("{what} to listen"), listening).await;
        let Some(url) = url else {
            let status = child.wait().await;
            panic!(
                "{what} exited ({status:?}) without listening:\n{}",
                stderr.lock().expect("stderr lock").join("\n")
            );
        };
        announcing.drain(if from_stdout {
            None
        } else {
            Some(stderr.clone())
        });
        (
            Process {
                stderr,
                _child: child,
            },
            url,
        )
    }

    /// What the process printed on stderr so far.
    pub(crate) fn stderr(&self) -> String {
        self.stderr.lock().expect("stderr lock").join("\n")
    }
}

enum LineSource {
    Stdout(tokio::io::Lines<BufReader<tokio::process::ChildStdout>>),
    Stderr(tokio::io::Lines<BufReader<tokio::process::ChildStderr>>),
}

impl LineSource {
    async fn next_line(&mut self) -> Option<String> {
        match self {
            LineSource::Stdout(lines) => lines.next_line().await.ok().flatten(),
            LineSource::Stderr(lines) => lines.next_line().await.ok().flatten(),
        }
    }

    fn drain(self, into: Option<Arc<Mutex<Vec<String>>>>) {
        match self {
            LineSource::Stdout(lines) => drain(lines, into),
            LineSource::Stderr(lines) => drain(lines, into),
        }
    }
}

/// Keeps reading `lines` (into `into`, if given), so the child never blocks on a full pipe.
fn drain<R>(mut lines: tokio::io::Lines<BufReader<R>>, into: Option<Arc<Mutex<Vec<String>>>>)
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(into) = &into {
                into.lock().expect("stderr lock").push(line);
            }
        }
    });
}

/// The authorization server: `provider.mjs` on 127.0.0.1, killed when dropped.
pub(crate) struct AuthServer {
    /// `http://127.0.0.1:<port>`.
    pub(crate) issuer: String,
    process: Process,
}

impl AuthServer {
    /// Starts `tests/peers/oidc/provider.mjs` with the Node and the `oidc-provider` that
    /// `cargo xtask setup` installed.
    pub(crate) async fn start() -> AuthServer {
        let peers = peers();
        assert!(
            peers.node_modules.join("oidc-provider").is_dir(),
            "npm `oidc-provider` is missing from {}: run `cargo xtask setup` first",
            peers.node_modules.display()
        );
        let mut cmd = Command::new(&peers.node);
        cmd.arg(peers_dir().join("oidc").join("provider.mjs"))
            .arg("0");
        let (process, issuer) = Process::spawn_listening(cmd, "provider.mjs", true).await;
        AuthServer { issuer, process }
    }

    /// An access token for `resource` from the client-credentials grant of the
    /// pre-registered confidential client `mcp-test-client`.
    pub(crate) async fn client_credentials_token(&self, resource: &str, scope: &str) -> String {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("grant_type", "client_credentials")
            .append_pair("resource", resource)
            .append_pair("scope", scope)
            .finish();
        let response = reqwest::Client::new()
            .post(format!("{}/token", self.issuer))
            .basic_auth("mcp-test-client", Some("mcp-test-secret"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .expect("the token endpoint answers");
        let status = response.status();
        let body: Value = response.json_value().await;
        assert!(
            status.is_success(),
            "token request failed: {status} {body}\n{}",
            self.process.stderr()
        );
        body["access_token"]
            .as_str()
            .expect("an access_token")
            .to_owned()
    }
}

/// `everything-server --http 127.0.0.1:0 --auth-issuer <issuer> [--auth-scopes <scopes>]`.
pub(crate) struct ProtectedServer {
    /// `http://127.0.0.1:<port>/mcp`: the endpoint, and the resource tokens are issued for.
    pub(crate) url: String,
    process: Process,
}

impl ProtectedServer {
    pub(crate) async fn start(issuer: &str, scopes: Option<&str>) -> ProtectedServer {
        let mut cmd = Command::new(everything_server());
        cmd.args(["--http", "127.0.0.1:0", "--auth-issuer", issuer])
            .env("RUST_LOG", "warn");
        if let Some(scopes) = scopes {
            cmd.args(["--auth-scopes", scopes]);
        }
        let (process, url) = Process::spawn_listening(cmd, "everything-server", false).await;
        ProtectedServer { url, process }
    }

    /// What the server printed on stderr so far.
    pub(crate) fn stderr(&self) -> String {
        self.process.stderr()
    }
}

/// A response body as JSON, or a panic showing it.
pub(crate) trait JsonValue {
    async fn json_value(self) -> Value;
}

impl JsonValue for reqwest::Response {
    async fn json_value(self) -> Value {
        let bytes = self.bytes().await.expect("a response body");
        serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            panic!(
                "not JSON ({e}): {}",
                String::from_utf8_lossy(&bytes).into_owned()
            )
        })
    }
}

/// A refusal the transport handed to the provider: its status and `error` parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    pub(crate) status: u16,
    pub(crate) error: Option<String>,
}

/// The glue between the transport's hook and `OAuthClient`: the headers of every request
/// (bearer, or DPoP with its proof), `handle_challenge` on every refusal (recorded, for the
/// tests to assert on).
#[derive(Clone)]
pub(crate) struct OAuthProvider {
    oauth: OAuthClient,
    refusals: Arc<Mutex<Vec<Refusal>>>,
}

impl OAuthProvider {
    pub(crate) fn new(oauth: OAuthClient) -> OAuthProvider {
        OAuthProvider {
            oauth,
            refusals: Arc::default(),
        }
    }

    /// The refusals seen so far, in order.
    pub(crate) fn refusals(&self) -> Vec<Refusal> {
        self.refusals.lock().expect("refusals lock").clone()
    }
}

/// `OAuthClient`'s own provider (mcp-auth's `transport-http` feature), recording refusals.
impl AuthProvider for OAuthProvider {
    fn authorization(
        &self,
    ) -> BoxFuture<'static, Result<Option<reqwest::header::HeaderValue>, BoxError>> {
        AuthProvider::authorization(&self.oauth)
    }

    fn request_headers(
        &self,
        method: &reqwest::Method,
        url: &reqwest::Url,
    ) -> BoxFuture<'static, Result<reqwest::header::HeaderMap, BoxError>> {
        AuthProvider::request_headers(&self.oauth, method, url)
    }

    fn on_unauthorized(
        &self,
        challenge: AuthChallenge,
    ) -> BoxFuture<'static, Result<bool, BoxError>> {
        self.refusals.lock().expect("refusals lock").push(Refusal {
            status: challenge.status().as_u16(),
            error: challenge.error().map(str::to_owned),
        });
        AuthProvider::on_unauthorized(&self.oauth, challenge)
    }
}

/// [`HeadlessUserAgent`], recording the `scope` of every authorization request.
#[derive(Clone)]
pub(crate) struct RecordingUserAgent {
    inner: HeadlessUserAgent,
    scopes: Arc<Mutex<Vec<String>>>,
}

impl RecordingUserAgent {
    pub(crate) fn new() -> RecordingUserAgent {
        RecordingUserAgent {
            inner: HeadlessUserAgent::new(REDIRECT_URI).expect("a valid redirect URI"),
            scopes: Arc::default(),
        }
    }

    /// The `scope` of each authorization request so far (one per user interaction).
    pub(crate) fn authorizations(&self) -> Vec<String> {
        self.scopes.lock().expect("scopes lock").clone()
    }
}

impl UserAgent for RecordingUserAgent {
    fn redirect_uri(&self) -> &str {
        self.inner.redirect_uri()
    }

    fn authorize<'a>(
        &'a self,
        authorization_url: &'a url::Url,
    ) -> mcp_auth::BoxFuture<'a, mcp_auth::Result<url::Url>> {
        let scope = authorization_url
            .query_pairs()
            .find(|(name, _)| name == "scope")
            .map(|(_, value)| value.into_owned())
            .unwrap_or_default();
        self.scopes.lock().expect("scopes lock").push(scope);
        self.inner.authorize(authorization_url)
    }
}

/// An in-memory [`TokenStore`] that forgets when access tokens expire, so the client keeps
/// sending an expired token until the server refuses it.
#[derive(Default)]
pub(crate) struct ExpiryBlindStore {
    inner: InMemoryTokenStore,
}

impl TokenStore for ExpiryBlindStore {
    fn load<'a>(
        &'a self,
        key: &'a TokenKey,
    ) -> mcp_auth::BoxFuture<'a, mcp_auth::Result<Option<StoredToken>>> {
        self.inner.load(key)
    }

    fn save<'a>(
        &'a self,
        key: &'a TokenKey,
        mut token: StoredToken,
    ) -> mcp_auth::BoxFuture<'a, mcp_auth::Result<()>> {
        token.expires_at = None;
        self.inner.save(key, token)
    }

    fn remove<'a>(&'a self, key: &'a TokenKey) -> mcp_auth::BoxFuture<'a, mcp_auth::Result<()>> {
        self.inner.remove(key)
    }
}

/// Our client connected to `url` with `provider` as the transport's auth hook, its
/// connection running on a task.
pub(crate) async fn connect(
    url: &str,
    provider: OAuthProvider,
) -> (Client, JoinHandle<mcp_client::Result<()>>) {
    let transport = StreamableHttpClientTransport::builder(url)
        .auth(provider)
        .build()
        .expect("client transport");
    let connect = ClientBuilder::new()
        .request_timeout(Some(WAIT))
        .connect(transport);
    let (client, connection) = within("the authorized initialize handshake", connect)
        .await
        .unwrap_or_else(|e| panic!("connecting to {url} failed: {e}"));
    (client, tokio::spawn(connection))
}

/// Calls tool `name` (no arguments) and returns the text of its single content block,
/// failing on an error result.
pub(crate) async fn tool_text(client: &Client, name: &str) -> String {
    let result = within(
        &format!("tools/call {name}"),
        client.call_tool(CallToolRequestParams::new(name)),
    )
    .await
    .unwrap_or_else(|e| panic!("tools/call {name} failed: {e}"));
    let result = serde_json::to_value(&result).expect("a serializable result");
    assert_ne!(result["isError"], true, "{name}: {result}");
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{name}: no text in {result}"))
        .to_owned()
}

/// `whoami`: the principal the server saw, as JSON.
pub(crate) async fn whoami(client: &Client) -> Value {
    let text = tool_text(client, "whoami").await;
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("whoami is not JSON ({e}): {text}"))
}

/// A raw `initialize` POST to `url` with an optional bearer token: the status and the
/// `WWW-Authenticate` header.
pub(crate) async fn raw_initialize(url: &str, token: Option<&str>) -> (u16, Option<String>) {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": crate::support::client::PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "e2e-raw", "version": "1.0.0"},
        },
    });
    let mut request = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = within("the raw initialize", request.send())
        .await
        .expect("the server answers");
    let www_authenticate = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().expect("an ASCII challenge").to_owned());
    (response.status().as_u16(), www_authenticate)
}

/// How long a `mcp-test-short` access token certainly stays usable after it is issued, and
/// how long to wait for it to be refused: `exp` is a whole second after `iat` (whole
/// seconds), and the server checks it without leeway against whole seconds.
pub(crate) const SHORT_TOKEN_EXPIRED_AFTER: Duration = Duration::from_secs(2);
