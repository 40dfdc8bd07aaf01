//! Reading and rewriting 2026-07-28 requests and results as JSON: the request's `_meta`
//! (version, capabilities, log level, progress token), the members of a retry
//! (`inputResponses`, `requestState`), and the envelope a result of the revision carries
//! (`resultType`, the cache hints, `serverInfo`).

use std::collections::BTreeMap;

use mcp_jsonrpc::{ErrorCode, ErrorObject, ProgressToken};
use mcp_types::{
    CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, LOG_LEVEL_META_KEY, LoggingLevel,
    PROTOCOL_VERSION_META_KEY, SERVER_INFO_META_KEY, SUBSCRIPTION_ID_META_KEY,
};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The protocol version the proxy serves per request.
pub(crate) const MODERN: &str = "2026-07-28";

/// The `_meta` member.
const META: &str = "_meta";
/// A request's progress token, in `_meta`.
const PROGRESS_TOKEN: &str = "progressToken";

/// What a 2026-07-28 request says about itself and its client.
#[derive(Debug, Default)]
pub(crate) struct Head {
    /// `io.modelcontextprotocol/protocolVersion`.
    pub(crate) version: Option<String>,
    /// `io.modelcontextprotocol/clientCapabilities` (an object).
    pub(crate) capabilities: Map<String, Value>,
    /// `io.modelcontextprotocol/logLevel`: no log messages without it.
    pub(crate) log_level: Option<LoggingLevel>,
    /// `progressToken`.
    pub(crate) progress_token: Option<ProgressToken>,
    /// The `_meta` members naming the version, capabilities, info and level: what a request
    /// the proxy makes on the client's behalf carries.
    pub(crate) client_meta: Map<String, Value>,
    /// `requestState` of a retry.
    pub(crate) request_state: Option<String>,
    /// `inputResponses` of a retry.
    pub(crate) input_responses: Map<String, Value>,
    /// `name` (or `uri`, for `resources/read`), when it is a string.
    pub(crate) target: Option<String>,
}

impl Head {
    /// Whether a log message of `level` may go to this request's client.
    pub(crate) fn wants_log(&self, level: Option<LoggingLevel>) -> bool {
        match (self.log_level, level) {
            (Some(wanted), Some(level)) => level >= wanted,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }
}

/// The params as an object (absent params are an empty one); -32602 for params that are not.
fn object(params: Option<&RawValue>) -> Result<Map<String, Value>, ErrorObject> {
    match params {
        None => Ok(Map::new()),
        Some(raw) => match serde_json::from_str::<Value>(raw.get()) {
            Ok(Value::Object(map)) => Ok(map),
            _ => Err(ErrorObject::invalid_params(
                "Invalid params: expected an object",
            )),
        },
    }
}

/// Raw JSON of `value` (serializing a `Value` cannot fail, but no panic either way).
pub(crate) fn raw(value: &Value) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).unwrap_or_default()
}

/// Reads the head of a 2026-07-28 request and returns it with the params as the handshake
/// era writes them: without the revision's `_meta` members, the progress token, and the
/// members of a retry. (`_meta` is dropped when nothing else is left in it.)
pub(crate) fn split(params: Option<&RawValue>) -> Result<(Head, Map<String, Value>), ErrorObject> {
    let mut map = object(params)?;
    let mut head = Head::default();
    if let Some(Value::Object(mut meta)) = map.remove(META) {
        for key in [
            PROTOCOL_VERSION_META_KEY,
            CLIENT_CAPABILITIES_META_KEY,
            CLIENT_INFO_META_KEY,
            LOG_LEVEL_META_KEY,
        ] {
            if let Some(value) = meta.remove(key) {
                head.client_meta.insert(key.to_owned(), value);
            }
        }
        head.version = head
            .client_meta
            .get(PROTOCOL_VERSION_META_KEY)
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Some(Value::Object(caps)) = head.client_meta.get(CLIENT_CAPABILITIES_META_KEY) {
            head.capabilities = caps.clone();
        }
        head.log_level = head
            .client_meta
            .get(LOG_LEVEL_META_KEY)
            .and_then(|v| serde_json::from_value(v.clone()).ok());
        head.progress_token = meta
            .remove(PROGRESS_TOKEN)
            .and_then(|v| serde_json::from_value(v).ok());
        if !meta.is_empty() {
            map.insert(META.to_owned(), Value::Object(meta));
        }
    }
    head.request_state = match map.remove("requestState") {
        Some(Value::String(state)) => Some(state),
        Some(_) => {
            return Err(ErrorObject::invalid_params(
                "Invalid requestState: malformed",
            ));
        }
        None => None,
    };
    if let Some(Value::Object(responses)) = map.remove("inputResponses") {
        head.input_responses = responses;
    }
    head.target = ["name", "uri"]
        .iter()
        .find_map(|k| map.get(*k).and_then(Value::as_str).map(str::to_owned));
    Ok((head, map))
}

