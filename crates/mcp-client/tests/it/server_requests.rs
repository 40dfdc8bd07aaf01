//! The server's requests: sampling, elicitation, roots, ping; -32601 when not declared.

use std::collections::BTreeMap;

use mcp_client::{Client, ClientBuilder, Error, Side};
use mcp_types::{
    CreateMessage, CreateMessageResult, Elicit, ElicitAction, ElicitRequestParams, ElicitResult,
    ElicitValue, ElicitationComplete, ElicitationCompleteNotificationParams, ListRoots,
    Notification as _, Ping, Request as _, Root, RootsListChanged, SamplingContent,
    SamplingMessageContentBlock, ServerNotification, ToolUseContent,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::support::{FakeServer, Harness};

async fn connect(builder: ClientBuilder) -> Harness {
    FakeServer::new().connect(builder).await
}

fn sampling_params() -> Value {
    json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "weather in Paris?"}}],
        "maxTokens": 100,
        "tools": [{"name": "get_weather", "inputSchema": {"type": "object"}}],
        "toolChoice": {"mode": "auto"}
    })
}

#[tokio::test]
async fn sampling_with_tool_use() {
    let builder = Client::builder()
        .sampling(
            |params: mcp_types::CreateMessageRequestParams, _ctx| async move {
                assert_eq!(params.max_tokens, 100);
                let tools = params.tools.expect("tools");
                assert_eq!(tools[0].name, "get_weather");
                let mut input = serde_json::Map::new();
                input.insert("city".into(), json!("Paris"));
                let content = SamplingContent::Single(SamplingMessageContentBlock::ToolUse(
                    ToolUseContent::new("call-1", "get_weather", input),
                ));
                let mut result = CreateMessageResult::new("test-model", content);
                result.stop_reason = Some("toolUse".into());
                Ok(result)
            },
        )
        .sampling_tools(true);
    let h = connect(builder).await;
    let result = h
        .server
        .request(CreateMessage::METHOD, sampling_params())
        .await
        .unwrap();
    assert_eq!(result["model"], "test-model");
    assert_eq!(result["stopReason"], "toolUse");
    assert_eq!(result["content"]["type"], "tool_use");
    assert_eq!(result["content"]["input"], json!({"city": "Paris"}));
}

#[tokio::test]
async fn sampling_errors_are_passed_on() {
    let builder = Client::builder().sampling(|_p, _c| async {
        Err(mcp_jsonrpc::ErrorObject::new(-1, "user rejected sampling"))
    });
    let h = connect(builder).await;
    let err = h
        .server
        .request(CreateMessage::METHOD, sampling_params())
        .await
        .unwrap_err();
    assert_eq!(err.code.0, -1);
    assert_eq!(err.message, "user rejected sampling");
}

fn form_request() -> Value {
    json!({
        "mode": "form",
        "message": "Your details?",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "country": {"type": "string", "default": "FR"},
                "age": {"type": "integer", "default": 42},
                "newsletter": {"type": "boolean", "default": false},
                "color": {"type": "string", "enum": ["red", "green"], "default": "green"}
            },
            "required": ["name"]
        }
    })
}

/// An elicitation handler that fills in only `name` (and `country`, overriding its default).
async fn fill_name(
    params: ElicitRequestParams,
    _ctx: mcp_client::RequestContext,
) -> Result<ElicitResult, mcp_jsonrpc::ErrorObject> {
    let ElicitRequestParams::Form(form) = params else {
        panic!("expected form mode");
    };
    assert_eq!(form.message, "Your details?");
    let content: BTreeMap<String, ElicitValue> = [
        ("name".to_owned(), ElicitValue::from("Ada")),
        ("country".to_owned(), ElicitValue::from("UK")),
    ]
    .into();
    Ok(ElicitResult::accept(Some(content)))
}

#[tokio::test]
async fn elicitation_applies_defaults_when_declared() {
    let h = connect(
        Client::builder()
            .elicitation(fill_name)
            .elicitation_apply_defaults(true),
    )
    .await;
    let result = h
        .server
        .request(Elicit::METHOD, form_request())
        .await
        .unwrap();
    assert_eq!(
        result,
        json!({
            "action": "accept",
            "content": {"name": "Ada", "country": "UK", "age": 42, "newsletter": false,
                        "color": "green"}
        })
    );
}

#[tokio::test]
async fn elicitation_without_apply_defaults_returns_what_the_app_gave() {
    let h = connect(Client::builder().elicitation(fill_name)).await;
    let result = h
        .server
        .request(Elicit::METHOD, form_request())
        .await
        .unwrap();
    assert_eq!(
        result,
        json!({"action": "accept", "content": {"name": "Ada", "country": "UK"}})
    );
}

#[tokio::test]
async fn declined_elicitations_get_no_defaults() {
    let h = connect(
        Client::builder()
            .elicitation(|_p, _c| async { Ok(ElicitResult::decline()) })
            .elicitation_apply_defaults(true),
    )
    .await;
    let result = h
        .server
        .request(Elicit::METHOD, form_request())
        .await
        .unwrap();
    assert_eq!(result, json!({"action": "decline"}));
}

