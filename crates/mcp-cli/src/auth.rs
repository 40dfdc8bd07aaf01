//! OAuth for a protected URL: `mcp-auth`'s `OAuthClient` with a browser and a loopback
//! redirect (or the client-credentials grant), its tokens and its client registrations kept
//! in the user's configuration directory (`<config>/mcp/auth/`, files 0600 in a 0700
//! directory) so that the next run needs no login; `mcp logout` removes them.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, UNIX_EPOCH};

use anyhow::{Context as _, anyhow};
use mcp_auth::{
    BoxFuture, LoopbackUserAgent, OAuthClient, RegisteredClient, StoredToken,
    TokenEndpointAuthMethod, TokenKey, TokenStore, TokenType,
};
use serde::{Deserialize, Serialize};

use crate::cli::{AuthArgs, LogoutArgs};
use crate::exit::{Exit, Failure};

/// Overrides the configuration directory (`<dir>/auth/` holds the logins).
pub(crate) const CONFIG_DIR_ENV: &str = "MCP_CLI_CONFIG_DIR";
/// A program run with the authorization URL as its one argument, instead of `open` or
/// `xdg-open`.
pub(crate) const BROWSER_ENV: &str = "MCP_CLI_BROWSER";
/// How long a login may take in the browser.
const LOGIN_TIMEOUT: Duration = Duration::from_secs(300);

/// The directory of `mcp`'s configuration: `$MCP_CLI_CONFIG_DIR`, else `mcp` in the user's
/// configuration directory (`$XDG_CONFIG_HOME` or `~/.config` on Linux).
fn config_dir() -> anyhow::Result<PathBuf> {
    if let Some(dir) = std::env::var_os(CONFIG_DIR_ENV).filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    dirs::config_dir()
        .map(|d| d.join("mcp"))
        .context("no configuration directory: set HOME, XDG_CONFIG_HOME or MCP_CLI_CONFIG_DIR")
}

/// `<config>/auth`, where one file per server holds its logins.
fn auth_dir() -> anyhow::Result<PathBuf> {
    Ok(config_dir()?.join("auth"))
}

/// The file of the logins for `server_url`: its host and port (to tell files apart by
/// eye) and a digest of the whole URL.
fn file_for(dir: &Path, server_url: &str) -> PathBuf {
    let url = normalize(server_url);
    let digest = hmac_sha256::Hash::hash(url.as_bytes());
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    let host: String = url::Url::parse(&url)
        .ok()
        .map(|u| {
            format!(
                "{}_{}",
                u.host_str().unwrap_or("host"),
                u.port_or_known_default().unwrap_or(0)
            )
        })
        .unwrap_or_else(|| "server".to_owned())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    dir.join(format!("{host}-{hex}.json"))
}

/// The URL as the `url` crate writes it (lowercase scheme and host, default port dropped).
fn normalize(server_url: &str) -> String {
    url::Url::parse(server_url).map_or_else(|_| server_url.to_owned(), String::from)
}

