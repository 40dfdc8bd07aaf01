//! The opening exchange of a connection, per era: `initialize` and
//! `notifications/initialized` (handshake era), `server/discover` (2026-07-28), or the dual-era
//! probe that tries the second and falls back to the first.

use std::sync::Arc;
use std::time::Duration;

use mcp_jsonrpc::{ConnectionInfo, Peer, RequestOptions};
use mcp_types::{
    ClientCapabilities, Discover, DiscoverResult, EmptyParams, Era, Implementation, Initialize,
    InitializeRequestParams, InitializeResult, Initialized, JsonObject, Notification as _,
    ProtocolVersion, Request as _, ResultType,
};
use serde_json::Value;

use crate::era::{EraChoice, EraMemory};
use crate::error::{Error, Result};
use crate::modern::Modern;
use crate::transport::FailureSlot;
use crate::versions::{HANDSHAKE_VERSIONS, MODERN_VERSIONS};

/// What the builder settled for the opening exchange.
pub(crate) struct Plan {
    pub(crate) choice: EraChoice,
    /// Proposed in `initialize`.
    pub(crate) handshake_version: ProtocolVersion,
    /// Sent with `server/discover`.
    pub(crate) modern_version: ProtocolVersion,
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) client_info: Implementation,
    pub(crate) probe_timeout: Duration,
    pub(crate) max_total_timeout: Option<Duration>,
    pub(crate) memory: Option<(EraMemory, String)>,
    pub(crate) max_input_rounds: u32,
    /// What the transport said of the connection, for the spans (when they are wanted).
    pub(crate) connection: Option<Arc<ConnectionInfo>>,
}

/// What the opening exchange settled.
pub(crate) struct Negotiated {
    /// The `initialize` result, or one made from the discover result.
    pub(crate) init: InitializeResult,
    pub(crate) discover: Option<DiscoverResult>,
    pub(crate) modern: Option<Modern>,
}

impl Plan {
    fn options(&self, timeout: Option<Duration>) -> RequestOptions {
        let mut options = RequestOptions::new();
        if let Some(timeout) = timeout {
            options = options.timeout(timeout);
        }
        if let Some(max) = self.max_total_timeout {
            options = options.max_total_timeout(max);
        }
        options
    }
}

/// Runs the opening exchange the plan asks for, and remembers its outcome.
pub(crate) async fn negotiate(
    peer: &Peer,
    failure: &FailureSlot,
    plan: &Plan,
) -> Result<Negotiated> {
    let remembered = plan
        .memory
        .as_ref()
        .and_then(|(memory, key)| memory.get(key));
    let outcome = match (plan.choice, remembered) {
        (EraChoice::Legacy, _) => initialize(peer, failure, plan).await,
        (EraChoice::Modern, _) => discover(peer, failure, plan, None).await,
        (EraChoice::Auto, Some(version)) => {
            let first = if version.era() == Era::Stateless {
                discover(peer, failure, plan, None).await
            } else {
                initialize(peer, failure, plan).await
            };
            match first {
                Err(e) if !e.is_closed() => {
                    tracing::info!(error = %e, %version, "the era remembered for this server failed; probing again");
                    if let Some((memory, key)) = &plan.memory {
                        memory.forget(key);
                    }
                    probe(peer, failure, plan).await
                }
                other => other,
            }
        }
        (EraChoice::Auto, None) => probe(peer, failure, plan).await,
    };
    if let (Ok(negotiated), Some((memory, key))) = (&outcome, &plan.memory) {
        memory.remember(key.clone(), negotiated.init.protocol_version.clone());
    }
    outcome
}

/// The dual-era probe: `server/discover` within the probe timeout, else `initialize`.
async fn probe(peer: &Peer, failure: &FailureSlot, plan: &Plan) -> Result<Negotiated> {
    match discover(peer, failure, plan, Some(plan.probe_timeout)).await {
        Err(e) if falls_back(&e) => {
            tracing::info!(error = %e, "the server does not speak 2026-07-28; sending initialize");
            initialize(peer, failure, plan).await
        }
        other => other,
    }
}