/// The params without `_meta.progressToken`, and the token: for a request forwarded as it is
/// to a server that several clients share (the proxy gives it a token of its own).
pub(crate) fn take_progress_token(
    params: Option<Box<RawValue>>,
) -> (Option<ProgressToken>, Option<Box<RawValue>>) {
    let Some(raw) = params else {
        return (None, None);
    };
    if !raw.get().contains(PROGRESS_TOKEN) {
        return (None, Some(raw));
    }
    let Ok(Value::Object(mut map)) = serde_json::from_str::<Value>(raw.get()) else {
        return (None, Some(raw));
    };
    let token = match map.get_mut(META) {
        Some(Value::Object(meta)) => meta.remove(PROGRESS_TOKEN),
        _ => None,
    };
    let token = token.and_then(|v| serde_json::from_value(v).ok());
    (token, Some(raw_map(map)))
}

/// The log level a `notifications/message` carries, if it reads.
pub(crate) fn log_level(params: Option<&RawValue>) -> Option<LoggingLevel> {
    #[derive(serde::Deserialize)]
    struct Level {
        level: LoggingLevel,
    }
    serde_json::from_str::<Level>(params?.get())
        .ok()
        .map(|l| l.level)
}

/// Raw JSON of an object.
pub(crate) fn raw_map(map: Map<String, Value>) -> Box<RawValue> {
    raw(&Value::Object(map))
}

/// The subscription id a notification names in its `_meta`, as JSON.
pub(crate) fn subscription_id(params: Option<&RawValue>) -> Option<Value> {
    let text = params?.get();
    if !text.contains(SUBSCRIPTION_ID_META_KEY) {
        return None;
    }
    let map: Map<String, Value> = serde_json::from_str(text).ok()?;
    map.get(META)?.get(SUBSCRIPTION_ID_META_KEY).cloned()
}

/// `params` (an object) with `_meta.<subscriptionId>` set to `id`.
pub(crate) fn with_subscription_id(params: Option<&RawValue>, id: &Value) -> Box<RawValue> {
    let mut map = object(params).unwrap_or_default();
    let meta = map.entry(META).or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    if let Value::Object(meta) = meta {
        meta.insert(SUBSCRIPTION_ID_META_KEY.to_owned(), id.clone());
    }
    raw_map(map)
}

/// The results of 2026-07-28 that carry cache hints (`ttlMs` and `cacheScope` are required).
fn cacheable(method: &str) -> bool {
    matches!(
        method,
        "tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
    )
}

/// A handshake-era server's result of `method` made a 2026-07-28 one: `resultType:
/// "complete"`, for the listings and reads the cache hints (`ttlMs: 0`, `cacheScope:
/// "private"`: nothing is known about how long it stays valid, or for whom), and the
/// server's info in `_meta`. A result that is not an object is left as it is.
pub(crate) fn complete(method: &str, result: Box<RawValue>, server_info: &Value) -> Box<RawValue> {
    let Ok(Value::Object(mut map)) = serde_json::from_str::<Value>(result.get()) else {
        return result;
    };
    map.entry("resultType")
        .or_insert_with(|| Value::from("complete"));
    if cacheable(method) {
        map.entry("ttlMs").or_insert_with(|| Value::from(0));
        map.entry("cacheScope")
            .or_insert_with(|| Value::from("private"));
    }
    add_server_info(&mut map, server_info);
    raw_map(map)
}

fn add_server_info(map: &mut Map<String, Value>, server_info: &Value) {
    if server_info.is_null() {
        return;
    }
    let meta = map.entry(META).or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        meta.entry(SERVER_INFO_META_KEY)
            .or_insert_with(|| server_info.clone());
    }
}

/// A handshake-era server's capabilities as 2026-07-28 states them: the same members, less
/// `tasks` (the 2025-11-25 tasks of a bridged server are not offered).
pub(crate) fn capabilities(legacy: &Value) -> Value {
    let mut caps = legacy.as_object().cloned().unwrap_or_default();
    caps.remove("tasks");
    Value::Object(caps)
}