/// What a login file holds.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Logins {
    server_url: String,
    #[serde(default)]
    tokens: Vec<SavedToken>,
    #[serde(default)]
    clients: Vec<SavedClient>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SavedToken {
    issuer: String,
    resource: String,
    access_token: String,
    /// `Bearer` or `DPoP`.
    token_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refresh_token: Option<String>,
    /// Seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expires_at: Option<u64>,
    #[serde(default)]
    scopes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SavedClient {
    issuer: String,
    client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client_secret: Option<String>,
    token_endpoint_auth_method: String,
    #[serde(default)]
    redirect_uris: Vec<String>,
}

impl SavedToken {
    fn new(key: &TokenKey, token: &StoredToken) -> SavedToken {
        SavedToken {
            issuer: key.issuer.clone(),
            resource: key.resource.clone(),
            access_token: token.access_token.clone(),
            token_type: match token.token_type {
                TokenType::Dpop => "DPoP".to_owned(),
                _ => "Bearer".to_owned(),
            },
            refresh_token: token.refresh_token.clone(),
            expires_at: token
                .expires_at
                .and_then(|at| at.duration_since(UNIX_EPOCH).ok())
                .map(|d| d.as_secs()),
            scopes: token.scopes.clone(),
        }
    }

    fn token(&self) -> StoredToken {
        let mut token = StoredToken::new(self.access_token.clone());
        token.token_type = if self.token_type.eq_ignore_ascii_case("dpop") {
            TokenType::Dpop
        } else {
            TokenType::Bearer
        };
        token.refresh_token = self.refresh_token.clone();
        token.expires_at = self
            .expires_at
            .and_then(|s| UNIX_EPOCH.checked_add(Duration::from_secs(s)));
        token.scopes = self.scopes.clone();
        token
    }

    fn is(&self, key: &TokenKey) -> bool {
        self.issuer == key.issuer && self.resource == key.resource
    }
}

impl SavedClient {
    fn client(&self) -> Option<RegisteredClient> {
        let method = match self.token_endpoint_auth_method.as_str() {
            "none" => TokenEndpointAuthMethod::None,
            "client_secret_basic" => TokenEndpointAuthMethod::ClientSecretBasic,
            "client_secret_post" => TokenEndpointAuthMethod::ClientSecretPost,
            "private_key_jwt" => TokenEndpointAuthMethod::PrivateKeyJwt,
            _ => return None,
        };
        let mut client = RegisteredClient::new(self.client_id.clone(), self.redirect_uris.clone());
        client.client_secret = self.client_secret.clone();
        client.token_endpoint_auth_method = method;
        Some(client)
    }
}

/// The logins of one server, in one file: 0600, in a 0700 directory, replaced atomically.
#[derive(Debug)]
struct FileTokenStore {
    server_url: String,
    path: PathBuf,
    /// Serializes this process's reads and writes of the file.
    lock: Mutex<()>,
}

impl FileTokenStore {
    fn new(server_url: &str) -> anyhow::Result<FileTokenStore> {
        let dir = auth_dir()?;
        Ok(FileTokenStore {
            server_url: normalize(server_url),
            path: file_for(&dir, server_url),
            lock: Mutex::new(()),
        })
    }

    /// What the file holds (nothing if it is missing or unreadable: a broken file is a
    /// login to redo, not a failure).
    fn read(&self) -> Logins {
        let text = match fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(_) => return Logins::default(),
        };
        match serde_json::from_str(&text) {
            Ok(logins) => logins,
            Err(e) => {
                tracing::warn!(path = %self.path.display(), error = %e, "ignoring a broken login file");
                Logins::default()
            }
        }
    }

    fn write(&self, logins: &Logins) -> mcp_auth::Result<()> {
        write_private(&self.path, logins).map_err(|e| {
            mcp_auth::Error::Config(format!(
                "cannot save the login in {}: {e:#}",
                self.path.display()
            ))
        })
    }

    fn update(&self, change: impl FnOnce(&mut Logins)) -> mcp_auth::Result<()> {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut logins = self.read();
        logins.server_url.clone_from(&self.server_url);
        change(&mut logins);
        self.write(&logins)
    }

    /// The port of the loopback redirect URI a kept registration names, to listen on it
    /// again (the registration names that URI).
    fn redirect_port(&self) -> Option<u16> {
        let logins = self.read();
        logins
            .clients
            .iter()
            .flat_map(|c| &c.redirect_uris)
            .filter_map(|u| url::Url::parse(u).ok())
            .find(|u| u.host_str() == Some("127.0.0.1"))
            .and_then(|u| u.port())
    }
}

/// Writes `value` as JSON to `path`: the directory made 0700, the file 0600, written to a
/// temporary file first and renamed over the old one.
fn write_private(path: &Path, value: &impl Serialize) -> anyhow::Result<()> {
    let dir = path.parent().context("a login file has a directory")?;
    private_dir(dir)?;
    let text = serde_json::to_vec_pretty(value)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("login"),
        std::process::id()
    ));
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .with_context(|| format!("cannot create {}", tmp.display()))?;
    // Created before: the mode of `open` applies to new files only.
    file.set_permissions(fs::Permissions::from_mode(0o600))?;
    file.write_all(&text)?;
    file.sync_all()?;
    fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}

/// Makes `dir` (and its parents), and gives `dir` itself mode 0700.
fn private_dir(dir: &Path) -> anyhow::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .with_context(|| format!("cannot create {}", dir.display()))?;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
        .with_context(|| format!("cannot restrict {}", dir.display()))
}

