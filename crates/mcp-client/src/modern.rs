//! Requests of the stateless era (2026-07-28): each carries the client's declarations in its
//! `_meta`; an `input_required` result is answered through the installed handlers and the
//! request sent again with the answers, until the result is complete; cacheable results go
//! through the response cache.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use mcp_jsonrpc::trace::OperationSpan;
use mcp_jsonrpc::{Peer, RequestOptions};
use mcp_types::{
    CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, ClientCapabilities, Implementation,
    InputRequiredResult, JsonObject, LOG_LEVEL_META_KEY, LoggingLevel, PROTOCOL_VERSION_META_KEY,
    ProtocolVersion, ResultType,
};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use tracing::{Instrument as _, Span};

use crate::call_options::Limits;
use crate::error::{Error, Result};
use crate::input;
use crate::shared::Shared;
use crate::telemetry;

/// The default of [`ClientBuilder::max_input_rounds`](crate::ClientBuilder::max_input_rounds).
pub(crate) const DEFAULT_MAX_INPUT_ROUNDS: u32 = 8;

/// The methods of the handshake era that 2026-07-28 removed, with what to use instead.
const REMOVED: &[(&str, &str)] = &[
    ("initialize", ""),
    ("notifications/initialized", ""),
    ("ping", "Client::ping sends server/discover instead"),
    (
        "logging/setLevel",
        "the level travels in each request's _meta; Client::set_logging_level sets it",
    ),
    ("resources/subscribe", "use Client::listen"),
    ("resources/unsubscribe", "use Client::listen"),
    ("notifications/roots/list_changed", ""),
    (
        "tasks/result",
        "the result comes with tasks/get; Client::task_result waits for it",
    ),
    ("tasks/list", ""),
];

/// What to use instead of `method` if 2026-07-28 removed it.
pub(crate) fn removed(method: &str) -> Option<&'static str> {
    REMOVED.iter().find(|(m, _)| *m == method).map(|(_, h)| *h)
}

/// The per-request state of a client that speaks the stateless era.
pub(crate) struct Modern {
    version: ProtocolVersion,
    /// The `_meta` members every request carries: version, capabilities, client info.
    meta: JsonObject,
    /// The log level requests opt in to (`io.modelcontextprotocol/logLevel`).
    log_level: Mutex<Option<LoggingLevel>>,
    max_input_rounds: u32,
}

/// The `resultType` of a result.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Head {
    #[serde(default)]
    result_type: Option<ResultType>,
}

impl Modern {
    pub(crate) fn new(
        version: ProtocolVersion,
        capabilities: &ClientCapabilities,
        client_info: &Implementation,
        max_input_rounds: u32,
    ) -> Result<Self> {
        let encode = |e| Error::decode("_meta", "params", e);
        let mut meta = JsonObject::new();
        meta.insert(
            PROTOCOL_VERSION_META_KEY.to_owned(),
            Value::String(version.as_str().to_owned()),
        );
        meta.insert(
            CLIENT_CAPABILITIES_META_KEY.to_owned(),
            serde_json::to_value(capabilities).map_err(encode)?,
        );
        meta.insert(
            CLIENT_INFO_META_KEY.to_owned(),
            serde_json::to_value(client_info).map_err(encode)?,
        );
        Ok(Modern {
            version,
            meta,
            log_level: Mutex::new(None),
            max_input_rounds,
        })
    }

    /// The negotiated version.
    pub(crate) fn version(&self) -> &ProtocolVersion {
        &self.version
    }