/// The `server/discover` result of a bridged server, from its `initialize` result.
pub(crate) fn discover(init: &Value) -> Box<RawValue> {
    let mut map = Map::new();
    map.insert("supportedVersions".to_owned(), Value::from(vec![MODERN]));
    map.insert(
        "capabilities".to_owned(),
        capabilities(init.get("capabilities").unwrap_or(&Value::Null)),
    );
    if let Some(instructions) = init.get("instructions").filter(|i| i.is_string()) {
        map.insert("instructions".to_owned(), instructions.clone());
    }
    map.insert("resultType".to_owned(), Value::from("complete"));
    map.insert("ttlMs".to_owned(), Value::from(0));
    map.insert("cacheScope".to_owned(), Value::from("private"));
    add_server_info(&mut map, init.get("serverInfo").unwrap_or(&Value::Null));
    raw_map(map)
}

/// An input request: the method and params of a request the server made of the client.
#[derive(Debug, Clone)]
pub(crate) struct InputRequest {
    pub(crate) method: String,
    pub(crate) params: Value,
}

/// The `InputRequiredResult` asking for `requests`, to be retried with `state`.
pub(crate) fn input_required(
    requests: &BTreeMap<String, InputRequest>,
    state: &str,
    server_info: &Value,
) -> Box<RawValue> {
    let mut inputs = Map::new();
    for (key, request) in requests {
        let mut entry = Map::new();
        entry.insert("method".to_owned(), Value::from(request.method.clone()));
        if !request.params.is_null() {
            entry.insert("params".to_owned(), request.params.clone());
        }
        inputs.insert(key.clone(), Value::Object(entry));
    }
    let mut map = Map::new();
    map.insert("resultType".to_owned(), Value::from("input_required"));
    map.insert("inputRequests".to_owned(), Value::Object(inputs));
    map.insert("requestState".to_owned(), Value::from(state));
    add_server_info(&mut map, server_info);
    raw_map(map)
}

/// Whether a client with `caps` can answer a request of `method` with `params` (an
/// `elicitation/create` in URL mode needs `elicitation.url`).
pub(crate) fn can_answer(caps: &Map<String, Value>, method: &str, params: &Value) -> bool {
    match method {
        "elicitation/create" => match caps.get("elicitation") {
            Some(elicitation) => {
                params.get("mode").and_then(Value::as_str) != Some("url")
                    || elicitation.get("url").is_some()
            }
            None => false,
        },
        "sampling/createMessage" => caps.contains_key("sampling"),
        "roots/list" => caps.contains_key("roots"),
        _ => false,
    }
}

/// The short name of an input request's method, for its key.
pub(crate) fn input_kind(method: &str) -> &'static str {
    match method {
        "elicitation/create" => "elicit",
        "sampling/createMessage" => "sample",
        "roots/list" => "roots",
        _ => "input",
    }
}

