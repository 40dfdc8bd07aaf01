//! [`Forward`]: 2026-07-28 requests forwarded to a stdio server of that revision.
//!
//! One process serves every client; each request goes to it as it came (with a fresh id),
//! and its answer comes back as it is: the server's own `InputRequiredResult`s and sealed
//! `requestState`s included, since the revision keeps no state between requests. What the
//! proxy does besides:
//!
//! - **Progress**: the client's `progressToken` is replaced by one of the proxy's (clients
//!   sharing the process could pick the same), and the server's progress goes back under
//!   the client's token.
//! - **Subscriptions**: a `subscriptions/listen` goes to the server under the proxy's id;
//!   the notifications tagged with that id (`_meta` `subscriptionId`) go to the client's
//!   stream, tagged with the client's id. At most [`NOTIFICATION_QUEUE`] wait per stream;
//!   past it they are dropped (a slow subscriber loses notifications, it does not stall the
//!   server).
//! - **Log messages** (`notifications/message`), which name no request on stdio, go to the
//!   one request in flight that asked for them (`io.modelcontextprotocol/logLevel`); when
//!   several did, they are dropped.
//! - **`Mcp-Param-*` headers** of a `tools/call` are checked against the tool's
//!   `x-mcp-header` parameters ([`super::super::headers`]), as the server would if it saw
//!   them.
//! - **The server exiting**: requests in flight fail with -32603 naming how it ended, the
//!   exit is reported on stderr, and the next request starts a new process.

use std::collections::HashMap;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp_jsonrpc::{
    Config, Connection, ErrorObject, Handler, Id, Notification, NotificationContext, Peer,
    Progress, Request, RequestContext, RequestOptions,
};
use mcp_transport_stdio::ProcessHandle;
use mcp_types::{
    CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, LOG_LEVEL_META_KEY, McpParamHeaders,
    PROTOCOL_VERSION_META_KEY,
};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::meta::{self, MODERN, raw};
use super::{client_info, server_failed};
use crate::proxy::child::ChildCommand;
use crate::proxy::headers::{CallTarget, ToolHeaders, check};

/// The most notifications waiting to go to one subscription's client.
pub(crate) const NOTIFICATION_QUEUE: usize = 256;
/// The most log messages waiting to go to one request's client.
const LOG_QUEUE: usize = 64;
/// How long the log messages a server sent just before its answer may take to reach the
/// proxy's handler of them, after the answer (a request that asked for no log messages does
/// not wait).
pub(crate) const LOG_GRACE: Duration = Duration::from_millis(20);
/// The most listing pages read to find a tool's `x-mcp-header` parameters.
const MAX_PAGES: usize = 64;

/// Where the server's notifications go.
#[derive(Debug, Default)]
struct Routes {
    /// Subscriptions, by the proxy's id of their `subscriptions/listen` (as JSON text).
    subscriptions: Mutex<HashMap<String, mpsc::Sender<Notification>>>,
    /// The requests in flight that asked for log messages.
    loggers: Mutex<HashMap<u64, mpsc::Sender<Box<RawValue>>>>,
    next_logger: AtomicU64,
    tools: Arc<ToolHeaders>,
}

/// Removes a route when the request it serves ends.
struct RouteGuard<'a> {
    routes: &'a Routes,
    subscription: Option<String>,
    logger: Option<u64>,
}

