//! The bridge's *lanes*: processes of the handshake-era server, each initialized by the
//! proxy as its client, with the handler that takes the server's requests and notifications
//! to the call running on the lane (or to the subscriptions).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp_jsonrpc::{
    Config, Connection, ErrorObject, Handler, Notification, NotificationContext, Peer, Progress,
    Request, RequestContext, RequestOptions,
};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, broadcast, mpsc, oneshot};
use tokio::task::JoinHandle;

use super::super::meta::raw;
use super::super::{client_info, server_failed};
use crate::proxy::child::ChildCommand;
use crate::proxy::headers::ToolHeaders;

/// How long a new lane may take to answer `initialize`.
const INIT_TIMEOUT: Duration = Duration::from_secs(30);

pub(super) type Reply = Result<Box<RawValue>, ErrorObject>;

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A list change or resource update from the server, for the subscriptions.
#[derive(Debug, Clone)]
pub(super) enum ServerEvent {
    ToolsListChanged,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated(String),
}

/// What happens to a call that may ask for input, in order, for its client.
#[derive(Debug)]
pub(super) enum CallEvent {
    /// The server asks the client something; `reply` carries the answer back.
    Input {
        method: String,
        params: Value,
        reply: oneshot::Sender<Reply>,
    },
    /// Progress of the call.
    Progress(Progress),
    /// A log message sent while the call ran.
    Log(Box<RawValue>),
    /// The call's outcome.
    Done(Result<Box<RawValue>, mcp_jsonrpc::Error>),
}

/// What a lane's connection handler shares with the bridge.
#[derive(Debug)]
pub(super) struct LaneState {
    /// The events of the call running on the lane that may ask for input, if any.
    pub(super) current: Mutex<Option<mpsc::Sender<CallEvent>>>,
    pub(super) events: broadcast::Sender<ServerEvent>,
    pub(super) tools: Arc<ToolHeaders>,
    /// Set when the proxy ends the lane itself (no exit report then).
    pub(super) stopping: AtomicBool,
}

/// The handler of a lane's connection: the server's requests and notifications.
#[derive(Debug, Clone)]
pub(super) struct FromLane(pub(super) Arc<LaneState>);

impl Handler for FromLane {
    async fn handle_request(&self, request: Request, _ctx: RequestContext) -> Reply {
        let method = request.method.into_owned();
        match method.as_str() {
            "ping" => Ok(raw(&json!({}))),
            "elicitation/create" | "sampling/createMessage" | "roots/list" => {
                let current = lock(&self.0.current).clone();
                let Some(call) = current else {
                    return Err(ErrorObject::internal_error(format!(
                        "{method}: no client request is in progress to ask (through mcp proxy)"
                    )));
                };
                let params = request
                    .params
                    .and_then(|p| serde_json::from_str(p.get()).ok())
                    .unwrap_or(Value::Null);
                let (reply, answer) = oneshot::channel();
                let event = CallEvent::Input {
                    method: method.clone(),
                    params,
                    reply,
                };
                if call.send(event).await.is_err() {
                    return Err(ErrorObject::internal_error(format!(
                        "{method}: the client's request ended"
                    )));
                }
                answer.await.unwrap_or_else(|_| {
                    Err(ErrorObject::internal_error(format!(
                        "{method}: the client did not answer (its request was cancelled or \
                         timed out)"
                    )))
                })
            }
            other => Err(ErrorObject::method_not_found(other)),
        }
    }

    async fn handle_notification(&self, n: Notification, _ctx: NotificationContext) {
        let state = &self.0;
        let event = match &*n.method {
            "notifications/tools/list_changed" => {
                state.tools.clear();
                Some(ServerEvent::ToolsListChanged)
            }
            "notifications/prompts/list_changed" => Some(ServerEvent::PromptsListChanged),
            "notifications/resources/list_changed" => Some(ServerEvent::ResourcesListChanged),
            "notifications/resources/updated" => n
                .params
                .as_deref()
                .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
                .and_then(|p| p.get("uri").and_then(Value::as_str).map(str::to_owned))
                .map(ServerEvent::ResourceUpdated),
            "notifications/message" => {
                let current = lock(&state.current).clone();
                if let (Some(call), Some(params)) = (current, n.params) {
                    let _ = call.try_send(CallEvent::Log(params));
                }
                None
            }
            _ => None,
        };
        if let Some(event) = event {
            // No subscriber is fine.
            let _ = state.events.send(event);
        }
    }
}

