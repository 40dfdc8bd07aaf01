//! The authorization server, tokens, and a protected axum app on 127.0.0.1:0.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context as _, Result, bail, ensure};
use axum::routing::post;
use axum::{Extension, Json, Router};
use mcp_auth::{BearerAuthLayer, Principal, ResourceServer, Scopes, TokenValidator};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::TcpListener;
use tokio::process::{Child, Command};

pub(crate) const CLIENT: &str = "mcp-test-client";
pub(crate) const SHORT_LIVED_CLIENT: &str = "mcp-test-short";
pub(crate) const SECRET: &str = "mcp-test-secret";

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A tool location from the environment, else from `.tools/tools.env`.
fn tool(name: &str) -> Result<String> {
    if let Ok(value) = std::env::var(name) {
        return Ok(value);
    }
    let env = std::fs::read_to_string(workspace_root().join(".tools/tools.env"))
        .context("`.tools/tools.env` is missing: run `cargo xtask setup` first")?;
    env.lines()
        .find_map(|line| {
            line.strip_prefix(name)?
                .strip_prefix('=')
                .map(str::to_owned)
        })
        .with_context(|| {
            format!("{name} is not in `.tools/tools.env`: run `cargo xtask setup` first")
        })
}

/// `oidc-provider`, running until dropped.
pub(crate) struct AuthServer {
    pub(crate) issuer: String,
    _child: Child,
    http: reqwest::Client,
}

impl AuthServer {
    pub(crate) async fn start() -> Result<Self> {
        let node = tool("MCP_TEST_NODE")?;
        let modules = tool("MCP_TEST_NODE_MODULES")?;
        ensure!(
            Path::new(&node).exists() && Path::new(&modules).join("oidc-provider").exists(),
            "node or oidc-provider is missing: run `cargo xtask setup` first"
        );
        let dir = workspace_root().join("tests/peers/oidc");
        let link = dir.join("node_modules");
        if std::fs::symlink_metadata(&link).is_err() {
            // Another test may create it concurrently; what matters is that it exists.
            let _ = std::os::unix::fs::symlink(&modules, &link);
        }
        let mut child = Command::new(node)
            .arg(dir.join("provider.mjs"))
            .arg("0")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .context("starting provider.mjs")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .context("provider.mjs did not start in time")??
            .context("provider.mjs exited before listening")?;
        let issuer = line
            .strip_prefix("listening on ")
            .with_context(|| format!("unexpected provider output: {line}"))?
            .to_owned();
        // Keep reading stdout: the provider may log there.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Ok(Self {
            issuer,
            _child: child,
            http: reqwest::Client::new(),
        })
    }

    pub(crate) async fn metadata(&self) -> Result<Value> {
        let url = format!("{}/.well-known/openid-configuration", self.issuer);
        self.http
            .get(url)
            .send()
            .await?
            .error_for_status()?
            .json_value()
            .await
    }

    async fn post_form(
        &self,
        url: &str,
        client: &str,
        form: &[(&str, &str)],
    ) -> Result<reqwest::Response> {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        Ok(self
            .http
            .post(url)
            .basic_auth(client, Some(SECRET))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await?)
    }

    /// An access token from the client-credentials grant for `resource`.
    pub(crate) async fn token(&self, client: &str, resource: &str, scope: &str) -> Result<String> {
        let url = format!("{}/token", self.issuer);
        let form = [
            ("grant_type", "client_credentials"),
            ("resource", resource),
            ("scope", scope),
        ];
        let response = self.post_form(&url, client, &form).await?;
        let status = response.status();
        let body = response.json_value().await?;
        ensure!(status.is_success(), "token request failed: {status} {body}");
        Ok(body["access_token"]
            .as_str()
            .context("no access_token")?
            .to_owned())
    }

    pub(crate) async fn revoke(&self, client: &str, token: &str) -> Result<()> {
        let url = format!("{}/token/revocation", self.issuer);
        let response = self.post_form(&url, client, &[("token", token)]).await?;
        ensure!(
            response.status().is_success(),
            "revocation failed: {}",
            response.status()
        );
        Ok(())
    }
}

trait JsonValue {
    async fn json_value(self) -> Result<Value>;
}

impl JsonValue for reqwest::Response {
    async fn json_value(self) -> Result<Value> {
        Ok(serde_json::from_slice(&self.bytes().await?)?)
    }
}

/// A listener on 127.0.0.1:0 and the resource URL `http://<addr><path>`.
pub(crate) async fn listener(path: &str) -> Result<(TcpListener, String)> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let resource = format!("http://{}{path}", listener.local_addr()?);
    Ok((listener, resource))
}

/// Serves `router` on `listener` in the background (for the test's lifetime).
pub(crate) fn serve(listener: TcpListener, router: Router) {
    tokio::spawn(async move { axum::serve(listener, router).await });
}

/// The MCP stand-in: `POST <path>` answers with what it sees of the principal.
pub(crate) fn protected_app<V: TokenValidator>(
    path: &str,
    resource: &ResourceServer,
    layer: BearerAuthLayer<V>,
) -> Router {
    Router::new()
        .route(
            path,
            post(
                |Extension(principal): Extension<Principal>,
                 Extension(scopes): Extension<Scopes>,
                 req: axum::extract::Request| async move {
                    assert_eq!(principal.scopes, scopes);
                    Json(json!({
                        "subject": principal.subject,
                        "client_id": principal.client_id,
                        "scopes": principal.scopes.iter().collect::<Vec<_>>(),
                        "audience": principal.audience,
                        "issuer": principal.issuer,
                        "has_exp": principal.expires_at.is_some(),
                        "principal_id": principal_id(req.extensions()),
                    }))
                },
            ),
        )
        .layer(layer)
        .merge(resource.metadata_router())
}

/// The `PrincipalId` the layer inserted (with the `transport-http` feature).
fn principal_id(extensions: &axum::http::Extensions) -> Option<String> {
    #[cfg(feature = "transport-http")]
    return extensions
        .get::<mcp_transport_http::PrincipalId>()
        .map(|id| id.as_str().to_owned());
    #[cfg(not(feature = "transport-http"))]
    {
        let _ = extensions;
        None
    }
}

/// What the server answered.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) www_authenticate: Option<String>,
    pub(crate) body: String,
}

/// `POST resource` with an optional raw `Authorization` header.
pub(crate) async fn call(resource: &str, authorization: Option<&str>) -> Result<Answer> {
    let mut request = reqwest::Client::new().post(resource).body("{}");
    if let Some(value) = authorization {
        request = request.header("authorization", value);
    }
    let response = request.send().await?;
    let status = response.status().as_u16();
    let www_authenticate = match response
        .headers()
        .get_all("www-authenticate")
        .iter()
        .count()
    {
        0 => None,
        1 => Some(response.headers()["www-authenticate"].to_str()?.to_owned()),
        n => bail!("{n} WWW-Authenticate headers"),
    };
    Ok(Answer {
        status,
        www_authenticate,
        body: response.text().await?,
    })
}

pub(crate) async fn call_with(resource: &str, token: &str) -> Result<Answer> {
    call(resource, Some(&format!("Bearer {token}"))).await
}