impl Drop for RouteGuard<'_> {
    fn drop(&mut self) {
        if let Some(key) = &self.subscription {
            lock(&self.routes.subscriptions).remove(key);
        }
        if let Some(key) = self.logger {
            lock(&self.routes.loggers).remove(&key);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The handler of the connection to the server: its notifications go where [`Routes`] say.
#[derive(Debug, Clone)]
struct FromServer(Arc<Routes>);

impl Handler for FromServer {
    async fn handle_request(
        &self,
        request: Request,
        _ctx: mcp_jsonrpc::RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        // A 2026-07-28 server asks nothing of its client but may ping it.
        match &*request.method {
            "ping" => Ok(raw(&json!({}))),
            other => Err(ErrorObject::method_not_found(other)),
        }
    }

    async fn handle_notification(&self, n: Notification, _ctx: NotificationContext) {
        let routes = &self.0;
        if n.method == "notifications/tools/list_changed" {
            routes.tools.clear();
        }
        if let Some(id) = meta::subscription_id(n.params.as_deref()) {
            let tx = lock(&routes.subscriptions).get(&id.to_string()).cloned();
            if let Some(tx) = tx
                && tx.try_send(n).is_err()
            {
                tracing::warn!("a subscriber is not reading; dropped a notification");
            }
            return;
        }
        if n.method == "notifications/message" {
            let loggers = lock(&routes.loggers);
            if loggers.len() == 1
                && let (Some(tx), Some(params)) = (loggers.values().next(), n.params)
            {
                let _ = tx.try_send(params);
            }
        }
    }
}

/// One running process of the server.
#[derive(Debug)]
pub(crate) struct Child {
    peer: Peer,
    routes: Arc<Routes>,
    running: JoinHandle<()>,
    /// Set when the proxy ends the process itself (no exit report then).
    stopping: Arc<AtomicBool>,
}

/// 2026-07-28 requests forwarded to one shared process of a server of that revision.
#[derive(Debug)]
pub(crate) struct Forward {
    command: ChildCommand,
    child: tokio::sync::Mutex<Option<Arc<Child>>>,
    tools: Arc<ToolHeaders>,
}

/// Reports on stderr how a server process ended.
#[allow(clippy::print_stderr)]
pub(crate) fn report_exit(what: &str, process: &ProcessHandle, error: Option<&str>) {
    let how = match (process.exit_status(), error) {
        (Some(status), _) => format!("ended ({status})"),
        (None, Some(e)) => format!("failed: {e}"),
        (None, None) => "closed its stdout".to_owned(),
    };
    eprintln!("mcp proxy: {what} {how}");
}

impl Forward {
    pub(crate) fn new(command: ChildCommand) -> Self {
        Forward {
            command,
            child: tokio::sync::Mutex::new(None),
            tools: Arc::new(ToolHeaders::default()),
        }
    }

    /// The running process, started now if there is none (or it ended).
    pub(crate) async fn child(&self) -> Result<Arc<Child>, ErrorObject> {
        let mut slot = self.child.lock().await;
        if let Some(child) = slot.as_ref()
            && !child.peer.is_closed()
        {
            return Ok(child.clone());
        }
        let transport = self.command.spawn().map_err(|e| {
            ErrorObject::internal_error(format!(
                "cannot start the stdio server `{}`: {e}",
                self.command.display()
            ))
        })?;
        let process = transport.handle();
        let routes = Arc::new(Routes {
            tools: self.tools.clone(),
            ..Routes::default()
        });
        let mut config = Config::default();
        config.default_timeout = None;
        let (peer, connection) = Connection::new(transport, FromServer(routes.clone()), config);
        let stopping = Arc::new(AtomicBool::new(false));
        let watched = stopping.clone();
        let running = tokio::spawn(async move {
            let outcome = connection.run().await;
            if !watched.load(Ordering::Acquire) {
                let error = outcome.err().map(|e| e.to_string());
                report_exit(
                    "the stdio server (2026-07-28 requests)",
                    &process,
                    error.as_deref(),
                );
            }
        });
        let child = Arc::new(Child {
            peer,
            routes,
            running,
            stopping,
        });
        *slot = Some(child.clone());
        Ok(child)
    }

    /// The era probe: whether the server answers `server/discover` naming 2026-07-28 within
    /// `timeout`. Fails only when the server cannot be started.
    pub(crate) async fn probe(&self, timeout: Duration) -> anyhow::Result<bool> {
        let child = self
            .child()
            .await
            .map_err(|e| anyhow::anyhow!("{}", e.message))?;
        let params = json!({"_meta": {
            PROTOCOL_VERSION_META_KEY: MODERN,
            CLIENT_CAPABILITIES_META_KEY: {},
            CLIENT_INFO_META_KEY: client_info(),
        }});
        let options = RequestOptions::new().timeout(timeout);
        let answer = child
            .peer
            .request_with("server/discover", Some(raw(&params)), options)
            .await;
        let modern = match answer {
            Ok(result) => serde_json::from_str::<Value>(result.get())
                .ok()
                .and_then(|r| r.get("supportedVersions").cloned())
                .and_then(|v| v.as_array().cloned())
                .is_some_and(|versions| versions.iter().any(|v| v == MODERN)),
            Err(e) => {
                tracing::debug!("server/discover: {e}");
                false
            }
        };
        Ok(modern)
    }

    /// Ends the server process.
    pub(crate) async fn stop(&self) {
        let child = self.child.lock().await.take();
        if let Some(child) = child {
            child.stopping.store(true, Ordering::Release);
            child.peer.close();
            child.peer.closed().await;
            child.running.abort();
        }
    }

    /// Serves one request; see the module docs.
    pub(crate) async fn serve(
        &self,
        request: Request,
        ctx: RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let child = self.child().await?;
        let Request { method, params, .. } = request;
        if method == "tools/call"
            && let Some(headers) = ctx.extensions().get::<McpParamHeaders>()
        {
            self.check_headers(&child, params.as_deref(), headers)
                .await?;
        }
        let wants_logs = params
            .as_deref()
            .is_some_and(|p| p.get().contains(LOG_LEVEL_META_KEY));
        let (token, params) = meta::take_progress_token(params);
        let id = child.peer.next_id();
        let mut options = RequestOptions::new().id(id.clone()).without_timeout();
        let (progress_tx, mut progress_rx) = mpsc::channel::<Progress>(16);
        if token.is_some() {
            options = options.progress(progress_tx);
        }
        let routes = &child.routes;
        let mut guard = RouteGuard {
            routes,
            subscription: None,
            logger: None,
        };
        let (notes_tx, mut notes_rx) = mpsc::channel::<Notification>(NOTIFICATION_QUEUE);
        let listen = method == "subscriptions/listen";
        if listen {
            let key = id_json(&id).to_string();
            lock(&routes.subscriptions).insert(key.clone(), notes_tx);
            guard.subscription = Some(key);
        }
        let (logs_tx, mut logs_rx) = mpsc::channel::<Box<RawValue>>(LOG_QUEUE);
        if wants_logs {
            let key = routes.next_logger.fetch_add(1, Ordering::Relaxed);
            lock(&routes.loggers).insert(key, logs_tx);
            guard.logger = Some(key);
        }
        let client_id = id_json(ctx.id());
        let peer = ctx.peer();
        let mut call = pin!(child.peer.request_with(method.clone(), params, options));
        let outcome = loop {
            tokio::select! {
                // What the server sent before its answer goes first.
                biased;
                Some(p) = progress_rx.recv() => {
                    if let Some(token) = &token {
                        let _ = peer
                            .notify_progress(token, p.progress, p.total, p.message.as_deref())
                            .await;
                    }
                }
                Some(n) = notes_rx.recv() => {
                    let params = meta::with_subscription_id(n.params.as_deref(), &client_id);
                    let _ = peer.notify(n.method, Some(params)).await;
                }
                Some(params) = logs_rx.recv() => {
                    let _ = peer.notify("notifications/message", Some(params)).await;
                }
                outcome = &mut call => break outcome,
            }
        };
        // Progress is routed as it is read, so all of it that came before the answer is
        // queued by now; log messages go through the connection's notification handler,
        // which may still be at work on those read just before the answer.
        if let Some(token) = &token {
            while let Ok(p) = progress_rx.try_recv() {
                let _ = peer
                    .notify_progress(token, p.progress, p.total, p.message.as_deref())
                    .await;
            }
        }
        if wants_logs {
            while let Ok(Some(params)) = tokio::time::timeout(LOG_GRACE, logs_rx.recv()).await {
                let _ = peer.notify("notifications/message", Some(params)).await;
            }
        }
        drop(guard);
        match outcome {
            Ok(result) => {
                if method == "tools/list" {
                    self.tools.observe(&result);
                }
                if listen {
                    return Ok(retag(result, &client_id));
                }
                Ok(result)
            }
            Err(e) => Err(server_failed(&e)),
        }
    }

    /// Checks a `tools/call`'s `Mcp-Param-*` headers, listing the tools first when the one
    /// called was not seen (a tool still unknown then is left for the server to refuse).
    async fn check_headers(
        &self,
        child: &Child,
        params: Option<&RawValue>,
        headers: &McpParamHeaders,
    ) -> Result<(), ErrorObject> {
        let target = CallTarget::of(params);
        let Some(name) = target.name else {
            return Ok(());
        };
        let known = match self.tools.get(&name) {
            Some(known) => Some(known),
            None => {
                self.list_tools(child, params).await;
                self.tools.get(&name)
            }
        };
        match known {
            Some(params_of_tool) => check(&params_of_tool, target.arguments.as_ref(), headers),
            None => Ok(()),
        }
    }

    /// Lists the server's tools (every page) with the client's `_meta` of `params`, which
    /// fills the table of their header parameters.
    async fn list_tools(&self, child: &Child, params: Option<&RawValue>) {
        let client_meta: Map<String, Value> = params
            .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
            .and_then(|p| p.get("_meta").and_then(Value::as_object).cloned())
            .map(|meta| {
                meta.into_iter()
                    .filter(|(k, _)| {
                        [
                            PROTOCOL_VERSION_META_KEY,
                            CLIENT_CAPABILITIES_META_KEY,
                            CLIENT_INFO_META_KEY,
                        ]
                        .contains(&k.as_str())
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut params = json!({ "_meta": client_meta });
            if let Some(c) = &cursor {
                params["cursor"] = Value::from(c.clone());
            }
            let Ok(result) = child.peer.request("tools/list", Some(raw(&params))).await else {
                return;
            };
            match self
                .tools
                .observe(&result)
                .and_then(|page| page.next_cursor)
            {
                Some(next) => cursor = Some(next),
                None => return,
            }
        }
    }
}

/// An id as JSON.
fn id_json(id: &Id) -> Value {
    serde_json::to_value(id).unwrap_or(Value::Null)
}

/// A `subscriptions/listen` result with the client's subscription id in its `_meta`.
fn retag(result: Box<RawValue>, client_id: &Value) -> Box<RawValue> {
    if meta::subscription_id(Some(&result)).is_none() {
        return result;
    }
    meta::with_subscription_id(Some(&result), client_id)
}