#[tokio::test]
async fn url_elicitation_and_its_completion_notification() {
    let (seen_tx, mut seen) = mpsc::channel(4);
    let (notes_tx, mut notes) = mpsc::channel(4);
    let builder = Client::builder()
        .handler(notes_tx)
        .elicitation(move |params: ElicitRequestParams, _ctx| {
            let seen_tx = seen_tx.clone();
            async move {
                let ElicitRequestParams::Url(url) = params else {
                    panic!("expected url mode");
                };
                seen_tx
                    .send((url.url.clone(), url.elicitation_id.clone()))
                    .await
                    .unwrap();
                Ok(ElicitResult::accept(None))
            }
        })
        .elicitation_url(true);
    let h = connect(builder).await;
    let result = h
        .server
        .request(
            Elicit::METHOD,
            json!({"mode": "url", "message": "Log in", "url": "https://example.com/login",
                   "elicitationId": "el-7"}),
        )
        .await
        .unwrap();
    assert_eq!(result, json!({"action": "accept"}));
    assert_eq!(
        seen.recv().await.unwrap(),
        (
            "https://example.com/login".to_owned(),
            Some("el-7".to_owned())
        )
    );
    h.server
        .notify::<ElicitationComplete>({
            let mut built = ElicitationCompleteNotificationParams::default();
            built.elicitation_id = "el-7".into();
            built
        })
        .await;
    match notes.recv().await.unwrap() {
        ServerNotification::ElicitationComplete(p) => assert_eq!(p.elicitation_id, "el-7"),
        other => panic!("unexpected {other:?}"),
    }
    // The answer's action is what the app chose.
    assert_eq!(
        ElicitAction::Accept,
        serde_json::from_value(result["action"].clone()).unwrap()
    );
}

#[tokio::test]
async fn undeclared_capabilities_are_answered_method_not_found() {
    // Nothing installed.
    let h = connect(Client::builder()).await;
    for (method, params) in [
        (CreateMessage::METHOD, sampling_params()),
        (Elicit::METHOD, form_request()),
        (ListRoots::METHOD, json!({})),
        ("tasks/list", json!({})),
        ("no/such/method", json!({})),
    ] {
        let err = h.server.request(method, params).await.unwrap_err();
        assert_eq!(err.code.0, -32601, "{method}: {err:?}");
    }
    // Ping needs no capability.
    assert_eq!(
        h.server.request(Ping::METHOD, json!({})).await.unwrap(),
        json!({})
    );

    // Form mode declared, URL mode not.
    let h = connect(Client::builder().elicitation(fill_name)).await;
    let err = h
        .server
        .request(
            Elicit::METHOD,
            json!({"mode": "url", "message": "m", "url": "https://x", "elicitationId": "e"}),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code.0, -32601);

    // A handler is installed but explicit capabilities leave sampling out.
    let h = connect(
        Client::builder()
            .sampling(|_p, _c| async { Err(mcp_jsonrpc::ErrorObject::new(-1, "unreachable")) })
            .capabilities(Default::default()),
    )
    .await;
    let err = h
        .server
        .request(CreateMessage::METHOD, sampling_params())
        .await
        .unwrap_err();
    assert_eq!(err.code.0, -32601);
}

#[tokio::test]
async fn bad_params_are_answered_invalid_params() {
    let h = connect(Client::builder().elicitation(fill_name)).await;
    let err = h
        .server
        .request(Elicit::METHOD, json!({"message": 5}))
        .await
        .unwrap_err();
    assert_eq!(err.code.0, -32602);
}

#[tokio::test]
async fn roots_are_listed_and_changes_are_announced() {
    let mut h = connect(Client::builder().roots(vec![Root::new("file:///a").with_name("A")])).await;
    assert_eq!(
        h.server
            .request(ListRoots::METHOD, json!({}))
            .await
            .unwrap(),
        json!({"roots": [{"uri": "file:///a", "name": "A"}]})
    );
    h.client
        .set_roots(vec![Root::new("file:///b"), Root::new("file:///c")])
        .await
        .unwrap();
    let seen = h.server.next_with(RootsListChanged::METHOD).await;
    assert_eq!(seen.params(), &json!({}));
    assert_eq!(h.client.roots().len(), 2);
    assert_eq!(
        h.server
            .request(ListRoots::METHOD, json!({}))
            .await
            .unwrap(),
        json!({"roots": [{"uri": "file:///b"}, {"uri": "file:///c"}]})
    );
}

#[tokio::test]
async fn set_roots_needs_the_roots_capability() {
    let h = connect(Client::builder()).await;
    let err = h.client.set_roots(vec![]).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::CapabilityNotDeclared {
                side: Side::Client,
                capability: "roots"
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "the client did not declare the roots capability"
    );
}
