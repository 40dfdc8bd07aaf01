//! 2026-07-28 requests on the shared endpoint: told apart from legacy ones, their headers
//! checked against the body, `Mcp-Param-*` decoded for the server, the revision's HTTP
//! statuses, and cancellation when the client goes away.

use std::sync::atomic::Ordering;
use std::time::Duration;

use mcp_transport_http::server::{SessionMode, StreamableHttpService};
use serde_json::{Value, json};

use super::{Sse, TestServer, error_body, json_body, request, start};

const MODERN: &str = "2026-07-28";

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": MODERN,
           "io.modelcontextprotocol/clientCapabilities": {}})
}

/// A POST of `body` with `Accept` and `Content-Type` and exactly the `headers` given.
fn raw(server: &TestServer, body: Value, headers: &[(&str, &str)]) -> reqwest::RequestBuilder {
    let mut req = server
        .client
        .post(&server.url)
        .body(body.to_string())
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json");
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    req
}

/// A 2026-07-28 request: `params` plus `_meta`, with the version and method headers.
fn modern(
    server: &TestServer,
    id: i64,
    method: &str,
    mut params: Value,
) -> reqwest::RequestBuilder {
    params["_meta"] = meta();
    let headers = [("mcp-protocol-version", MODERN), ("mcp-method", method)];
    raw(server, request(id, method, params), &headers)
}

/// A `tools/call` of `name` with `Mcp-Name: header_name` and `Mcp-Param-Region: region`.
fn call(
    server: &TestServer,
    name: &str,
    header_name: &str,
    region: Option<&str>,
) -> reqwest::RequestBuilder {
    let mut body = request(
        3,
        "tools/call",
        json!({"name": name, "arguments": {"region": "Hello"}}),
    );
    body["params"]["_meta"] = meta();
    let mut headers = vec![
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "tools/call"),
        ("mcp-name", header_name),
    ];
    if let Some(region) = region {
        headers.push(("Mcp-Param-Region", region));
    }
    raw(server, body, &headers)
}

async fn refused(req: reqwest::RequestBuilder, status: u16, code: i64, why: &str) {
    let res = req.send().await.unwrap();
    assert_eq!(res.status(), status, "{why}");
    let body = error_body(res).await;
    assert_eq!(body["error"]["code"], code, "{why}");
    assert!(body["id"].is_number(), "{why}: the error names the request");
}

#[tokio::test]
async fn served_without_a_session_with_its_headers_checked() {
    let server = start(StreamableHttpService::builder()).await;
    let ok = modern(&server, 1, "echo", json!({"x": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    assert!(
        ok.headers().get("mcp-session-id").is_none(),
        "no session is minted"
    );
    assert_eq!(json_body(ok).await["result"]["x"], 1);

    let mut params = json!({});
    params["_meta"] = meta();
    let body = request(7, "echo", params);
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], i64);
    let cases: [Case<'_>; 5] = [
        ("no version header", &[("mcp-method", "echo")], -32020),
        (
            "header and _meta differ",
            &[
                ("mcp-protocol-version", "2099-01-01"),
                ("mcp-method", "echo"),
            ],
            -32020,
        ),
        ("no Mcp-Method", &[("mcp-protocol-version", MODERN)], -32020),
        (
            "Mcp-Method differs",
            &[("mcp-protocol-version", MODERN), ("mcp-method", "ECHO")],
            -32020,
        ),
        (
            "Mcp-Method twice",
            &[
                ("mcp-protocol-version", MODERN),
                ("mcp-method", "echo"),
                ("mcp-method", "echo"),
            ],
            -32020,
        ),
    ];
    for (why, headers, code) in cases {
        refused(raw(&server, body.clone(), headers), 400, code, why).await;
    }
    // `_meta` without the capabilities the revision requires.
    let half = request(
        8,
        "echo",
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}),
    );
    let headers = [("mcp-protocol-version", MODERN), ("mcp-method", "echo")];
    refused(raw(&server, half, &headers), 400, -32602, "no capabilities").await;
    // A modern header without any `_meta` is a 2026-07-28 request too.
    refused(
        raw(&server, request(9, "echo", json!({})), &headers),
        400,
        -32602,
        "no _meta",
    )
    .await;
    assert_eq!(
        server.sessions_started.load(Ordering::SeqCst),
        1,
        "refused before the server"
    );
}

#[tokio::test]
async fn names_and_params_are_decoded_and_handed_to_the_server() {
    let server = start(StreamableHttpService::builder()).await;
    let res = call(&server, "weather", "weather", Some("=?base64?SGVsbG8=?="))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let body = json_body(res).await;
    assert_eq!(
        body["result"],
        json!({"region": "Hello", "has_params": true, "version": null})
    );
    // Case of the header name does not matter; OWS around the value does not either.
    let res = call(&server, "weather", "  weather  ", None)
        .send()
        .await
        .unwrap();
    assert_eq!(json_body(res).await["result"]["has_params"], true);
    for (header_name, region, why) in [
        ("other", Some("Hello"), "another name"),
        ("weather", Some("=?base64?SGVsbG8?="), "bad padding"),
        ("weather", Some("=?base64?SGVs!!!bG8=?="), "bad characters"),
    ] {
        refused(
            call(&server, "weather", header_name, region),
            400,
            -32020,
            why,
        )
        .await;
    }
    let mut body = request(4, "tools/call", json!({"name": "weather"}));
    body["params"]["_meta"] = meta();
    let headers = [
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "tools/call"),
    ];
    refused(
        raw(&server, body, &headers),
        400,
        -32020,
        "Mcp-Name is required",
    )
    .await;
}

