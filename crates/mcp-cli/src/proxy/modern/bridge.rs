//! [`Bridge`]: 2026-07-28 clients served by a stdio server of the handshake era only.
//!
//! The proxy is the server's client: it starts processes of it (*lanes*), initializes each
//! (`initialize` at 2025-11-25 with the capabilities it can bridge: elicitation in both
//! modes, sampling, roots; then `notifications/initialized`, and `logging/setLevel debug`
//! when the server logs), and translates each request:
//!
//! - **`server/discover`** is answered from the `initialize` result (its capabilities, less
//!   the handshake-era `tasks`; its info and instructions).
//! - **Requests** lose the revision's `_meta` members (version, capabilities, client info,
//!   log level) and go to the first lane; **results** get the revision's envelope
//!   (`resultType: "complete"`, cache hints `ttlMs: 0` / `cacheScope: "private"` on the
//!   listings and reads, the server's info in `_meta`). The methods 2026-07-28 removed
//!   (`initialize`, `ping`, `logging/setLevel`, `resources/subscribe`,
//!   `resources/unsubscribe`) get -32601.
//! - **`tools/call`, `prompts/get`, `resources/read`** may make the server ask the client
//!   something: each runs on a lane of its own, so that a request the server sends
//!   (`elicitation/create`, `sampling/createMessage`, `roots/list`, which on stdio names no
//!   request) belongs to the one call on that lane. Such a request becomes an
//!   `InputRequiredResult` (keys `elicit-N`, `sample-N`, `roots-N`) whose `requestState` is
//!   an opaque key ([`super::pending`]); the call stays running, parked under that key, for
//!   at most `--input-timeout`. The client's retry (same method and target, same principal)
//!   takes it back: each `inputResponses` entry becomes the answer to the server's request,
//!   and the call goes on: to its result, or to the next round. Requests of a kind the
//!   client's capabilities do not cover are refused to the server (-32601) instead. Progress
//!   goes to the client under its own token, and so do log messages at or above the level
//!   its `_meta` asks for (none without one).
//! - **`subscriptions/listen`** is acknowledged with what the server can send (list changes
//!   it declared `listChanged` for; resource updates if it declared `subscribe`, for which
//!   the proxy subscribes on the first lane, counting subscribers per URI; at most
//!   [`MAX_URIS`] per subscription), and carries the lanes' list changes and updates, tagged
//!   with the subscription's id.
//!
//! Lanes are started on demand, at most `--max-children` (a call that finds them all busy
//! waits for one); a lane whose process ended is replaced by the next one started, and the
//! calls it was running fail with -32603 naming how it ended.

use std::collections::{BTreeMap, HashMap};
use std::pin::pin;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_jsonrpc::{ErrorCode, ErrorObject, Progress, Request, RequestContext, RequestOptions};
use mcp_transport_http::PrincipalId;
use mcp_types::{McpParamHeaders, SUBSCRIPTION_ID_META_KEY, SubscriptionFilter};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::sync::{Semaphore, broadcast, mpsc, oneshot};
use tokio::task::JoinHandle;

use super::instances::{self, Instances, Located};
use super::meta::{self, Head, InputRequest, MODERN, raw, raw_map};
use super::pending::{Binding, Parked};
use super::{ModernArgs, server_failed};
use crate::proxy::child::ChildCommand;
use crate::proxy::headers::{CallTarget, ToolHeaders, check};

mod lane;

use lane::{AbortOnDrop, CallEvent, Lane, LaneGuard, Reply, ServerEvent, lock};

/// The most events (progress, log messages, input requests, the result) waiting for a
/// call's client; progress and log messages past it are dropped.
const CALL_QUEUE: usize = 64;
/// How many list changes and updates a subscription may fall behind before it is told that
/// everything it covers may have changed.
const EVENTS: usize = 64;
/// The most listing pages read to find a tool's `x-mcp-header` parameters.
const MAX_PAGES: usize = 64;
/// The most resources one subscription follows (the first ones it names, sorted).
const MAX_URIS: usize = 256;

/// The methods 2026-07-28 removed.
const REMOVED: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// The requests whose handler may ask the client for input.
const WITH_INPUT: &[&str] = &["tools/call", "prompts/get", "resources/read"];

/// A request of the server waiting for the client's answer.
#[derive(Debug)]
struct Outstanding {
    request: InputRequest,
    reply: oneshot::Sender<Reply>,
}