impl TokenStore for FileTokenStore {
    fn load<'a>(
        &'a self,
        key: &'a TokenKey,
    ) -> BoxFuture<'a, mcp_auth::Result<Option<StoredToken>>> {
        let token = {
            let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
            self.read()
                .tokens
                .iter()
                .find(|t| t.is(key))
                .map(SavedToken::token)
        };
        Box::pin(async move { Ok(token) })
    }

    fn save<'a>(
        &'a self,
        key: &'a TokenKey,
        token: StoredToken,
    ) -> BoxFuture<'a, mcp_auth::Result<()>> {
        let saved = self.update(|logins| {
            logins.tokens.retain(|t| !t.is(key));
            logins.tokens.push(SavedToken::new(key, &token));
        });
        Box::pin(async move { saved })
    }

    fn remove<'a>(&'a self, key: &'a TokenKey) -> BoxFuture<'a, mcp_auth::Result<()>> {
        let removed = self.update(|logins| logins.tokens.retain(|t| !t.is(key)));
        Box::pin(async move { removed })
    }

    fn load_client<'a>(
        &'a self,
        issuer: &'a str,
    ) -> BoxFuture<'a, mcp_auth::Result<Option<RegisteredClient>>> {
        let client = {
            let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
            self.read()
                .clients
                .iter()
                .find(|c| c.issuer == issuer)
                .and_then(SavedClient::client)
        };
        Box::pin(async move { Ok(client) })
    }

    fn save_client<'a>(
        &'a self,
        issuer: &'a str,
        client: RegisteredClient,
    ) -> BoxFuture<'a, mcp_auth::Result<()>> {
        let saved = self.update(|logins| {
            logins.clients.retain(|c| c.issuer != issuer);
            logins.clients.push(SavedClient {
                issuer: issuer.to_owned(),
                client_id: client.client_id.clone(),
                client_secret: client.client_secret.clone(),
                token_endpoint_auth_method: client.token_endpoint_auth_method.as_str().to_owned(),
                redirect_uris: client.redirect_uris.clone(),
            });
        });
        Box::pin(async move { saved })
    }
}

/// The OAuth client for `url`: client credentials with `--client-secret`, else the browser
/// flow on a loopback redirect; tokens in the user's configuration directory.
pub(crate) fn oauth(url: &str, args: &AuthArgs) -> Result<OAuthClient, Failure> {
    let store = FileTokenStore::new(url).map_err(Failure::usage)?;
    let mut builder = OAuthClient::builder(url);
    match (&args.client_id, &args.client_secret) {
        (Some(id), Some(secret)) => {
            builder = builder
                .client_credentials()
                .client_id(id)
                .client_secret(secret);
        }
        (None, Some(_)) => {
            return Err(Failure::usage(anyhow!(
                "--client-secret needs --client-id (or MCP_CLIENT_ID)"
            )));
        }
        (id, None) => {
            // Listen where the kept registration expects the browser back, if that port is
            // free; else anywhere (and register again).
            let agent = store
                .redirect_port()
                .and_then(|port| LoopbackUserAgent::bind(port).ok())
                .map_or_else(|| LoopbackUserAgent::bind(0), Ok)
                .map_err(|e| Failure::connection(anyhow!(e)))?;
            let server = url.to_owned();
            let no_login = args.no_login;
            let agent = agent.timeout(LOGIN_TIMEOUT).on_open(move |authorization| {
                if no_login {
                    return Err(mcp_auth::Error::UserAgent(format!(
                        "{server} needs a login, and --no-login forbids it"
                    )));
                }
                crate::progress::line(&format!(
                    "mcp: {server} needs authorization. Log in in your browser:\n  {authorization}"
                ));
                if let Err(e) = open_browser(authorization.as_str()) {
                    crate::progress::line(&format!(
                        "mcp: cannot open a browser ({e:#}): open the URL above yourself"
                    ));
                }
                Ok(())
            });
            builder = builder.user_agent(agent).client_name("mcp (command line)");
            if let Some(id) = id {
                builder = builder.client_id(id);
            }
        }
    }
    if let Some(scope) = &args.scope {
        builder = builder.scopes(scope.split_whitespace());
    }
    builder
        .token_store(store)
        .build()
        .map_err(|e| Failure::usage(anyhow!(e).context(format!("OAuth for {url}"))))
}

/// Opens `url` in a browser: the program `$MCP_CLI_BROWSER` names, else `open` (macOS) or
/// `xdg-open`, if there is one. The program runs on its own; nothing waits for it.
pub(crate) fn open_browser(url: &str) -> anyhow::Result<()> {
    let program = match std::env::var_os(BROWSER_ENV).filter(|p| !p.is_empty()) {
        Some(program) => PathBuf::from(program),
        None => ["open", "xdg-open"]
            .iter()
            .find_map(|name| find_in_path(name))
            .context("neither `open` nor `xdg-open` is installed")?,
    };
    let mut child = std::process::Command::new(&program)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .with_context(|| format!("cannot run {}", program.display()))?;
    // Reaped when it ends, so that it does not linger as a zombie.
    std::thread::spawn(move || child.wait());
    Ok(())
}