    /// The log level later requests ask for.
    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        *self
            .log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(level);
    }

    /// `params` with the request `_meta` merged in; members the caller set are kept.
    pub(crate) fn with_meta(&self, method: &str, params: Value) -> Result<JsonObject> {
        let mut params = match params {
            Value::Object(object) => object,
            Value::Null => JsonObject::new(),
            _ => {
                return Err(Error::Protocol {
                    method: method.to_owned(),
                    message: "the params of a request must be an object".to_owned(),
                });
            }
        };
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(JsonObject::new()));
        let Value::Object(meta) = meta else {
            return Err(Error::Protocol {
                method: method.to_owned(),
                message: "params._meta must be an object".to_owned(),
            });
        };
        for (key, value) in &self.meta {
            meta.entry(key.clone()).or_insert_with(|| value.clone());
        }
        let level = *self
            .log_level
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(level) = level {
            let level =
                serde_json::to_value(level).map_err(|e| Error::decode(method, "params", e))?;
            meta.entry(LOG_LEVEL_META_KEY.to_owned()).or_insert(level);
        }
        Ok(params)
    }

    /// Sends `method` with `params` (and the `_meta`), answers `input_required` results until
    /// the result is complete, and returns it; a cacheable result is taken from, or stored
    /// in, the response cache.
    ///
    /// Each request and each answering of input is bounded by `limits.idle`, the whole call
    /// by `limits.total`.
    ///
    /// `span`, the call's span when a subscriber wants it, is described with the first
    /// round's id, and its context goes in every round's `_meta`: the server's spans of all
    /// rounds are its children, one trace.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn request(
        &self,
        peer: &Peer,
        shared: &Shared,
        method: &'static str,
        params: Value,
        options: RequestOptions,
        limits: Limits,
        span: Option<&mut OperationSpan>,
    ) -> Result<Box<RawValue>> {
        let rounds = self.rounds(peer, shared, method, params, options, limits.idle, span);
        match limits.total {
            Some(total) => tokio::time::timeout(total, rounds)
                .await
                .map_err(|_| Error::Timeout(total))?,
            None => rounds.await,
        }
    }

    #[allow(clippy::too_many_arguments)]
    async fn rounds(
        &self,
        peer: &Peer,
        shared: &Shared,
        method: &'static str,
        params: Value,
        options: RequestOptions,
        idle: Option<Duration>,
        span: Option<&mut OperationSpan>,
    ) -> Result<Box<RawValue>> {
        let cache_key = shared.cache.key(method, &params);
        if let Some(cached) = cache_key.as_ref().and_then(|k| shared.cache.get(k)) {
            tracing::trace!(method, "answered from the response cache");
            return Ok(cached);
        }
        let mut params = self.with_meta(method, params)?;
        // The first round's id, chosen now for the span (each later round gets a fresh one).
        let mut first_id = None;
        // Entered around each round's exchange only once described: the OpenTelemetry span
        // takes its name when the `tracing` span is first entered.
        let mut entered = Span::none();
        if let Some(span) = span {
            let id = peer.next_id();
            telemetry::describe_object(span, method, &mut params, &id, self.version.as_str());
            first_id = Some(id);
            entered = span.span().clone();
        }
        let mut rounds = 0;
        loop {
            let raw = serde_json::value::to_raw_value(&params)
                .map_err(|e| Error::decode(method, "params", e))?;
            let round_options = match first_id.take() {
                Some(id) => options.clone().id(id),
                None => options.clone(),
            };
            let result = peer
                .request_with(method, Some(raw), round_options)
                .instrument(entered.clone())
                .await
                .map_err(|e| Error::from_jsonrpc(e, method, shared.failure.get()))?;
            let head: Head = serde_json::from_str(result.get())
                .map_err(|e| Error::decode(method, "result", e))?;
            match head.result_type {
                None | Some(ResultType::Complete) => {
                    // The result of answered input depends on the answers: never cached.
                    if rounds == 0
                        && let Some(key) = cache_key
                    {
                        shared.cache.put(key, &result);
                    }
                    return Ok(result);
                }
                Some(ResultType::InputRequired) => {}
                // A task handle (the tasks extension), where the server may give one.
                Some(ResultType::Task) if method == "tools/call" => return Ok(result),
                Some(other) => {
                    return Err(Error::Protocol {
                        method: method.to_owned(),
                        message: format!("unexpected resultType {:?}", other.as_str()),
                    });
                }
            }
            if rounds >= self.max_input_rounds {
                return Err(Error::TooManyInputRounds {
                    method: method.to_owned(),
                    rounds,
                });
            }
            rounds += 1;
            let asked: InputRequiredResult = serde_json::from_str(result.get())
                .map_err(|e| Error::decode(method, "result", e))?;
            tracing::debug!(
                method,
                round = rounds,
                requests = asked.input_requests.as_ref().map_or(0, |r| r.len()),
                "the server asked for input"
            );
            let answering = input::answer(shared, asked.input_requests.unwrap_or_default())
                .instrument(entered.clone());
            let answers = match idle {
                Some(idle) => tokio::time::timeout(idle, answering)
                    .await
                    .map_err(|_| Error::Timeout(idle))??,
                None => answering.await?,
            };
            params.insert(
                "inputResponses".to_owned(),
                serde_json::to_value(answers).map_err(|e| Error::decode(method, "params", e))?,
            );
            // Echoed verbatim, and only when the server gave one.
            match asked.request_state {
                Some(state) => params.insert("requestState".to_owned(), Value::String(state)),
                None => params.remove("requestState"),
            };
        }
    }
}