#[tokio::test]
async fn statuses_follow_the_error_and_stateless_legacy_posts_name_their_version() {
    let server = start(StreamableHttpService::builder()).await;
    for (code, status) in [
        (-32601, 404),
        (-32022, 400),
        (-32021, 400),
        (-32602, 200),
        (-32603, 200),
    ] {
        let res = modern(&server, 2, "fail", json!({"code": code}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), status, "{code}");
        assert_eq!(error_body(res).await["error"]["code"], code);
    }
    let legacy = start(StreamableHttpService::builder().session_mode(SessionMode::Stateless)).await;
    let res = legacy
        .post(None, request(1, "attached", json!({})))
        .send()
        .await
        .unwrap();
    assert_eq!(json_body(res).await["result"]["version"], "2025-11-25");
}

#[tokio::test]
async fn a_client_that_goes_away_cancels_its_request() {
    let server = start(StreamableHttpService::builder()).await;
    // Waiting for a plain JSON answer, then gone.
    let pending = modern(&server, 1, "hang", json!({})).send();
    assert!(
        tokio::time::timeout(Duration::from_millis(300), pending)
            .await
            .is_err()
    );
    // Reading an SSE answer, then dropping it.
    let res = modern(&server, 2, "hang", json!({"notify": true}))
        .send()
        .await
        .unwrap();
    let mut sse = Sse::new(res);
    assert_eq!(
        sse.next().await.unwrap().json()["method"],
        "notifications/message"
    );
    drop(sse);
    server.wait_dropped(2).await;
}

#[tokio::test]
async fn notifications_are_accepted_and_legacy_sessions_are_unchanged() {
    let server = start(StreamableHttpService::builder()).await;
    let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                      "params": {"requestId": 1, "_meta": meta()}});
    let res = raw(&server, note, &[("mcp-protocol-version", MODERN)])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 202);
    let session = server.initialize().await;
    let res = server
        .post(Some(&session), request(5, "echo", json!({"y": 2})))
        .send()
        .await
        .unwrap();
    assert_eq!(json_body(res).await["result"]["y"], 2);
}

/// Our client transport on the 2026-07-28 wire: a request whose `_meta` names the version
/// goes without a session, with the headers the server checks (`Mcp-Name` and
/// `Mcp-Param-*` encoded where needed); dropping a pending one closes its exchange, which
/// the server takes as cancellation; a refusal keeps its JSON-RPC error.
#[tokio::test]
async fn the_client_transport_speaks_the_revision() {
    use mcp_jsonrpc::{Config, Connection, RequestOptions};
    use mcp_transport_http::client::StreamableHttpClientTransport;

    let server = start(StreamableHttpService::builder()).await;
    let transport = StreamableHttpClientTransport::new(server.url.as_str()).unwrap();
    let (peer, connection) = Connection::new(transport, (), Config::default());
    tokio::spawn(connection.run());
    let raw = |v: Value| Some(serde_json::value::to_raw_value(&v).unwrap());

    let mut params = json!({"name": "weather", "arguments": {"region": " Zürich "}});
    params["_meta"] = meta();
    let mut headers = mcp_types::McpParamHeaders::new();
    headers.insert("Region", " Zürich ");
    let options = RequestOptions::new().extension(headers);
    let result = peer
        .request_with("tools/call", raw(params), options)
        .await
        .unwrap();
    let result: Value = serde_json::from_str(result.get()).unwrap();
    // The server found the header, decoded it, and matched it against the argument.
    assert_eq!(result["has_params"], true);
    assert_eq!(result["region"], " Zürich ");
    assert_eq!(server.sessions_started.load(Ordering::SeqCst), 1);

    // A refusal (400, here for the capabilities missing from `_meta`): the server's error
    // reaches the caller as sent.
    let half = json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}});
    match peer.request("echo", raw(half)).await {
        Err(mcp_jsonrpc::Error::Rpc(e)) => assert_eq!(e.code.0, -32602),
        other => panic!("expected -32602, got {other:?}"),
    }

    // Dropped while pending: the exchange closes, and the server drops the handler.
    for notify in [false, true] {
        let mut params = json!({"notify": notify});
        params["_meta"] = meta();
        let pending = peer.request("hang", raw(params));
        assert!(
            tokio::time::timeout(Duration::from_millis(300), pending)
                .await
                .is_err()
        );
    }
    server.wait_dropped(2).await;
    peer.close();
}
