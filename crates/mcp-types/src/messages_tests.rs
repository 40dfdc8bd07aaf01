use super::*;
use crate::result::test_util::{decode_err, round_trip};
use serde_json::json;

fn raw(json: &str) -> Box<RawValue> {
    RawValue::from_string(json.to_owned()).expect("valid JSON")
}

#[test]
fn method_lists_are_unique_and_complete() {
    for methods in [
        ClientRequest::METHODS,
        ServerRequest::METHODS,
        ClientNotification::METHODS,
        ServerNotification::METHODS,
    ] {
        let mut sorted = methods.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), methods.len());
    }
    assert_eq!(ClientRequest::METHODS.len(), 19);
    assert!(ClientRequest::METHODS.contains(&"server/discover"));
    assert!(ServerRequest::METHODS.contains(&"elicitation/create"));
    assert!(ServerNotification::METHODS.contains(&"notifications/subscriptions/acknowledged"));
}

#[test]
fn client_requests_decode_by_method() {
    let cases = [
        (
            "initialize",
            r#"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#,
        ),
        ("ping", "{}"),
        (
            "server/discover",
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
        ),
        (
            "subscriptions/listen",
            r#"{"notifications":{"toolsListChanged":true}}"#,
        ),
        ("resources/list", r#"{"cursor":"c"}"#),
        ("resources/templates/list", "{}"),
        ("resources/read", r#"{"uri":"file:///a"}"#),
        ("resources/subscribe", r#"{"uri":"file:///a"}"#),
        ("resources/unsubscribe", r#"{"uri":"file:///a"}"#),
        ("prompts/list", "{}"),
        ("prompts/get", r#"{"name":"p"}"#),
        ("tools/list", "{}"),
        ("tools/call", r#"{"name":"t","arguments":{"a":1}}"#),
        ("logging/setLevel", r#"{"level":"info"}"#),
        (
            "completion/complete",
            r#"{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"v"}}"#,
        ),
        ("tasks/get", r#"{"taskId":"t"}"#),
        ("tasks/result", r#"{"taskId":"t"}"#),
        ("tasks/list", "{}"),
        ("tasks/cancel", r#"{"taskId":"t"}"#),
    ];
    assert_eq!(cases.len(), ClientRequest::METHODS.len());
    for (method, params) in cases {
        let req = match ClientRequest::from_parts(method, Some(&raw(params))) {
            Ok(r) => r,
            Err(e) => panic!("{method}: {e}"),
        };
        assert_eq!(req.method(), method);
        let again =
            ClientRequest::from_value_parts(method, Some(req.params_value().expect("encodes")))
                .expect("re-decodes");
        assert_eq!(again, req);
        // The {method, params} form round-trips too.
        let whole = json!({"method": method, "params": serde_json::from_str::<Value>(params).expect("json")});
        round_trip::<ClientRequest>(&whole.to_string());
    }
}

#[test]
fn unknown_method_is_not_invalid_params() {
    let err = ClientRequest::from_parts("tools/frobnicate", None).unwrap_err();
    assert!(matches!(&err, MessageDecodeError::UnknownMethod(m) if m == "tools/frobnicate"));
    assert_eq!(err.to_error_object().code, ErrorCode::METHOD_NOT_FOUND);
    assert!(std::error::Error::source(&err).is_none());

    let err =
        ClientRequest::from_parts("tools/call", Some(&raw(r#"{"arguments":{}}"#))).unwrap_err();
    assert!(matches!(
        err,
        MessageDecodeError::InvalidParams {
            method: "tools/call",
            ..
        }
    ));
    assert_eq!(err.to_error_object().code, ErrorCode::INVALID_PARAMS);
    assert!(
        err.to_string()
            .starts_with("invalid params for tools/call: "),
        "{err}"
    );
    assert!(std::error::Error::source(&err).is_some());

    // Missing params on a method whose params have required fields is invalid params...
    let err = ClientRequest::from_parts("tools/call", None).unwrap_err();
    assert!(matches!(err, MessageDecodeError::InvalidParams { .. }));
    // ...but fine where every field is optional.
    assert_eq!(
        ClientRequest::from_parts("ping", None).expect("ok"),
        ClientRequest::Ping(Default::default())
    );
    // A server-to-client method is unknown in the client-to-server direction.
    assert!(matches!(
        ClientRequest::from_parts("sampling/createMessage", None),
        Err(MessageDecodeError::UnknownMethod(_))
    ));
    let msg = decode_err::<ClientRequest>(r#"{"method":"nope"}"#);
    assert!(msg.contains("method not found: nope"), "{msg}");
}

#[test]
fn server_requests() {
    let r = ServerRequest::from_parts("roots/list", None).expect("decodes");
    assert!(matches!(r, ServerRequest::ListRoots(_)));
    let r = ServerRequest::from_parts(
        "elicitation/create",
        Some(&raw(
            r#"{"mode":"url","message":"m","url":"https://u","elicitationId":"e"}"#,
        )),
    )
    .expect("decodes");
    assert_eq!(r.method(), "elicitation/create");
    let r = ServerRequest::from_parts(
        "sampling/createMessage",
        Some(&raw(r#"{"messages":[],"maxTokens":10}"#)),
    )
    .expect("decodes");
    assert!(matches!(r, ServerRequest::CreateMessage(_)));
    // JSON-RPC members around method/params are ignored when decoding the enum.
    let r: ServerRequest =
        serde_json::from_str(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).expect("decodes");
    assert_eq!(
        serde_json::to_value(&r).expect("encodes"),
        json!({"method":"ping","params":{}})
    );
    assert!(matches!(
        ServerRequest::from_parts("tools/list", None),
        Err(MessageDecodeError::UnknownMethod(_))
    ));
}

#[test]
fn notifications() {
    let n = ClientNotification::from_parts("notifications/initialized", None).expect("decodes");
    assert!(matches!(n, ClientNotification::Initialized(_)));
    let n = ClientNotification::from_parts(
        "notifications/cancelled",
        Some(&raw(
            r#"{"requestId":"123","reason":"User requested cancellation"}"#,
        )),
    )
    .expect("decodes");
    assert_eq!(n.method(), "notifications/cancelled");
    for (method, params) in [
        (
            "notifications/progress",
            r#"{"progressToken":"t","progress":1}"#,
        ),
        ("notifications/message", r#"{"level":"info","data":"x"}"#),
        ("notifications/resources/updated", r#"{"uri":"file:///a"}"#),
        ("notifications/resources/list_changed", "{}"),
        ("notifications/tools/list_changed", "{}"),
        ("notifications/prompts/list_changed", "{}"),
        (
            "notifications/elicitation/complete",
            r#"{"elicitationId":"e"}"#,
        ),
        (
            "notifications/tasks/status",
            r#"{"taskId":"t","status":"working","createdAt":"a","lastUpdatedAt":"b","ttl":null}"#,
        ),
        (
            "notifications/subscriptions/acknowledged",
            r#"{"notifications":{}}"#,
        ),
        ("notifications/cancelled", r#"{"requestId":1}"#),
    ] {
        let n = match ServerNotification::from_parts(method, Some(&raw(params))) {
            Ok(n) => n,
            Err(e) => panic!("{method}: {e}"),
        };
        assert_eq!(n.method(), method);
    }
    assert!(matches!(
        ServerNotification::from_parts("notifications/progress", Some(&raw("{}"))),
        Err(MessageDecodeError::InvalidParams { .. })
    ));
    assert!(matches!(
        ClientNotification::from_parts("notifications/message", None),
        Err(MessageDecodeError::UnknownMethod(_))
    ));
}

#[test]
fn results_decode_by_request_method() {
    let r = ServerResult::from_parts(
        "tools/call",
        &raw(r#"{"content":[],"resultType":"complete"}"#),
    )
    .expect("decodes");
    assert!(matches!(r, ServerResult::CallTool(_)));
    let r = ServerResult::from_parts(
        "tools/call",
        &raw(r#"{"resultType":"input_required","requestState":"s"}"#),
    )
    .expect("decodes");
    assert!(matches!(r, ServerResult::InputRequired(_)));
    assert_eq!(
        serde_json::to_value(&r).expect("encodes"),
        json!({"resultType":"input_required","requestState":"s"})
    );
    let r = ServerResult::from_value_parts("ping", json!({})).expect("decodes");
    assert!(matches!(r, ServerResult::Ping(_)));
    let r = ServerResult::from_value_parts(
        "server/discover",
        json!({"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"ttlMs":0,"cacheScope":"private"}),
    )
    .expect("decodes");
    assert!(matches!(r, ServerResult::Discover(_)));
    assert!(matches!(
        ServerResult::from_value_parts("tools/list", json!({})),
        Err(MessageDecodeError::InvalidParams {
            method: "tools/list",
            ..
        })
    ));
    assert!(matches!(
        ServerResult::from_value_parts("nope", json!({})),
        Err(MessageDecodeError::UnknownMethod(_))
    ));
    assert!(matches!(
        ServerResult::from_parts("tools/list", &raw("[1]")),
        Err(MessageDecodeError::InvalidParams { .. })
    ));
    let r = ClientResult::from_value_parts("roots/list", json!({"roots":[]})).expect("decodes");
    assert!(matches!(r, ClientResult::ListRoots(_)));
    let r = ClientResult::from_value_parts("elicitation/create", json!({"action":"decline"}))
        .expect("decodes");
    assert_eq!(
        serde_json::to_value(&r).expect("encodes"),
        json!({"action":"decline"})
    );
}

#[test]
fn error_examples_2026() {
    let e: ParseError = round_trip(r#"{"code":-32700,"message":"Parse error: Invalid JSON"}"#);
    assert_eq!(e.code, ErrorCode::PARSE_ERROR);
    for json in [
        r#"{"code":-32602,"message":"Invalid cursor"}"#,
        r#"{"code":-32602,"message":"Invalid arguments for tool calculate: Missing required property 'expression'"}"#,
        r#"{"code":-32602,"message":"Unknown prompt: invalid_prompt_name"}"#,
        r#"{"code":-32602,"message":"Unknown tool: invalid_tool_name"}"#,
    ] {
        round_trip::<InvalidParamsError>(json);
    }
    round_trip::<InternalError>(r#"{"code":-32603,"message":"Internal error"}"#);
    round_trip::<MethodNotFoundError>(
        r#"{"code":-32601,"message":"Prompts not supported","data":{"reason":"Server does not support the prompts capability"}}"#,
    );
    round_trip::<InvalidRequestError>(r#"{"code":-32600,"message":"Invalid request"}"#);
    round_trip::<HeaderMismatchError>(
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch: Mcp-Name header value 'foo' does not match body value 'bar'"}}"#,
    );
    let e: MissingRequiredClientCapabilityError = round_trip(
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Server requires the elicitation capability for this request",
            "data":{"requiredCapabilities":{"elicitation":{}}}}}"#,
    );
    let data =
        MissingRequiredClientCapabilityErrorData::from_error_object(&e.error).expect("typed data");
    assert!(data.required_capabilities.supports_elicitation_form());
    let e: UnsupportedProtocolVersionError = round_trip(
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version",
            "data":{"supported":["2026-07-28","2025-11-25"],"requested":"1900-01-01"}}}"#,
    );
    let data =
        UnsupportedProtocolVersionErrorData::from_error_object(&e.error).expect("typed data");
    assert_eq!(
        data.requested,
        crate::ProtocolVersion::Unknown("1900-01-01".into())
    );
    assert_eq!(data.supported[0], crate::ProtocolVersion::V2026_07_28);
}

#[test]
fn error_data_helpers() {
    let data = URLElicitationRequiredErrorData {
        elicitations: vec![ElicitRequestURLParams {
            elicitation_id: Some("e1".into()),
            ..ElicitRequestURLParams::new("Authorize", "https://x.example/auth")
        }],
        ..Default::default()
    };
    let obj = data
        .clone()
        .into_error_object("URL elicitation required")
        .expect("encodes");
    assert_eq!(obj.code, ErrorCode::URL_ELICITATION_REQUIRED);
    assert_eq!(
        URLElicitationRequiredErrorData::from_error_object(&obj),
        Some(data)
    );
    assert_eq!(
        UnsupportedProtocolVersionErrorData::from_error_object(&obj),
        None
    );
    round_trip::<URLElicitationRequiredError>(
        r#"{"jsonrpc":"2.0","id":"r","error":{"code":-32042,"message":"m","data":{"elicitations":[
            {"mode":"url","elicitationId":"e1","url":"https://x.example","message":"go"}]}}}"#,
    );
}
