use base64::Engine as _;
use serde_json::json;

use crate::support::{Client, rpc_error};
use crate::{PNG, fixture};

#[tokio::test(start_paused = true)]
async fn lists_and_reads_static_resources() {
    let server = fixture();
    let client = Client::connect_full(&server).await;
    let list = client.raw("resources/list", json!({})).await.unwrap();
    assert_eq!(
        list["resources"][0],
        json!({"uri": "test://static-text", "name": "static-text", "description": "A text resource", "mimeType": "text/plain"})
    );
    let text = client
        .raw("resources/read", json!({"uri": "test://static-text"}))
        .await
        .unwrap();
    assert_eq!(
        text,
        json!({"contents": [{"uri": "test://static-text", "mimeType": "text/plain", "text": "static text"}]})
    );
    let blob = client
        .raw("resources/read", json!({"uri": "test://static-binary"}))
        .await
        .unwrap();
    let c = &blob["contents"][0];
    assert_eq!(c["mimeType"], "image/png");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(c["blob"].as_str().unwrap())
        .unwrap();
    assert_eq!(bytes, PNG);
}

#[tokio::test(start_paused = true)]
async fn reads_templates_with_variables() {
    let server = fixture();
    let client = Client::connect_full(&server).await;
    let list = client
        .raw("resources/templates/list", json!({}))
        .await
        .unwrap();
    assert_eq!(
        list,
        json!({"resourceTemplates": [{"uriTemplate": "test://template/{id}/data", "name": "template", "mimeType": "application/json"}]})
    );
    let r = client
        .raw("resources/read", json!({"uri": "test://template/123/data"}))
        .await
        .unwrap();
    assert_eq!(
        r,
        json!({"contents": [{"uri": "test://template/123/data", "mimeType": "application/json", "text": "{\"id\":\"123\"}"}]})
    );
}

#[tokio::test(start_paused = true)]
async fn unknown_resources_are_32002_with_the_uri() {
    let server = fixture();
    let client = Client::connect_full(&server).await;
    for uri in [
        "test://nonexistent",
        "test://template/1/2/data",
        "test://missing",
    ] {
        let err = rpc_error(
            client
                .raw("resources/read", json!({"uri": uri}))
                .await
                .unwrap_err(),
        );
        assert_eq!(err.code.0, -32002, "{uri}");
        assert_eq!(err.data, Some(json!({"uri": uri})));
    }
    let err = rpc_error(
        client
            .raw("resources/subscribe", json!({"uri": "test://nonexistent"}))
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code.0, -32002);
}

#[tokio::test(start_paused = true)]
async fn updates_go_only_to_subscribed_sessions() {
    let server = fixture();
    let mut a = Client::connect_full(&server).await;
    let mut b = Client::connect_full(&server).await;
    assert_eq!(
        a.raw("resources/subscribe", json!({"uri": "test://static-text"}))
            .await
            .unwrap(),
        json!({})
    );
    // Templated resources can be subscribed too.
    a.raw(
        "resources/subscribe",
        json!({"uri": "test://template/7/data"}),
    )
    .await
    .unwrap();

    server.notify_resource_updated("test://static-text");
    assert_eq!(
        a.notification().await,
        (
            "notifications/resources/updated".to_owned(),
            json!({"uri": "test://static-text"})
        )
    );
    b.assert_no_notification().await;

    server.notify_resource_updated("test://static-binary");
    a.assert_no_notification().await;

    server.notify_resource_updated("test://template/7/data");
    assert_eq!(
        a.notification_named("notifications/resources/updated")
            .await,
        json!({"uri": "test://template/7/data"})
    );

    assert_eq!(
        a.raw(
            "resources/unsubscribe",
            json!({"uri": "test://static-text"})
        )
        .await
        .unwrap(),
        json!({})
    );
    server.notify_resource_updated("test://static-text");
    a.assert_no_notification().await;
}
