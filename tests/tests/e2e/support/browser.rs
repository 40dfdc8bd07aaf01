//! Headless Chromium driven through WebDriver: Debian's `chromium` and `chromium-driver`,
//! installed and checked by `cargo xtask setup` (`xtask/src/debian.rs`), found through
//! `MCP_TEST_CHROMIUM` and `MCP_TEST_CHROMEDRIVER` (or `.tools/tools.env`).
//!
//! [`ChromeDriver::start`] runs `chromedriver --port=0` (it binds 127.0.0.1 and prints the
//! port), killed by PID when dropped. [`ChromeDriver::session`] opens a browser with the flags
//! this machine's closed network needs and a fresh profile directory; a [`Session`] speaks the
//! W3C WebDriver protocol over plain HTTP (reqwest), and ends the browser when dropped, even
//! when the test panicked.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdout, Command};

use super::peers::tools_setting;

/// The key of an element reference in WebDriver's JSON.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Chromium's flags: headless, no GPU, and nothing that reaches the network on its own (the
/// background networking, component updates, sync and QUIC are refused by this machine's
/// closed network, and Chromium waits on them).
const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,900",
];

/// The browser binaries `cargo xtask setup` installed.
#[derive(Debug)]
pub(crate) struct Browser {
    /// `chromium` (Debian's launcher script).
    pub(crate) chromium: PathBuf,
    /// `chromedriver`, of the same version.
    pub(crate) chromedriver: PathBuf,
}

/// The browser, or a panic saying what is missing and to run `cargo xtask setup`.
pub(crate) fn browser() -> &'static Browser {
    static BROWSER: OnceLock<Result<Browser, String>> = OnceLock::new();
    let found = BROWSER.get_or_init(|| {
        let find = |var: &str| match tools_setting(var) {
            Some(path) if path.is_file() => Ok(path),
            Some(path) => Err(format!("{var}={} does not exist", path.display())),
            None => Err(format!("{var} is neither set nor in .tools/tools.env")),
        };
        match (find("MCP_TEST_CHROMIUM"), find("MCP_TEST_CHROMEDRIVER")) {
            (Ok(chromium), Ok(chromedriver)) => Ok(Browser {
                chromium,
                chromedriver,
            }),
            (a, b) => Err([a.err(), b.err()]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join("; ")),
        }
    });
    match found {
        Ok(browser) => browser,
        Err(e) => panic!(
            "this test needs Chromium and ChromeDriver (Debian's chromium and chromium-driver); \
             run `cargo xtask setup` first: {e}"
        ),
    }
}

/// A `chromedriver` process on 127.0.0.1, killed when dropped.
pub(crate) struct ChromeDriver {
    /// `http://127.0.0.1:<port>`.
    base: String,
    http: reqwest::Client,
    _child: Child,
    /// Kept open: chromedriver writes to it and must not meet a closed pipe.
    _stdout: tokio::io::Lines<BufReader<ChildStdout>>,
}

impl ChromeDriver {
    /// Starts `chromedriver --port=0`, logging to `log`, once it says which port it took.
    pub(crate) async fn start(log: &Path) -> ChromeDriver {
        let browser = browser();
        let mut child = Command::new(&browser.chromedriver)
            .arg("--port=0")
            .arg(format!("--log-path={}", log.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("spawning {}: {e}", browser.chromedriver.display()));
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
        let port = async {
            let mut seen = Vec::new();
            while let Some(line) = stdout.next_line().await.expect("reading chromedriver") {
                if let Some(rest) = line.split("started successfully on port ").nth(1) {
                    return rest.trim_end_matches('.').trim().to_owned();
                }
                seen.push(line);
            }
            panic!(
                "chromedriver exited without listening:\n{}",
                seen.join("\n")
            )
        };
        let port = tokio::time::timeout(Duration::from_secs(30), port)
            .await
            .expect("chromedriver did not start within 30 s");
        ChromeDriver {
            base: format!("http://127.0.0.1:{port}"),
            // Loopback only, whatever proxy the environment names.
            http: reqwest::Client::builder()
                .no_proxy()
                .build()
                .expect("an HTTP client"),
            _child: child,
            _stdout: stdout,
        }
    }

    /// A new browser session with a fresh profile in `profile` (which must outlive it).
    pub(crate) async fn session(&self, profile: &Path) -> Session {
        let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|f| (*f).to_owned()).collect();
        args.push(format!("--user-data-dir={}", profile.display()));
        let capabilities = json!({
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "chrome",
                    "goog:chromeOptions": {
                        "binary": browser().chromium,
                        "args": args,
                    },
                },
            },
        });
        let value = call(
            &self.http,
            reqwest::Method::POST,
            &format!("{}/session", self.base),
            Some(capabilities),
        )
        .await
        .unwrap_or_else(|e| panic!("starting Chromium through chromedriver: {e}"));
        let id = value["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no sessionId in {value}"))
            .to_owned();
        Session {
            url: format!("{}/session/{id}", self.base),
            http: self.http.clone(),
            ended: false,
        }
    }
}

/// One browser, ended (`DELETE /session`) by [`Session::end`] or, failing that, on drop.
pub(crate) struct Session {
    /// `http://127.0.0.1:<port>/session/<id>`.
    url: String,
    http: reqwest::Client,
    ended: bool,
}