/// Whether the answer to the probe says "not a 2026-07-28 server": any JSON-RPC error other
/// than the revision's own refusals (-32601 for an unknown method, "no session", an HTTP
/// error without a JSON-RPC body), no answer in time, a result that is not a discover result,
/// or a version refusal that names only handshake revisions. Refused credentials (an error
/// whose `data` carries the challenge, `wwwAuthenticate`, as the HTTP transport reports a
/// 401 or 403 its auth provider could not satisfy) say nothing about the era: no fallback.
fn falls_back(e: &Error) -> bool {
    match e {
        Error::Rpc(rpc) => rpc
            .data
            .as_ref()
            .and_then(|d| d.get("wwwAuthenticate"))
            .is_none(),
        Error::Timeout(_) => true,
        Error::Decode { what: "result", .. } => true,
        Error::VersionNotSupported { supported, .. } => {
            !supported.iter().any(|v| MODERN_VERSIONS.contains(v))
        }
        _ => false,
    }
}

/// `server/discover` at the plan's version; if the server refuses the version (-32022) and
/// names one this client speaks, once more with that one.
async fn discover(
    peer: &Peer,
    failure: &FailureSlot,
    plan: &Plan,
    timeout: Option<Duration>,
) -> Result<Negotiated> {
    let method = Discover::METHOD;
    let mut version = plan.modern_version.clone();
    let mut retried = false;
    loop {
        // The 2025-11-25 `tasks` capability has no place in 2026-07-28 (the extension does).
        let mut capabilities = plan.capabilities.clone();
        capabilities.tasks = None;
        let modern = Modern::new(
            version.clone(),
            &capabilities,
            &plan.client_info,
            plan.max_input_rounds,
        )?;
        let params = modern.with_meta(method, Value::Object(JsonObject::new()))?;
        let raw = serde_json::value::to_raw_value(&params)
            .map_err(|e| Error::decode(method, "params", e))?;
        let answer = mcp_jsonrpc::trace::request_on(
            peer,
            method,
            Some(raw),
            plan.options(timeout),
            Some(version.as_str()),
            plan.connection.as_deref(),
        )
        .await
        .map_err(|e| Error::from_jsonrpc(e, method, failure.get()));
        let raw = match answer {
            Ok(raw) => raw,
            Err(Error::VersionNotSupported { supported, .. }) if !retried => {
                let Some(spoken) = supported
                    .iter()
                    .filter(|v| MODERN_VERSIONS.contains(v))
                    .max()
                else {
                    return Err(Error::VersionNotSupported {
                        requested: Some(version),
                        error: mcp_types::ErrorObject::new(
                            mcp_types::ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
                            "no stateless version in common",
                        ),
                        supported,
                    });
                };
                tracing::info!(refused = %version, retry = %spoken, "the server asked for another protocol version");
                version = spoken.clone();
                retried = true;
                continue;
            }
            Err(e) => return Err(e),
        };
        let result: DiscoverResult =
            serde_json::from_str(raw.get()).map_err(|e| Error::decode(method, "result", e))?;
        if let Some(ResultType::Other(other)) = &result.result_type {
            return Err(Error::Protocol {
                method: method.to_owned(),
                message: format!("unknown resultType {other:?}"),
            });
        }
        let server_info = result
            .server_info()
            .or_else(|| {
                // Some servers put it in the body rather than in `_meta`.
                result
                    .extra
                    .get("serverInfo")
                    .and_then(|v| serde_json::from_value(v.clone()).ok())
            })
            .unwrap_or_else(|| Implementation::new("", ""));
        let mut init =
            InitializeResult::new(version.clone(), result.capabilities.clone(), server_info);
        init.instructions.clone_from(&result.instructions);
        tracing::debug!(%version, server = %init.server_info.name, "server/discover answered");
        return Ok(Negotiated {
            init,
            discover: Some(result),
            modern: Some(modern),
        });
    }
}