/// One initialized process of the server.
#[derive(Debug)]
pub(super) struct Lane {
    pub(super) peer: Peer,
    pub(super) state: Arc<LaneState>,
    /// Whether a call that may ask for input runs on it.
    pub(super) busy: AtomicBool,
    pub(super) running: JoinHandle<()>,
    /// Its `initialize` result.
    pub(super) init: Value,
}

impl Lane {
    /// Starts and initializes a process.
    pub(super) async fn start(
        command: &ChildCommand,
        events: broadcast::Sender<ServerEvent>,
        tools: Arc<ToolHeaders>,
    ) -> Result<Arc<Lane>, ErrorObject> {
        let transport = command.spawn().map_err(|e| {
            ErrorObject::internal_error(format!(
                "cannot start the stdio server `{}`: {e}",
                command.display()
            ))
        })?;
        let process = transport.handle();
        let state = Arc::new(LaneState {
            current: Mutex::new(None),
            events,
            tools,
            stopping: AtomicBool::new(false),
        });
        let mut config = Config::default();
        config.default_timeout = None;
        let (peer, connection) = Connection::new(transport, FromLane(state.clone()), config);
        let watched = state.clone();
        let running = tokio::spawn(async move {
            let outcome = connection.run().await;
            if !watched.stopping.load(Ordering::Acquire) {
                let error = outcome.err().map(|e| e.to_string());
                super::super::forward::report_exit(
                    "a bridged stdio server (2026-07-28 requests)",
                    &process,
                    error.as_deref(),
                );
            }
        });
        let init = initialize(&peer).await.inspect_err(|_| {
            state.stopping.store(true, Ordering::Release);
            peer.close();
        })?;
        Ok(Arc::new(Lane {
            peer,
            state,
            busy: AtomicBool::new(false),
            running,
            init,
        }))
    }

    pub(super) fn is_alive(&self) -> bool {
        !self.peer.is_closed()
    }

    pub(super) async fn stop(&self) {
        self.state.stopping.store(true, Ordering::Release);
        self.peer.close();
        let _ = tokio::time::timeout(Duration::from_secs(10), self.peer.closed()).await;
        self.running.abort();
    }
}

/// `initialize`, `notifications/initialized` and, for a server that logs,
/// `logging/setLevel debug` (the proxy filters by each request's level).
pub(super) async fn initialize(peer: &Peer) -> Result<Value, ErrorObject> {
    let params = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {
            "elicitation": {"form": {}, "url": {}},
            "sampling": {},
            "roots": {},
        },
        "clientInfo": client_info(),
    });
    let options = RequestOptions::new().timeout(INIT_TIMEOUT);
    let result = peer
        .request_with("initialize", Some(raw(&params)), options)
        .await
        .map_err(|e| server_failed(&e))?;
    let init: Value = serde_json::from_str(result.get()).unwrap_or(Value::Null);
    if init
        .get("protocolVersion")
        .and_then(Value::as_str)
        .is_none()
    {
        return Err(ErrorObject::internal_error(
            "the stdio server's initialize result names no protocolVersion",
        ));
    }
    peer.notify("notifications/initialized", None)
        .await
        .map_err(|e| server_failed(&e))?;
    if init["capabilities"].get("logging").is_some() {
        let level = RequestOptions::new().timeout(INIT_TIMEOUT);
        let params = raw(&json!({"level": "debug"}));
        if let Err(e) = peer
            .request_with("logging/setLevel", Some(params), level)
            .await
        {
            tracing::debug!("logging/setLevel: {e}");
        }
    }
    Ok(init)
}

/// A lane held by one call that may ask for input; freed when dropped.
#[derive(Debug)]
pub(super) struct LaneGuard {
    pub(super) lane: Arc<Lane>,
    pub(super) _permit: OwnedSemaphorePermit,
}

impl Drop for LaneGuard {
    fn drop(&mut self) {
        *lock(&self.lane.state.current) = None;
        self.lane.busy.store(false, Ordering::Release);
    }
}

/// Aborts a task when dropped.
#[derive(Debug)]
pub(super) struct AbortOnDrop(pub(super) JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