/// -32022 for a version the proxy does not serve.
pub(crate) fn unsupported_version(requested: &str) -> ErrorObject {
    ErrorObject::new(
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        format!("Unsupported protocol version: {requested}"),
    )
    .with_data(serde_json::json!({ "supported": [MODERN], "requested": requested }))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rawj(v: Value) -> Box<RawValue> {
        serde_json::value::to_raw_value(&v).unwrap()
    }

    fn value(raw: &RawValue) -> Value {
        serde_json::from_str(raw.get()).unwrap()
    }

    #[test]
    fn a_request_splits_into_its_head_and_handshake_era_params() {
        let params = rawj(json!({
            "name": "ask", "arguments": {"x": 1},
            "requestState": "s", "inputResponses": {"elicit-0": {"action": "accept"}},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
                "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
                "io.modelcontextprotocol/logLevel": "info",
                "progressToken": "p1",
                "traceparent": "00-x"
            }
        }));
        let (head, legacy) = split(Some(&params)).unwrap();
        assert_eq!(head.version.as_deref(), Some("2026-07-28"));
        assert!(head.capabilities.contains_key("elicitation"));
        assert_eq!(head.log_level, Some(LoggingLevel::Info));
        assert_eq!(head.progress_token, Some(ProgressToken::from("p1")));
        assert_eq!(head.request_state.as_deref(), Some("s"));
        assert_eq!(head.target.as_deref(), Some("ask"));
        assert_eq!(head.client_meta.len(), 4);
        assert!(head.input_responses.contains_key("elicit-0"));
        assert_eq!(
            Value::Object(legacy),
            json!({"name": "ask", "arguments": {"x": 1}, "_meta": {"traceparent": "00-x"}})
        );
        assert!(head.wants_log(Some(LoggingLevel::Warning)));
        assert!(!head.wants_log(Some(LoggingLevel::Debug)));
        assert!(!Head::default().wants_log(Some(LoggingLevel::Emergency)));

        let (head, legacy) = split(None).unwrap();
        assert!(head.version.is_none() && legacy.is_empty());
        assert!(split(Some(&rawj(json!([1])))).is_err());
        assert!(split(Some(&rawj(json!({"requestState": 5})))).is_err());
    }

    #[test]
    fn the_progress_token_is_taken_out() {
        let (token, params) = take_progress_token(Some(rawj(
            json!({"a": 1, "_meta": {"progressToken": 5, "x": true}}),
        )));
        assert_eq!(token, Some(ProgressToken::Number(5)));
        assert_eq!(
            value(&params.unwrap()),
            json!({"a": 1, "_meta": {"x": true}})
        );
        let (token, params) = take_progress_token(Some(rawj(json!({"a": 1}))));
        assert!(token.is_none());
        assert_eq!(params.unwrap().get(), r#"{"a":1}"#);
        assert_eq!(take_progress_token(None).1.map(|p| p.to_string()), None);
    }

    #[test]
    fn results_get_the_revisions_envelope() {
        let info = json!({"name": "s", "version": "1"});
        let listed = complete("tools/list", rawj(json!({"tools": []})), &info);
        assert_eq!(
            value(&listed),
            json!({"tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "private",
                   "_meta": {"io.modelcontextprotocol/serverInfo": info}})
        );
        let called = complete(
            "tools/call",
            rawj(json!({"content": [], "_meta": {"k": 1}})),
            &Value::Null,
        );
        assert_eq!(
            value(&called),
            json!({"content": [], "_meta": {"k": 1}, "resultType": "complete"})
        );
        assert_eq!(complete("x", rawj(json!(3)), &info).get(), "3");

        let discovered = discover(&json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {"listChanged": true}, "tasks": {}},
            "serverInfo": info, "instructions": "be nice"
        }));
        let discovered = value(&discovered);
        assert_eq!(discovered["supportedVersions"], json!(["2026-07-28"]));
        assert_eq!(
            discovered["capabilities"],
            json!({"tools": {"listChanged": true}})
        );
        assert_eq!(discovered["instructions"], "be nice");
        assert_eq!(
            discovered["_meta"]["io.modelcontextprotocol/serverInfo"],
            info
        );

        let mut requests = BTreeMap::new();
        requests.insert(
            "elicit-0".to_owned(),
            InputRequest {
                method: "elicitation/create".to_owned(),
                params: json!({"message": "?"}),
            },
        );
        let asked = value(&input_required(&requests, "st", &Value::Null));
        assert_eq!(
            asked,
            json!({"resultType": "input_required", "requestState": "st",
                   "inputRequests": {"elicit-0": {"method": "elicitation/create",
                                                  "params": {"message": "?"}}}})
        );
    }

    #[test]
    fn subscription_ids_and_capabilities() {
        let params = rawj(json!({"_meta": {"io.modelcontextprotocol/subscriptionId": 4}}));
        assert_eq!(subscription_id(Some(&params)), Some(json!(4)));
        assert_eq!(subscription_id(Some(&rawj(json!({"uri": "x"})))), None);
        let rewritten = with_subscription_id(Some(&params), &json!("listen-1"));
        assert_eq!(
            value(&rewritten),
            json!({"_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"}})
        );
        let caps = json!({"elicitation": {"form": {}}, "sampling": {}});
        let caps = caps.as_object().unwrap();
        assert!(can_answer(
            caps,
            "elicitation/create",
            &json!({"message": "m"})
        ));
        assert!(!can_answer(
            caps,
            "elicitation/create",
            &json!({"mode": "url"})
        ));
        assert!(can_answer(caps, "sampling/createMessage", &Value::Null));
        assert!(!can_answer(caps, "roots/list", &Value::Null));
        assert_eq!(
            log_level(Some(&rawj(json!({"level": "error", "data": 1})))),
            Some(LoggingLevel::Error)
        );
        assert_eq!(unsupported_version("1999").code.0, -32022);
    }
}
