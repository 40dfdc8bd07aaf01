//! `server/discover` (2026-07-28): the server advertises its versions, capabilities and
//! instructions. It takes the place of the server half of `initialize`; a client may call it
//! but need not, since every request carries its protocol version anyway.

use serde::{Deserialize, Serialize};

use crate::{
    CacheScope, EmptyParams, Implementation, JsonObject, JsonRpcResultResponse, Meta,
    ProtocolVersion, Request, ResultType, SERVER_INFO_META_KEY, ServerCapabilities, TypedRequest,
};

/// Marker for `server/discover` (client to server; 2026-07-28). Its params carry only `_meta`
/// (protocol version, client info and capabilities).
#[derive(Debug)]
pub enum Discover {}

impl Request for Discover {
    const METHOD: &'static str = "server/discover";
    type Params = EmptyParams;
    type Result = DiscoverResult;
}

/// A whole `server/discover` request.
pub type DiscoverRequest = TypedRequest<Discover>;
/// A whole response to `server/discover`.
pub type DiscoverResultResponse = JsonRpcResultResponse<DiscoverResult>;

/// The answer to `server/discover` (2026-07-28). A cacheable result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct DiscoverResult {
    /// The versions the server supports; the client picks one for its requests.
    pub supported_versions: Vec<ProtocolVersion>,
    /// What the server supports.
    pub capabilities: ServerCapabilities,
    /// How to use the server, e.g. for a system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// `"complete"` (required by the schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// How long the client may cache this result, in milliseconds (required by the schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may reuse a cached copy (required by the schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Metadata; the server names itself under [`SERVER_INFO_META_KEY`] (see
    /// [`DiscoverResult::server_info`]).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl DiscoverResult {
    /// The server software named in `_meta`, if present and well-formed.
    pub fn server_info(&self) -> Option<Implementation> {
        let v = self.meta.as_ref()?.get(SERVER_INFO_META_KEY)?;
        serde_json::from_value(v.clone()).ok()
    }

    /// Sets `_meta[SERVER_INFO_META_KEY]`.
    pub fn set_server_info(&mut self, info: &Implementation) -> Result<(), serde_json::Error> {
        let v = serde_json::to_value(info)?;
        self.meta
            .get_or_insert_with(Meta::new)
            .insert(SERVER_INFO_META_KEY.to_owned(), v);
        Ok(())
    }

    /// The version a client should use: its preferred version if the server lists it,
    /// otherwise the server's latest (see [`ProtocolVersion::negotiate`]).
    pub fn choose_version(&self, preferred: &ProtocolVersion) -> ProtocolVersion {
        ProtocolVersion::negotiate(preferred, &self.supported_versions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::test_util::round_trip;

    const RESULT: &str = r#"{"resultType":"complete","supportedVersions":["2026-07-28"],
        "capabilities":{"tools":{},"resources":{}},
        "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ExampleServer","version":"1.0.0"}},
        "instructions":"This server provides weather and resource utilities. Prefer `get_weather` for forecast lookups.",
        "ttlMs":3600000,"cacheScope":"public"}"#;

    #[test]
    fn examples_2026() {
        let r: DiscoverResult = round_trip(RESULT);
        assert_eq!(
            r.server_info(),
            Some(Implementation::new("ExampleServer", "1.0.0"))
        );
        assert_eq!(r.cache_scope, Some(CacheScope::Public));
        assert_eq!(
            r.choose_version(&ProtocolVersion::V2025_06_18),
            ProtocolVersion::V2026_07_28
        );

        let req: DiscoverRequest = round_trip(
            r#"{"jsonrpc":"2.0","id":"discover-1","method":"server/discover","params":{"_meta":{
                "io.modelcontextprotocol/protocolVersion":"2026-07-28",
                "io.modelcontextprotocol/clientInfo":{"name":"ExampleClient","version":"1.0.0"},
                "io.modelcontextprotocol/clientCapabilities":{}}}}"#,
        );
        assert!(req.params.meta.is_some());
        round_trip::<DiscoverResultResponse>(
            r#"{"jsonrpc":"2.0","id":"discover-1","result":{"resultType":"complete",
                "supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"resources":{}},
                "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"ExampleServer","version":"1.0.0"}},
                "ttlMs":3600000,"cacheScope":"public"}}"#,
        );
    }

    #[test]
    fn server_info_setter_and_unknown_fields() {
        let mut r = DiscoverResult {
            supported_versions: vec![ProtocolVersion::from("2027-01-01")],
            ..Default::default()
        };
        assert_eq!(r.server_info(), None);
        r.set_server_info(&Implementation::new("s", "1"))
            .expect("encodes");
        assert_eq!(r.server_info().map(|i| i.name), Some("s".to_owned()));
        round_trip::<DiscoverResult>(
            r#"{"supportedVersions":["2026-07-28","2099-12-31"],"capabilities":{},"future":{"a":1}}"#,
        );
    }
}