/// The executable `name` on `$PATH`.
fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| {
            fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// `mcp logout [URL]`.
pub(crate) fn logout(args: &LogoutArgs) -> anyhow::Result<Exit> {
    let dir = auth_dir()?;
    match &args.url {
        Some(url) => {
            let path = file_for(&dir, url);
            match fs::remove_file(&path) {
                Ok(()) => crate::progress::line(&format!("mcp: logged out of {url}")),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    crate::progress::line(&format!("mcp: no login kept for {url}"));
                }
                Err(e) => {
                    return Err(anyhow!(e).context(format!("cannot remove {}", path.display())));
                }
            }
        }
        None => {
            let mut forgotten = BTreeMap::new();
            let entries = match fs::read_dir(&dir) {
                Ok(entries) => entries.flatten().collect::<Vec<_>>(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
                Err(e) => return Err(anyhow!(e).context(format!("cannot list {}", dir.display()))),
            };
            for entry in entries {
                let path = entry.path();
                if path.extension().is_some_and(|e| e == "json") {
                    let server = fs::read_to_string(&path)
                        .ok()
                        .and_then(|t| serde_json::from_str::<Logins>(&t).ok())
                        .map(|l| l.server_url)
                        .unwrap_or_else(|| path.display().to_string());
                    fs::remove_file(&path)
                        .with_context(|| format!("cannot remove {}", path.display()))?;
                    forgotten.insert(server, ());
                }
            }
            if forgotten.is_empty() {
                crate::progress::line("mcp: no login kept");
            }
            for server in forgotten.keys() {
                crate::progress::line(&format!("mcp: logged out of {server}"));
            }
        }
    }
    Ok(Exit::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> TokenKey {
        TokenKey {
            issuer: "http://127.0.0.1:1".to_owned(),
            resource: "http://127.0.0.1:2/mcp".to_owned(),
        }
    }

    fn store(dir: &Path) -> FileTokenStore {
        FileTokenStore {
            server_url: "http://127.0.0.1:2/mcp".to_owned(),
            path: file_for(&dir.join("auth"), "http://127.0.0.1:2/mcp"),
            lock: Mutex::new(()),
        }
    }

    #[tokio::test]
    async fn tokens_and_clients_round_trip_through_a_private_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path());
        assert_eq!(store.load(&key()).await.unwrap(), None);
        let mut token = StoredToken::new("access");
        token.refresh_token = Some("refresh".to_owned());
        token.expires_at = Some(UNIX_EPOCH + Duration::from_secs(2_000_000_000));
        token.scopes = vec!["mcp:read".to_owned()];
        store.save(&key(), token.clone()).await.unwrap();
        assert_eq!(store.load(&key()).await.unwrap(), Some(token));

        let mut client =
            RegisteredClient::new("id-1", vec!["http://127.0.0.1:4567/callback".to_owned()]);
        client.client_secret = Some("s".to_owned());
        client.token_endpoint_auth_method = TokenEndpointAuthMethod::ClientSecretBasic;
        store
            .save_client("http://127.0.0.1:1", client.clone())
            .await
            .unwrap();
        assert_eq!(
            store.load_client("http://127.0.0.1:1").await.unwrap(),
            Some(client)
        );
        assert_eq!(store.load_client("http://other").await.unwrap(), None);
        assert_eq!(store.redirect_port(), Some(4567));

        let file = fs::metadata(&store.path).unwrap();
        assert_eq!(file.permissions().mode() & 0o777, 0o600);
        let parent = fs::metadata(store.path.parent().unwrap()).unwrap();
        assert_eq!(parent.permissions().mode() & 0o777, 0o700);
        let name = store.path.file_name().unwrap().to_str().unwrap().to_owned();
        assert!(
            name.starts_with("127.0.0.1_2-") && name.ends_with(".json"),
            "{name}"
        );

        store.remove(&key()).await.unwrap();
        assert_eq!(store.load(&key()).await.unwrap(), None);
        // Only the login file is left: no temporary file behind.
        let files: Vec<_> = fs::read_dir(store.path.parent().unwrap())
            .unwrap()
            .collect();
        assert_eq!(files.len(), 1);
    }

    #[tokio::test]
    async fn a_broken_file_is_no_login() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path());
        private_dir(store.path.parent().unwrap()).unwrap();
        fs::write(&store.path, "{not json").unwrap();
        assert_eq!(store.load(&key()).await.unwrap(), None);
        assert_eq!(store.redirect_port(), None);
        store.save(&key(), StoredToken::new("a")).await.unwrap();
        assert!(store.load(&key()).await.unwrap().is_some());
    }

    #[test]
    fn one_file_per_server_url() {
        let dir = Path::new("/d");
        assert_eq!(
            file_for(dir, "HTTP://Example.com:443/mcp"),
            file_for(dir, "http://example.com:443/mcp")
        );
        assert_ne!(
            file_for(dir, "http://example.com/a"),
            file_for(dir, "http://example.com/b")
        );
        let odd = file_for(dir, "not a url/../..");
        assert!(
            odd.starts_with("/d") && odd.parent() == Some(dir),
            "{}",
            odd.display()
        );
    }
}
