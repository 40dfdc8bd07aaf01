//! Property tests: the building blocks every message carries (ids, progress tokens, protocol
//! versions, cursors, `_meta`) survive encode then decode, whatever their contents.

use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{
    ClientCapabilities, EmptyParams, Implementation, JsonObject, ListToolsResult, LoggingLevel,
    PaginatedRequestParams, ParamsMeta, ProgressToken, ProtocolVersion, RequestId, RequestMeta,
};

/// Any JSON value (finite numbers only: JSON has no others).
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            object(inner).prop_map(Value::Object),
        ]
    })
}

fn object(values: impl Strategy<Value = Value>) -> impl Strategy<Value = JsonObject> {
    prop::collection::btree_map(any::<String>(), values, 0..4).prop_map(|m| m.into_iter().collect())
}

/// `_meta` contents: any keys (reserved or not) with any values.
fn meta() -> impl Strategy<Value = JsonObject> {
    object(json())
}

fn progress_token() -> impl Strategy<Value = ProgressToken> {
    prop_oneof![
        any::<i64>().prop_map(ProgressToken::Number),
        any::<String>().prop_map(ProgressToken::String),
    ]
}

fn version() -> impl Strategy<Value = ProtocolVersion> {
    prop_oneof![
        prop::sample::select(ProtocolVersion::ALL),
        any::<String>().prop_map(|s| s.parse().unwrap()),
    ]
}

fn level() -> impl Strategy<Value = LoggingLevel> {
    prop::sample::select(
        &[
            LoggingLevel::Debug,
            LoggingLevel::Info,
            LoggingLevel::Notice,
            LoggingLevel::Warning,
            LoggingLevel::Error,
            LoggingLevel::Critical,
            LoggingLevel::Alert,
            LoggingLevel::Emergency,
        ][..],
    )
}

/// The keys [`RequestMeta`] reads into its own fields (so `extra` must not hold them).
const KNOWN_META_KEYS: &[&str] = &[
    "progressToken",
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/logLevel",
];

fn request_meta() -> impl Strategy<Value = RequestMeta> {
    (
        prop::option::of(progress_token()),
        prop::option::of(version()),
        any::<bool>(),
        prop::option::of(any::<String>()),
        prop::option::of(level()),
        meta(),
    )
        .prop_map(|(token, version, caps, client, level, mut extra)| {
            extra.retain(|k, _| !KNOWN_META_KEYS.contains(&k.as_str()));
            RequestMeta {
                progress_token: token,
                protocol_version: version,
                client_capabilities: caps.then(ClientCapabilities::default),
                client_info: client.map(|name| Implementation::new(name, "1.0")),
                log_level: level,
                extra,
            }
        })
}

fn round_trip<T: Serialize + DeserializeOwned>(value: &T) -> T {
    let json = serde_json::to_string(value).unwrap();
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{json}: {e}"))
}

proptest! {
    #[test]
    fn request_ids_and_progress_tokens(n in any::<i64>(), s in any::<String>()) {
        for id in [RequestId::Number(n), RequestId::String(s.clone())] {
            prop_assert_eq!(round_trip(&id), id);
        }
        for token in [ProgressToken::Number(n), ProgressToken::String(s.clone())] {
            prop_assert_eq!(round_trip(&token), token);
        }
    }

    #[test]
    fn protocol_versions(v in version()) {
        let back = round_trip(&v);
        prop_assert_eq!(back.as_str(), v.as_str());
        // A known date always reads back as its own variant, never as `Unknown`.
        prop_assert_eq!(back.is_known(), ProtocolVersion::known(v.as_str()).is_some());
        let parsed: ProtocolVersion = v.as_str().parse().unwrap();
        prop_assert_eq!(parsed, v);
    }

    #[test]
    fn cursors(cursor in prop::option::of(any::<String>()), next in prop::option::of(any::<String>())) {
        let params = PaginatedRequestParams { cursor, ..Default::default() };
        prop_assert_eq!(round_trip(&params), params);
        let result = ListToolsResult { next_cursor: next, ..Default::default() };
        prop_assert_eq!(round_trip(&result), result);
    }

    #[test]
    fn raw_meta_is_kept_verbatim(meta in meta(), extra in meta()) {
        let mut extra = extra;
        extra.remove("_meta");
        let params = EmptyParams { meta: Some(meta), extra };
        prop_assert_eq!(round_trip(&params), params);
    }

    #[test]
    fn request_metas(meta in request_meta()) {
        prop_assert_eq!(round_trip(&meta), meta.clone());
        // And read from inside any request's params, as transports do.
        let params = serde_json::json!({"name": "x", "_meta": meta});
        let read: ParamsMeta = serde_json::from_value(params).unwrap();
        prop_assert_eq!(read.meta, Some(meta));
    }
}
