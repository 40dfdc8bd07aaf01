use mcp_server::{Context, Prompt, PromptArguments, Resource, ResourceTemplate, Tool, UriParams};
use serde_json::json;

use crate::fixture;
use crate::support::Client;

#[tokio::test(start_paused = true)]
async fn adding_and_removing_sends_list_changed_to_every_session() {
    let server = fixture();
    let mut a = Client::connect_full(&server).await;
    let mut b = Client::connect_full(&server).await;

    server.add_tool(Tool::new("late", |_cx: Context| async { "late" }).description("Added later"));
    for c in [&mut a, &mut b] {
        assert_eq!(c.notification().await.0, "notifications/tools/list_changed");
    }
    let tools = a.raw("tools/list", json!({})).await.unwrap();
    assert!(
        tools["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "late")
    );
    assert_eq!(
        a.raw("tools/call", json!({"name": "late"})).await.unwrap()["content"][0]["text"],
        "late"
    );

    assert!(server.remove_tool("late"));
    assert!(!server.remove_tool("late"));
    assert_eq!(a.notification().await.0, "notifications/tools/list_changed");
    assert_eq!(b.notification().await.0, "notifications/tools/list_changed");
    let err = a
        .raw("tools/call", json!({"name": "late"}))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("Unknown tool: late"));

    server.add_resource(Resource::text("test://late", "late", "late"));
    assert_eq!(
        a.notification().await.0,
        "notifications/resources/list_changed"
    );
    assert!(server.remove_resource("test://late"));
    assert_eq!(
        a.notification().await.0,
        "notifications/resources/list_changed"
    );
    server.add_resource_template(
        ResourceTemplate::new(
            "test://late/{x}",
            "late",
            |_p: UriParams, _cx: Context| async { "" },
        )
        .unwrap(),
    );
    assert_eq!(
        a.notification().await.0,
        "notifications/resources/list_changed"
    );
    assert!(server.remove_resource_template("test://late/{x}"));
    assert_eq!(
        a.notification().await.0,
        "notifications/resources/list_changed"
    );
    server.add_prompt(Prompt::new(
        "late",
        |_a: PromptArguments, _cx: Context| async { "" },
    ));
    assert_eq!(
        a.notification().await.0,
        "notifications/prompts/list_changed"
    );
    assert!(server.remove_prompt("late"));
    assert_eq!(
        a.notification().await.0,
        "notifications/prompts/list_changed"
    );
    a.assert_no_notification().await;
}

#[tokio::test(start_paused = true)]
async fn bursts_of_changes_are_coalesced() {
    let server = fixture();
    let mut a = Client::connect_full(&server).await;
    for i in 0..100 {
        server.add_tool(Tool::new(format!("t{i}"), |_cx: Context| async { "" }));
    }
    assert_eq!(a.notification().await.0, "notifications/tools/list_changed");
    // Far fewer than 100 notifications: the generation is read once per wake-up.
    let mut extra = 0;
    while tokio::time::timeout(std::time::Duration::from_secs(1), a.notification())
        .await
        .is_ok()
    {
        extra += 1;
    }
    assert!(extra <= 1, "{extra} extra notifications");
}

#[tokio::test(start_paused = true)]
async fn sessions_not_yet_initialized_get_no_list_changed() {
    let server = fixture();
    let mut raw = Client::connect_raw(&server);
    raw.initialize("2025-11-25", json!({})).await.unwrap();
    // No `notifications/initialized` yet.
    server.add_tool(Tool::new("x", |_cx: Context| async { "" }));
    raw.assert_no_notification().await;
}
