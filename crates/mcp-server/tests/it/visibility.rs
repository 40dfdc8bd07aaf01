//! Filters: what one principal or one session may see and call.

use mcp_server::types::PromptMessage;
use mcp_server::{Context, Prompt, Resource, ResourceTemplate, Server, Tool, UriParams};
use serde_json::{Value, json};

use crate::support::{Client, rpc_error};

/// The principal an auth layer in front of the transport would attach.
#[derive(Clone)]
struct Principal(&'static str);

fn is_admin(cx: &Context) -> bool {
    matches!(cx.extensions().get::<Principal>(), Some(Principal("admin")))
}

fn server() -> Server {
    Server::builder()
        .tool(Tool::new("read", || async { "data" }))
        .tool(Tool::new("drop_tables", || async { "dropped" }))
        .tool_filter(|tool, cx| tool.name() != "drop_tables" || is_admin(cx))
        .resource(Resource::text("app://public", "public", "hello"))
        .resource(Resource::text("app://secret", "secret", "42"))
        .resource_filter(|r, cx| r.uri() != "app://secret" || is_admin(cx))
        .resource_template(
            ResourceTemplate::new("audit://{day}", "audit", |p: UriParams| async move {
                format!("audit of {}", p.get("day").unwrap_or_default())
            })
            .unwrap()
            .complete_values("day", ["monday"]),
        )
        .resource_template_filter(|_, cx| is_admin(cx))
        .prompt(Prompt::new("public", || async { "hi" }))
        .prompt(
            Prompt::new("internal", || async {
                vec![PromptMessage::user_text("internal")]
            })
            .complete_values("x", ["y"]),
        )
        .prompt_filter(|p, cx| p.name() != "internal" || is_admin(cx))
        .build()
}

fn names(list: &Value, field: &str, key: &str) -> Vec<String> {
    list[field]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i[key].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_hidden_tool_is_neither_listed_nor_callable() {
    let server = server();
    let admin = Client::connect_with(&server, Principal("admin")).await;
    let user = Client::connect_with(&server, Principal("user")).await;

    let list = admin.raw("tools/list", json!({})).await.unwrap();
    assert_eq!(names(&list, "tools", "name"), ["read", "drop_tables"]);
    let list = user.raw("tools/list", json!({})).await.unwrap();
    assert_eq!(names(&list, "tools", "name"), ["read"]);

    let ok = admin
        .raw("tools/call", json!({"name": "drop_tables"}))
        .await
        .unwrap();
    assert_eq!(ok["content"][0]["text"], "dropped");
    let err = rpc_error(
        user.raw("tools/call", json!({"name": "drop_tables"}))
            .await
            .unwrap_err(),
    );
    let unknown = rpc_error(
        user.raw("tools/call", json!({"name": "no_such_tool"}))
            .await
            .unwrap_err(),
    );
    // Hidden answers exactly like unknown: nothing tells the user it exists.
    assert_eq!(
        (err.code.0, err.message.as_str()),
        (-32602, "Unknown tool: drop_tables")
    );
    assert_eq!(unknown.code, err.code);
}

#[tokio::test(start_paused = true)]
async fn hidden_resources_templates_and_prompts_are_not_found() {
    let server = server();
    let admin = Client::connect_with(&server, Principal("admin")).await;
    let user = Client::connect_with(&server, Principal("user")).await;

    let list = user.raw("resources/list", json!({})).await.unwrap();
    assert_eq!(names(&list, "resources", "uri"), ["app://public"]);
    let list = admin.raw("resources/list", json!({})).await.unwrap();
    assert_eq!(
        names(&list, "resources", "uri"),
        ["app://public", "app://secret"]
    );
    for uri in ["app://secret", "audit://monday"] {
        let err = rpc_error(
            user.raw("resources/read", json!({"uri": uri}))
                .await
                .unwrap_err(),
        );
        assert_eq!(err.code.0, -32002, "{uri}");
        let err = rpc_error(
            user.raw("resources/subscribe", json!({"uri": uri}))
                .await
                .unwrap_err(),
        );
        assert_eq!(err.code.0, -32002, "{uri}");
    }
    let read = admin
        .raw("resources/read", json!({"uri": "audit://monday"}))
        .await
        .unwrap();
    assert_eq!(read["contents"][0]["text"], "audit of monday");
    let templates = user
        .raw("resources/templates/list", json!({}))
        .await
        .unwrap();
    assert_eq!(templates["resourceTemplates"], json!([]));

    let list = user.raw("prompts/list", json!({})).await.unwrap();
    assert_eq!(names(&list, "prompts", "name"), ["public"]);
    let err = rpc_error(
        user.raw("prompts/get", json!({"name": "internal"}))
            .await
            .unwrap_err(),
    );
    assert_eq!(
        (err.code.0, err.message.as_str()),
        (-32602, "Unknown prompt: internal")
    );
    let err = rpc_error(
        user.raw(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "internal"},
                   "argument": {"name": "x", "value": ""}}),
        )
        .await
        .unwrap_err(),
    );
    assert_eq!(err.code.0, -32602);
    let done = admin
        .raw(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "internal"},
                   "argument": {"name": "x", "value": ""}}),
        )
        .await
        .unwrap();
    assert_eq!(done["completion"]["values"], json!(["y"]));
}

#[derive(Clone)]
struct Unlocked;

#[tokio::test(start_paused = true)]
async fn a_session_can_unlock_a_tool_for_itself_alone() {
    let server = Server::builder()
        .tool_filter(|tool, cx| {
            tool.name() != "secret" || cx.session().is_some_and(|s| s.get::<Unlocked>().is_some())
        })
        .tool(Tool::new("unlock", |cx: Context| async move {
            let session = cx.session().expect("a legacy-era session");
            session.insert(Unlocked);
            session.notify_tools_changed();
            "unlocked"
        }))
        .tool(Tool::new("secret", || async { "the secret" }))
        .build();
    let mut a = Client::connect_full(&server).await;
    let mut b = Client::connect_full(&server).await;
    let list = a.raw("tools/list", json!({})).await.unwrap();
    assert_eq!(names(&list, "tools", "name"), ["unlock"]);

    a.raw("tools/call", json!({"name": "unlock"}))
        .await
        .unwrap();
    a.notification_named("notifications/tools/list_changed")
        .await;
    let list = a.raw("tools/list", json!({})).await.unwrap();
    assert_eq!(names(&list, "tools", "name"), ["unlock", "secret"]);
    let secret = a
        .raw("tools/call", json!({"name": "secret"}))
        .await
        .unwrap();
    assert_eq!(secret["content"][0]["text"], "the secret");

    // The other session neither sees it nor is told anything changed.
    b.assert_no_notification().await;
    let list = b.raw("tools/list", json!({})).await.unwrap();
    assert_eq!(names(&list, "tools", "name"), ["unlock"]);
}