/// `initialize`, the version check, and `notifications/initialized`.
async fn initialize(peer: &Peer, failure: &FailureSlot, plan: &Plan) -> Result<Negotiated> {
    let map = |e| Error::from_jsonrpc(e, Initialize::METHOD, failure.get());
    // The tasks extension belongs to 2026-07-28; the handshake revisions have no extensions.
    let mut capabilities = plan.capabilities.clone();
    if let Some(extensions) = &mut capabilities.extensions {
        extensions.remove(mcp_types::TASKS_EXTENSION);
        if extensions.is_empty() {
            capabilities.extensions = None;
        }
    }
    let params = InitializeRequestParams::new(
        plan.handshake_version.clone(),
        capabilities,
        plan.client_info.clone(),
    );
    let raw = serde_json::value::to_raw_value(&params)
        .map_err(|e| Error::decode(Initialize::METHOD, "params", e))?;
    let result = mcp_jsonrpc::trace::request_on(
        peer,
        Initialize::METHOD,
        Some(raw),
        plan.options(None),
        Some(plan.handshake_version.as_str()),
        plan.connection.as_deref(),
    )
    .await
    .map_err(map)?;
    let init: InitializeResult = serde_json::from_str(result.get())
        .map_err(|e| Error::decode(Initialize::METHOD, "result", e))?;
    if !HANDSHAKE_VERSIONS.contains(&init.protocol_version) {
        tracing::warn!(version = %init.protocol_version, "server chose an unsupported protocol version");
        return Err(Error::UnsupportedProtocolVersion {
            version: init.protocol_version,
        });
    }
    if init.protocol_version.supports_batching() {
        peer.set_batching(true);
    }
    let raw = serde_json::value::to_raw_value(&EmptyParams::default())
        .map_err(|e| Error::decode(Initialized::METHOD, "params", e))?;
    let version = Some(init.protocol_version.as_str());
    let connection = plan.connection.as_deref();
    mcp_jsonrpc::trace::notify_on(peer, Initialized::METHOD, Some(raw), version, connection)
        .await
        .map_err(map)?;
    Ok(Negotiated {
        init,
        discover: None,
        modern: None,
    })
}

#[cfg(test)]
mod tests {
    use mcp_types::{ErrorCode, ErrorObject};

    use super::*;

    #[test]
    fn which_answers_make_the_probe_fall_back() {
        assert!(falls_back(&Error::Rpc(ErrorObject::method_not_found(
            "server/discover"
        ))));
        assert!(falls_back(&Error::Timeout(Duration::from_secs(1))));
        let refused = ErrorObject::internal_error("not authorized")
            .with_data(serde_json::json!({"status": 403, "wwwAuthenticate": ["Bearer"]}));
        assert!(!falls_back(&Error::Rpc(refused)));
        let not_discover = serde_json::from_str::<DiscoverResult>("{}").unwrap_err();
        assert!(falls_back(&Error::Decode {
            method: "server/discover".into(),
            what: "result",
            source: not_discover,
        }));
        let refusal = |supported: Vec<ProtocolVersion>| Error::VersionNotSupported {
            requested: None,
            supported,
            error: ErrorObject::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, "no"),
        };
        assert!(falls_back(&refusal(vec![ProtocolVersion::V2025_11_25])));
        assert!(!falls_back(&refusal(vec![ProtocolVersion::V2026_07_28])));
        assert!(!falls_back(&Error::HeaderMismatch(ErrorObject::new(
            ErrorCode::HEADER_MISMATCH,
            "x"
        ))));
        assert!(!falls_back(&Error::Closed {
            reason: "gone".into(),
            source: None
        }));
    }
}
