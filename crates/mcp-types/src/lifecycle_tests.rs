use super::*;
use crate::result::test_util::{decode_err, round_trip};

#[test]
fn implementation_across_revisions() {
    let i: Implementation = round_trip(r#"{"name":"ExampleClient","version":"1.0.0"}"#);
    assert_eq!(i, Implementation::new("ExampleClient", "1.0.0"));
    round_trip::<Implementation>(r#"{"name":"c","title":"C","version":"1"}"#);
    round_trip::<Implementation>(
        r#"{"name":"c","title":"C","version":"1","description":"d","websiteUrl":"https://x.example",
            "icons":[{"src":"https://x.example/i.png","mimeType":"image/png","sizes":["48x48"]}],"y":1}"#,
    );
    decode_err::<Implementation>(r#"{"name":"c"}"#);
}

#[test]
fn initialize_2024() {
    let req: InitializeRequest = round_trip(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05",
            "capabilities":{"roots":{"listChanged":true},"sampling":{}},
            "clientInfo":{"name":"ExampleClient","version":"1.0.0"}}}"#,
    );
    assert_eq!(req.params.protocol_version, ProtocolVersion::V2024_11_05);
    let res: InitializeResultResponse = round_trip(
        r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05",
            "capabilities":{"logging":{},"prompts":{"listChanged":true}},
            "serverInfo":{"name":"ExampleServer","version":"1.0.0"},"instructions":"hi"}}"#,
    );
    assert_eq!(res.result.instructions.as_deref(), Some("hi"));
    round_trip::<InitializedNotification>(
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
}

#[test]
fn initialize_2025_11_with_unknown_version_and_meta() {
    let p: InitializeRequestParams = round_trip(
        r#"{"protocolVersion":"2099-01-01","capabilities":{"elicitation":{"form":{},"url":{}}},
            "clientInfo":{"name":"c","version":"1"},"_meta":{"progressToken":"p"},"future":1}"#,
    );
    assert_eq!(
        p.protocol_version,
        ProtocolVersion::Unknown("2099-01-01".into())
    );
    let r: InitializeResult = round_trip(
        r#"{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"2"},
            "_meta":{"m":1},"other":true}"#,
    );
    assert_eq!(
        r,
        InitializeResult {
            meta: r.meta.clone(),
            extra: r.extra.clone(),
            ..InitializeResult::new(
                ProtocolVersion::V2025_11_25,
                ServerCapabilities::default(),
                Implementation::new("s", "2"),
            )
        }
    );
}

#[test]
fn ping() {
    let p: PingRequest = round_trip(r#"{"jsonrpc":"2.0","id":"p1","method":"ping","params":{}}"#);
    assert_eq!(p.params, EmptyParams::default());
    // `params` may be absent on the wire.
    let p: PingRequest =
        serde_json::from_str(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).expect("decodes");
    assert_eq!(p.id, crate::RequestId::Number(2));
    round_trip::<JsonRpcResultResponse<EmptyResult>>(r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
}