/// A running call that may ask for input. Dropping it answers the server's outstanding
/// requests with an error, cancels the call on the server, and frees its lane (the fields
/// drop in that order).
#[derive(Debug)]
pub(crate) struct Call {
    outstanding: BTreeMap<String, Outstanding>,
    events: mpsc::Receiver<CallEvent>,
    next_key: usize,
    method: String,
    _task: AbortOnDrop,
    _lane: LaneGuard,
}

/// 2026-07-28 clients of a handshake-era server; see the module docs.
#[derive(Debug)]
pub(crate) struct Bridge {
    command: ChildCommand,
    lanes: tokio::sync::Mutex<Vec<Arc<Lane>>>,
    permits: Arc<Semaphore>,
    /// The first lane's `initialize` result.
    init: Mutex<Value>,
    parked: Arc<Parked<Call>>,
    events: broadcast::Sender<ServerEvent>,
    tools: Arc<ToolHeaders>,
    /// The resources subscribed on the first lane, with how many subscriptions want each.
    subscribed: Arc<Mutex<HashMap<String, usize>>>,
    janitor: JoinHandle<()>,
    /// The other instances of the deployment (`--redis`).
    instances: Option<Instances>,
}

impl Bridge {
    /// Starts the first lane (failing if the server does not initialize) and the sweeping of
    /// expired parked calls.
    pub(crate) async fn start(
        command: ChildCommand,
        args: &ModernArgs,
        instances: Option<Instances>,
    ) -> anyhow::Result<Self> {
        let (events, _) = broadcast::channel(EVENTS);
        let tools = Arc::new(ToolHeaders::default());
        let first = Lane::start(&command, events.clone(), tools.clone())
            .await
            .map_err(|e| anyhow::anyhow!("{}", e.message))?;
        let max = usize::try_from(args.max_children).unwrap_or(1).max(1);
        let parked = Arc::new(Parked::new(max, args.input_timeout));
        let sweeping = parked.clone();
        let every =
            (args.input_timeout / 10).clamp(Duration::from_millis(100), Duration::from_secs(10));
        let janitor = tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            loop {
                tick.tick().await;
                let expired = sweeping.sweep();
                if !expired.is_empty() {
                    tracing::info!(
                        calls = expired.len(),
                        "cancelled calls whose clients did not answer in time"
                    );
                }
                drop(expired);
            }
        });
        Ok(Bridge {
            command,
            init: Mutex::new(first.init.clone()),
            lanes: tokio::sync::Mutex::new(vec![first]),
            permits: Arc::new(Semaphore::new(max)),
            parked,
            events,
            tools,
            subscribed: Arc::new(Mutex::new(HashMap::new())),
            janitor,
            instances,
        })
    }

    /// Ends every lane (the calls parked are dropped with the bridge).
    pub(crate) async fn stop(&self) {
        self.janitor.abort();
        let lanes = std::mem::take(&mut *self.lanes.lock().await);
        for lane in lanes {
            lane.stop().await;
        }
    }

    fn server_info(&self) -> Value {
        lock(&self.init)
            .get("serverInfo")
            .cloned()
            .unwrap_or(Value::Null)
    }

    fn capabilities(&self) -> Value {
        lock(&self.init)
            .get("capabilities")
            .cloned()
            .unwrap_or(Value::Null)
    }

    async fn new_lane(&self) -> Result<Arc<Lane>, ErrorObject> {
        Lane::start(&self.command, self.events.clone(), self.tools.clone()).await
    }

    /// The first live lane, for requests that ask nothing of the client (started if there
    /// is none).
    async fn primary(&self) -> Result<Arc<Lane>, ErrorObject> {
        let mut lanes = self.lanes.lock().await;
        lanes.retain(|l| l.is_alive());
        if let Some(lane) = lanes.first() {
            return Ok(lane.clone());
        }
        let lane = self.new_lane().await?;
        *lock(&self.init) = lane.init.clone();
        lanes.push(lane.clone());
        Ok(lane)
    }

    /// A lane of its own for a call that may ask for input: an idle one, or a new one; waits
    /// while `--max-children` calls hold one each.
    async fn acquire(&self) -> Result<LaneGuard, ErrorObject> {
        let permit = self
            .permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| ErrorObject::internal_error("the proxy is stopping"))?;
        let mut lanes = self.lanes.lock().await;
        lanes.retain(|l| l.is_alive());
        for lane in lanes.iter() {
            if lane
                .busy
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return Ok(LaneGuard {
                    lane: lane.clone(),
                    _permit: permit,
                });
            }
        }
        let lane = self.new_lane().await?;
        lane.busy.store(true, Ordering::Release);
        if lanes.is_empty() {
            *lock(&self.init) = lane.init.clone();
        }
        lanes.push(lane.clone());
        Ok(LaneGuard {
            lane,
            _permit: permit,
        })
    }

    /// Serves one 2026-07-28 request; see the module docs.
    pub(crate) async fn serve(&self, request: Request, ctx: RequestContext) -> Reply {
        let method = request.method.into_owned();
        let (head, params) = meta::split(request.params.as_deref())?;
        // A retry may have to go to the instance holding its call, as it came.
        let original = head
            .request_state
            .is_some()
            .then_some(request.params)
            .flatten();
        let version = head.version.clone().unwrap_or_default();
        if version != MODERN {
            return Err(meta::unsupported_version(&version));
        }
        if REMOVED.contains(&method.as_str()) {
            return Err(ErrorObject::method_not_found(&method));
        }
        match method.as_str() {
            "server/discover" => Ok(meta::discover(&lock(&self.init))),
            "subscriptions/listen" => self.listen(params, &ctx).await,
            m if WITH_INPUT.contains(&m) => self.call(method, head, params, original, &ctx).await,
            _ => self.simple(method, head, params, &ctx).await,
        }
    }

    /// A request that asks nothing of the client, on the first lane.
    async fn simple(
        &self,
        method: String,
        head: Head,
        params: Map<String, Value>,
        ctx: &RequestContext,
    ) -> Reply {
        let lane = self.primary().await?;
        let (progress_tx, mut progress_rx) = mpsc::channel::<Progress>(16);
        let mut options = RequestOptions::new().without_timeout();
        if head.progress_token.is_some() {
            options = options.progress(progress_tx);
        }
        let mut call = pin!(
            lane.peer
                .request_with(method.clone(), Some(raw_map(params)), options)
        );
        let peer = ctx.peer();
        let outcome = loop {
            tokio::select! {
                biased;
                Some(p) = progress_rx.recv() => {
                    if let Some(token) = &head.progress_token {
                        let _ = peer
                            .notify_progress(token, p.progress, p.total, p.message.as_deref())
                            .await;
                    }
                }
                outcome = &mut call => break outcome,
            }
        };
        // Progress is routed as it is read: what came before the answer is queued by now.
        if let Some(token) = &head.progress_token {
            while let Ok(p) = progress_rx.try_recv() {
                let _ = peer
                    .notify_progress(token, p.progress, p.total, p.message.as_deref())
                    .await;
            }
        }
        let result = outcome.map_err(|e| server_failed(&e))?;
        if method == "tools/list" {
            self.tools.observe(&result);
        }
        Ok(meta::complete(&method, result, &self.server_info()))
    }

    /// `tools/call`, `prompts/get` or `resources/read`: a new call, or the retry of a parked
    /// one.
    async fn call(
        &self,
        method: String,
        head: Head,
        params: Map<String, Value>,
        original: Option<Box<RawValue>>,
        ctx: &RequestContext,
    ) -> Reply {
        let principal = ctx
            .extensions()
            .get::<http::Extensions>()
            .and_then(|e| e.get::<PrincipalId>())
            .map(|p| p.as_str().to_owned());
        let binding = Binding {
            method: method.clone(),
            target: head.target.clone().unwrap_or_default(),
            principal,
        };
        if let Some(state) = &head.request_state {
            let key = match &self.instances {
                None => state.clone(),
                Some(instances) => match instances.open(state).map_err(|r| r.error())? {
                    Located::Here(key) => key,
                    Located::There(url) => {
                        return instances::forward(&url, method, original, ctx).await;
                    }
                },
            };
            let mut call = self.parked.take(&key, &binding).map_err(|r| r.error())?;
            for (key, answer) in &head.input_responses {
                if let Some(outstanding) = call.outstanding.remove(key) {
                    let _ = outstanding.reply.send(Ok(raw(answer)));
                }
            }
            return self.drive(call, &head, binding, ctx).await;
        }
        if method == "tools/call"
            && let Some(headers) = ctx.extensions().get::<McpParamHeaders>()
        {
            self.check_headers(&params, headers).await?;
        }
        let guard = self.acquire().await?;
        let call = start(guard, method, params, head.progress_token.is_some());
        self.drive(call, &head, binding, ctx).await
    }

    /// Follows a call for its client until it ends (its result) or waits for input (an
    /// input-required result, the call parked).
    async fn drive(
        &self,
        mut call: Call,
        head: &Head,
        binding: Binding,
        ctx: &RequestContext,
    ) -> Reply {
        let peer = ctx.peer();
        loop {
            let event = if call.outstanding.is_empty() {
                call.events.recv().await
            } else {
                match call.events.try_recv() {
                    Ok(event) => Some(event),
                    Err(mpsc::error::TryRecvError::Empty) => return self.park(call, binding),
                    Err(mpsc::error::TryRecvError::Disconnected) => None,
                }
            };
            let Some(event) = event else {
                return Err(ErrorObject::internal_error(
                    "the call on the stdio server ended without an answer",
                ));
            };
            match event {
                CallEvent::Done(outcome) => {
                    // Log messages read just before the answer may still be on their way
                    // through the connection's notification handler.
                    if head.log_level.is_some() {
                        let grace = super::forward::LOG_GRACE;
                        while let Ok(Some(CallEvent::Log(params))) =
                            tokio::time::timeout(grace, call.events.recv()).await
                        {
                            if head.wants_log(meta::log_level(Some(&params))) {
                                let _ = peer.notify("notifications/message", Some(params)).await;
                            }
                        }
                    }
                    let result = outcome.map_err(|e| server_failed(&e))?;
                    return Ok(meta::complete(&call.method, result, &self.server_info()));
                }
                CallEvent::Progress(p) => {
                    if let Some(token) = &head.progress_token {
                        let _ = peer
                            .notify_progress(token, p.progress, p.total, p.message.as_deref())
                            .await;
                    }
                }
                CallEvent::Log(params) => {
                    if head.wants_log(meta::log_level(Some(&params))) {
                        let _ = peer.notify("notifications/message", Some(params)).await;
                    }
                }
                CallEvent::Input {
                    method,
                    params,
                    reply,
                } => {
                    if !meta::can_answer(&head.capabilities, &method, &params) {
                        let _ = reply.send(Err(ErrorObject::new(
                            ErrorCode::METHOD_NOT_FOUND,
                            format!("the client does not support {method}"),
                        )));
                        continue;
                    }
                    let key = format!("{}-{}", meta::input_kind(&method), call.next_key);
                    call.next_key += 1;
                    let request = InputRequest { method, params };
                    call.outstanding.insert(key, Outstanding { request, reply });
                }
            }
        }
    }

    /// Parks a call waiting for its client's answers and asks for them.
    fn park(&self, call: Call, binding: Binding) -> Reply {
        let requests: BTreeMap<String, InputRequest> = call
            .outstanding
            .iter()
            .map(|(k, o)| (k.clone(), o.request.clone()))
            .collect();
        match self.parked.park(binding, call) {
            Ok(key) => {
                let state = match &self.instances {
                    Some(instances) => instances.seal(&key),
                    None => key,
                };
                Ok(meta::input_required(&requests, &state, &self.server_info()))
            }
            Err(call) => {
                drop(call);
                Err(ErrorObject::internal_error(
                    "too many calls are waiting for their clients' input; try again later",
                ))
            }
        }
    }

    /// Checks a `tools/call`'s `Mcp-Param-*` headers against the tool's parameters (listing
    /// the tools first if it was not seen).
    async fn check_headers(
        &self,
        params: &Map<String, Value>,
        headers: &McpParamHeaders,
    ) -> Result<(), ErrorObject> {
        let raw_params = raw_map(params.clone());
        let target = CallTarget::of(Some(&raw_params));
        let Some(name) = target.name else {
            return Ok(());
        };
        if self.tools.get(&name).is_none() {
            self.list_tools().await;
        }
        match self.tools.get(&name) {
            Some(known) => check(&known, target.arguments.as_ref(), headers),
            None => Ok(()),
        }
    }

    async fn list_tools(&self) {
        let Ok(lane) = self.primary().await else {
            return;
        };
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let Ok(result) = lane.peer.request("tools/list", Some(raw(&params))).await else {
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

    /// `subscriptions/listen`: acknowledged, then fed from the lanes until the client leaves.
    async fn listen(&self, params: Map<String, Value>, ctx: &RequestContext) -> Reply {
        let asked: SubscriptionFilter = params
            .get("notifications")
            .cloned()
            .and_then(|f| serde_json::from_value(f).ok())
            .unwrap_or_default();
        let honoured = Honoured::new(&asked, &self.capabilities());
        let id = serde_json::to_value(ctx.id()).unwrap_or(Value::Null);
        let tag = json!({ SUBSCRIPTION_ID_META_KEY: id });
        let peer = ctx.peer();
        let mut ack = Map::new();
        ack.insert(
            "notifications".to_owned(),
            serde_json::to_value(honoured.filter()).unwrap_or_else(|_| json!({})),
        );
        ack.insert("_meta".to_owned(), tag.clone());
        // Subscribed before the acknowledgement: nothing after it is missed.
        let mut events = self.events.subscribe();
        let _subscribed = self.subscribe(&honoured.uris).await;
        let _ = peer
            .notify(
                "notifications/subscriptions/acknowledged",
                Some(raw_map(ack)),
            )
            .await;
        loop {
            let batch = match events.recv().await {
                Ok(event) => vec![event],
                Err(broadcast::error::RecvError::Lagged(_)) => honoured.everything(),
                Err(broadcast::error::RecvError::Closed) => break,
            };
            for event in batch {
                if let Some((method, params)) = honoured.notification(&event, &tag) {
                    let _ = peer.notify(method, Some(params)).await;
                }
            }
        }
        Ok(raw(&json!({"resultType": "complete", "_meta": tag})))
    }

    /// Subscribes to `uris` on the first lane (each once, however many subscriptions want
    /// it); the guard unsubscribes what no subscription wants any more.
    async fn subscribe(&self, uris: &[String]) -> Option<Unsubscribe> {
        if uris.is_empty() {
            return None;
        }
        let lane = self.primary().await.ok()?;
        for uri in uris {
            let first = {
                let mut subscribed = lock(&self.subscribed);
                let count = subscribed.entry(uri.clone()).or_insert(0);
                *count += 1;
                *count == 1
            };
            if first {
                let params = raw(&json!({ "uri": uri }));
                if let Err(e) = lane.peer.request("resources/subscribe", Some(params)).await {
                    tracing::debug!(%uri, "resources/subscribe: {e}");
                }
            }
        }
        Some(Unsubscribe {
            lane,
            uris: uris.to_vec(),
            subscribed: self.subscribed.clone(),
        })
    }
}

/// Unsubscribes, when the last subscription wanting a resource ends.
struct Unsubscribe {
    lane: Arc<Lane>,
    uris: Vec<String>,
    subscribed: Arc<Mutex<HashMap<String, usize>>>,
}

impl Drop for Unsubscribe {
    fn drop(&mut self) {
        let mut last = Vec::new();
        {
            let mut subscribed = lock(&self.subscribed);
            for uri in &self.uris {
                if let Some(count) = subscribed.get_mut(uri) {
                    *count -= 1;
                    if *count == 0 {
                        subscribed.remove(uri);
                        last.push(uri.clone());
                    }
                }
            }
        }
        if last.is_empty() || !self.lane.is_alive() {
            return;
        }
        let peer = self.lane.peer.clone();
        tokio::spawn(async move {
            for uri in last {
                let params = raw(&json!({ "uri": uri }));
                let _ = peer.request("resources/unsubscribe", Some(params)).await;
            }
        });
    }
}

/// Starts a call on its lane: the request runs on a task of its own (so that it outlives the
/// HTTP request while parked), reporting to the call's events.
fn start(guard: LaneGuard, method: String, params: Map<String, Value>, progress: bool) -> Call {
    let (tx, rx) = mpsc::channel(CALL_QUEUE);
    *lock(&guard.lane.state.current) = Some(tx.clone());
    let peer = guard.lane.peer.clone();
    let request = method.clone();
    let task = tokio::spawn(async move {
        let (progress_tx, mut progress_rx) = mpsc::channel::<Progress>(16);
        let mut options = RequestOptions::new().without_timeout();
        if progress {
            options = options.progress(progress_tx);
        }
        let mut call = pin!(peer.request_with(request, Some(raw_map(params)), options));
        let outcome = loop {
            tokio::select! {
                biased;
                Some(p) = progress_rx.recv() => {
                    let _ = tx.try_send(CallEvent::Progress(p));
                }
                outcome = &mut call => break outcome,
            }
        };
        // Progress is routed as it is read: what came before the answer is queued by now.
        while let Ok(p) = progress_rx.try_recv() {
            let _ = tx.try_send(CallEvent::Progress(p));
        }
        let _ = tx.send(CallEvent::Done(outcome)).await;
    });
    Call {
        outstanding: BTreeMap::new(),
        events: rx,
        next_key: 0,
        method,
        _task: AbortOnDrop(task),
        _lane: guard,
    }
}

/// What one subscription carries: the part of its filter the server can honour.
#[derive(Debug)]
struct Honoured {
    tools: bool,
    prompts: bool,
    resources: bool,
    uris: Vec<String>,
}

impl Honoured {
    fn new(asked: &SubscriptionFilter, caps: &Value) -> Self {
        let declared = |kind: &str, flag: &str| caps[kind][flag] == Value::Bool(true);
        let mut uris: Vec<String> = if declared("resources", "subscribe") {
            asked.resource_subscriptions.clone().unwrap_or_default()
        } else {
            Vec::new()
        };
        uris.sort();
        uris.dedup();
        uris.truncate(MAX_URIS);
        Honoured {
            tools: asked.tools_list_changed == Some(true) && declared("tools", "listChanged"),
            prompts: asked.prompts_list_changed == Some(true) && declared("prompts", "listChanged"),
            resources: asked.resources_list_changed == Some(true)
                && declared("resources", "listChanged"),
            uris,
        }
    }

    fn filter(&self) -> SubscriptionFilter {
        let mut filter = SubscriptionFilter::default();
        filter.tools_list_changed = self.tools.then_some(true);
        filter.prompts_list_changed = self.prompts.then_some(true);
        filter.resources_list_changed = self.resources.then_some(true);
        filter.resource_subscriptions = (!self.uris.is_empty()).then(|| self.uris.clone());
        filter
    }

    /// Every event this subscription covers (after it fell behind).
    fn everything(&self) -> Vec<ServerEvent> {
        let mut all = vec![
            ServerEvent::ToolsListChanged,
            ServerEvent::PromptsListChanged,
            ServerEvent::ResourcesListChanged,
        ];
        all.extend(self.uris.iter().cloned().map(ServerEvent::ResourceUpdated));
        all
    }

    /// The notification for `event`, tagged, if this subscription carries it.
    fn notification(
        &self,
        event: &ServerEvent,
        tag: &Value,
    ) -> Option<(&'static str, Box<RawValue>)> {
        let tagged = || raw(&json!({ "_meta": tag }));
        match event {
            ServerEvent::ToolsListChanged if self.tools => {
                Some(("notifications/tools/list_changed", tagged()))
            }
            ServerEvent::PromptsListChanged if self.prompts => {
                Some(("notifications/prompts/list_changed", tagged()))
            }
            ServerEvent::ResourcesListChanged if self.resources => {
                Some(("notifications/resources/list_changed", tagged()))
            }
            ServerEvent::ResourceUpdated(uri) if self.uris.contains(uri) => Some((
                "notifications/resources/updated",
                raw(&json!({ "uri": uri, "_meta": tag })),
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subscription_carries_what_the_server_declared() {
        let asked: SubscriptionFilter = serde_json::from_value(json!({
            "toolsListChanged": true, "promptsListChanged": true,
            "resourcesListChanged": true, "resourceSubscriptions": ["b", "a", "a"]
        }))
        .unwrap();
        let caps = json!({"tools": {"listChanged": true}, "prompts": {},
                          "resources": {"subscribe": true}});
        let honoured = Honoured::new(&asked, &caps);
        assert_eq!(
            serde_json::to_value(honoured.filter()).unwrap(),
            json!({"toolsListChanged": true, "resourceSubscriptions": ["a", "b"]})
        );
        let tag = json!({SUBSCRIPTION_ID_META_KEY: 3});
        let (method, params) = honoured
            .notification(&ServerEvent::ResourceUpdated("a".into()), &tag)
            .unwrap();
        assert_eq!(method, "notifications/resources/updated");
        assert_eq!(
            serde_json::from_str::<Value>(params.get()).unwrap(),
            json!({"uri": "a", "_meta": tag})
        );
        assert!(
            honoured
                .notification(&ServerEvent::PromptsListChanged, &tag)
                .is_none()
        );
        assert!(
            honoured
                .notification(&ServerEvent::ResourceUpdated("c".into()), &tag)
                .is_none()
        );
        assert_eq!(honoured.everything().len(), 5);
        let none = Honoured::new(&asked, &Value::Null);
        assert_eq!(serde_json::to_value(none.filter()).unwrap(), json!({}));
    }
}