/// An element of the current frame.
#[derive(Debug, Clone)]
pub(crate) struct Element(String);

impl Session {
    async fn cmd(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        call(&self.http, method, &format!("{}{path}", self.url), body)
            .await
            .unwrap_or_else(|e| panic!("WebDriver {path}: {e}"))
    }

    /// Loads `url` in the top-level frame.
    pub(crate) async fn goto(&self, url: &str) {
        self.cmd(reqwest::Method::POST, "/url", Some(json!({ "url": url })))
            .await;
    }

    /// Runs `script` (a function body) in the current frame and returns its value.
    pub(crate) async fn execute(&self, script: &str) -> Value {
        let body = json!({ "script": script, "args": [] });
        self.cmd(reqwest::Method::POST, "/execute/sync", Some(body))
            .await
    }

    /// Runs `script` (a function body whose last argument is the callback to call with the
    /// result) in the current frame and returns what it passed to the callback.
    pub(crate) async fn execute_async(&self, script: &str) -> Value {
        let body = json!({ "script": script, "args": [] });
        self.cmd(reqwest::Method::POST, "/execute/async", Some(body))
            .await
    }

    /// The first element matching the CSS `selector` in the current frame, if any.
    pub(crate) async fn find(&self, selector: &str) -> Option<Element> {
        let body = json!({ "using": "css selector", "value": selector });
        let url = format!("{}/elements", self.url);
        let value = call(&self.http, reqwest::Method::POST, &url, Some(body))
            .await
            .unwrap_or_else(|e| panic!("WebDriver find {selector}: {e}"));
        value
            .as_array()
            .and_then(|found| found.first())
            .and_then(|e| e[ELEMENT].as_str())
            .map(|id| Element(id.to_owned()))
    }

    /// Waits up to `limit` for an element matching `selector` in the current frame.
    pub(crate) async fn wait_for(&self, selector: &str, limit: Duration) -> Element {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(element) = self.find(selector).await {
                return element;
            }
            assert!(
                Instant::now() < deadline,
                "no element {selector} within {limit:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The rendered text of `element`.
    pub(crate) async fn text(&self, element: &Element) -> String {
        let path = format!("/element/{}/text", element.0);
        let value = self.cmd(reqwest::Method::GET, &path, None).await;
        value.as_str().unwrap_or_default().to_owned()
    }

    /// Clicks `element`.
    pub(crate) async fn click(&self, element: &Element) {
        let path = format!("/element/{}/click", element.0);
        self.cmd(reqwest::Method::POST, &path, Some(json!({})))
            .await;
    }

    /// Types `text` into `element`.
    pub(crate) async fn type_into(&self, element: &Element, text: &str) {
        let path = format!("/element/{}/value", element.0);
        self.cmd(reqwest::Method::POST, &path, Some(json!({ "text": text })))
            .await;
    }

    /// Makes the iframe `element` the current frame.
    pub(crate) async fn enter_frame(&self, element: &Element) {
        let body = json!({ "id": { ELEMENT: element.0 } });
        self.cmd(reqwest::Method::POST, "/frame", Some(body)).await;
    }

    /// Makes the top-level document the current frame again.
    pub(crate) async fn leave_frames(&self) {
        self.cmd(reqwest::Method::POST, "/frame", Some(json!({ "id": null })))
            .await;
    }

    /// A PNG of the viewport.
    pub(crate) async fn screenshot(&self) -> Vec<u8> {
        let value = self.cmd(reqwest::Method::GET, "/screenshot", None).await;
        base64::engine::general_purpose::STANDARD
            .decode(value.as_str().expect("a base64 screenshot"))
            .expect("a base64 screenshot")
    }

    /// Closes the browser.
    pub(crate) async fn end(mut self) {
        self.ended = true;
        self.cmd(reqwest::Method::DELETE, "", None).await;
    }
}

impl Drop for Session {
    /// A test that panicked still closes its browser (chromedriver, killed by PID next, would
    /// leave it running): a blocking `DELETE /session/<id>` over a plain socket.
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        let Some(rest) = self.url.strip_prefix("http://") else {
            return;
        };
        let Some((authority, path)) = rest.split_once('/') else {
            return;
        };
        let Ok(mut stream) = std::net::TcpStream::connect(authority) else {
            return;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let request = format!(
            "DELETE /{path} HTTP/1.1\r\nHost: {authority}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
        if stream.write_all(request.as_bytes()).is_ok() {
            let _ = stream.read_to_end(&mut Vec::new());
        }
    }
}

/// One WebDriver command: its `value`, or the driver's error.
async fn call(
    http: &reqwest::Client,
    method: reqwest::Method,
    url: &str,
    body: Option<Value>,
) -> Result<Value, String> {
    let mut request = http.request(method, url).timeout(Duration::from_secs(60));
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body.to_string());
    }
    let response = request.send().await.map_err(|e| e.to_string())?;
    let status = response.status();
    let text = response.text().await.map_err(|e| e.to_string())?;
    let mut json: Value =
        serde_json::from_str(&text).map_err(|e| format!("{status}: {e}: {text}"))?;
    let value = json["value"].take();
    if status.is_success() {
        Ok(value)
    } else {
        Err(format!(
            "{status}: {} {}",
            value["error"].as_str().unwrap_or("?"),
            value["message"].as_str().unwrap_or(&text)
        ))
    }
}
