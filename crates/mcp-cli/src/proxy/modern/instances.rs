//! Several `mcp proxy` instances sharing Redis (`--redis`): a bridged call waiting for input
//! lives in the instance that runs it, so its `requestState` names that instance, and a retry
//! that reaches another instance is forwarded there.
//!
//! The state is `<key>~<instance URL, base64url>~<tag, base64url>`, the tag an HMAC-SHA256 of
//! the first two parts under a key the instances share (read from Redis, made by the first
//! instance to ask): an instance forwards only to URLs an instance of the deployment wrote,
//! so a client cannot make it call anywhere else. The retry goes to the holder as it came
//! (same params, same `Authorization`, the `Mcp-*` headers made again by
//! `mcp-transport-http`'s client transport), and whatever the holder streams back for it
//! (progress, log messages) goes to the client's stream. DPoP-bound tokens cannot be
//! forwarded (their proofs name the URL they were made for).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_jsonrpc::{
    Config, Connection, ErrorObject, Handler, Notification, NotificationContext, Peer, Request,
    RequestContext, RequestOptions,
};
use mcp_transport_http::client::StreamableHttpClientTransport;
use mcp_types::McpParamHeaders;
use serde_json::value::RawValue;

use super::pending::Refused;
use super::server_failed;

/// The separator of a state's parts (not in a key, nor in base64url).
const SEP: char = '~';

/// This instance in the deployment: its URL, and the key the instances share.
#[derive(Clone)]
pub(crate) struct Instances {
    me: String,
    key: Vec<u8>,
}

impl std::fmt::Debug for Instances {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instances")
            .field("me", &self.me)
            .finish_non_exhaustive()
    }
}

/// Where a retried call lives.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Located {
    /// Here, under this key of the table of parked calls.
    Here(String),
    /// In the instance at this URL.
    There(String),
}

/// Compares two tags in time independent of where they differ.
fn same_tag(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl Instances {
    /// This instance, at `me` (its URL as the others reach it), sharing `key`.
    pub(crate) fn new(me: String, key: Vec<u8>) -> Self {
        Instances { me, key }
    }

    fn tag(&self, signed: &str) -> [u8; 32] {
        hmac_sha256::HMAC::mac(signed.as_bytes(), &self.key)
    }

    /// The `requestState` of a call parked here under `key`.
    pub(crate) fn seal(&self, key: &str) -> String {
        let signed = format!("{key}{SEP}{}", URL_SAFE_NO_PAD.encode(&self.me));
        let tag = URL_SAFE_NO_PAD.encode(self.tag(&signed));
        format!("{signed}{SEP}{tag}")
    }

    /// Where the call a `requestState` names lives; [`Refused::Unknown`] for a state no
    /// instance of the deployment made.
    pub(crate) fn open(&self, state: &str) -> Result<Located, Refused> {
        let (signed, tag) = state.rsplit_once(SEP).ok_or(Refused::Unknown)?;
        let (key, url) = signed.split_once(SEP).ok_or(Refused::Unknown)?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| Refused::Unknown)?;
        if !same_tag(&self.tag(signed), &tag) {
            return Err(Refused::Unknown);
        }
        let url = URL_SAFE_NO_PAD.decode(url).map_err(|_| Refused::Unknown)?;
        let url = String::from_utf8(url).map_err(|_| Refused::Unknown)?;
        if url == self.me {
            Ok(Located::Here(key.to_owned()))
        } else {
            Ok(Located::There(url))
        }
    }
}

/// Relays what the holder streams back for the forwarded request to the client's stream.
#[derive(Debug, Clone)]
struct Relay(Peer);

impl Handler for Relay {
    async fn handle_request(
        &self,
        request: Request,
        _ctx: RequestContext,
    ) -> Result<Box<RawValue>, ErrorObject> {
        Err(ErrorObject::method_not_found(&request.method))
    }

    async fn handle_notification(&self, n: Notification, _ctx: NotificationContext) {
        let _ = self.0.notify(n.method, n.params).await;
    }
}

/// Sends the retry `method` with its `params` (as the client sent them) to the instance at
/// `url`, and returns its answer.
pub(crate) async fn forward(
    url: &str,
    method: String,
    params: Option<Box<RawValue>>,
    ctx: &RequestContext,
) -> Result<Box<RawValue>, ErrorObject> {
    let unreachable = |e: &dyn std::fmt::Display| {
        ErrorObject::internal_error(format!(
            "the mcp proxy instance holding this call ({url}) cannot be reached: {e}"
        ))
    };
    let mut builder = StreamableHttpClientTransport::builder(url).legacy_fallback(false);
    if let Some(auth) = ctx
        .extensions()
        .get::<http::HeaderMap>()
        .and_then(|h| h.get(http::header::AUTHORIZATION))
    {
        builder = builder.header(http::header::AUTHORIZATION, auth.clone());
    }
    let transport = builder.build().map_err(|e| unreachable(&e))?;
    let mut config = Config::default();
    config.default_timeout = None;
    let (peer, connection) = Connection::new(transport, Relay(ctx.peer().clone()), config);
    let running = tokio::spawn(connection.run());
    let mut options = RequestOptions::new().without_timeout();
    if let Some(headers) = ctx.extensions().get::<McpParamHeaders>() {
        options = options.extension(headers.clone());
    }
    let outcome = peer.request_with(method, params, options).await;
    peer.close();
    let _ = running.await;
    outcome.map_err(|e| match e {
        mcp_jsonrpc::Error::Rpc(obj) => obj,
        other => server_failed(&other),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_name_their_instance_and_cannot_be_forged() {
        let a = Instances::new("http://a/mcp".into(), b"k".to_vec());
        let b = Instances::new("http://b/mcp".into(), b"k".to_vec());
        let state = a.seal("mcp-proxy.00ff");
        assert_eq!(a.open(&state), Ok(Located::Here("mcp-proxy.00ff".into())));
        assert_eq!(b.open(&state), Ok(Located::There("http://a/mcp".into())));
        // Another deployment's key, an altered URL, garbage: unknown.
        let other = Instances::new("http://a/mcp".into(), b"other".to_vec());
        assert_eq!(other.open(&state), Err(Refused::Unknown));
        let evil = URL_SAFE_NO_PAD.encode("http://evil/");
        let parts: Vec<&str> = state.split(SEP).collect();
        let forged = format!("{}{SEP}{evil}{SEP}{}", parts[0], parts[2]);
        assert_eq!(b.open(&forged), Err(Refused::Unknown));
        assert_eq!(b.open("mcp-proxy.00ff"), Err(Refused::Unknown));
        assert_eq!(b.open("~~"), Err(Refused::Unknown));
    }
}
