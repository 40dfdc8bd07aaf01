//! The resources and the resource template of `everything-server`.

use mcp_jsonrpc::ErrorCode;
use mcp_types::{ListResourceTemplates, ListResources, ReadResource, Subscribe, Unsubscribe};
use serde_json::json;

use super::connect;
use crate::fixture;

#[tokio::test]
async fn resources_and_templates_are_listed_with_the_fixture_metadata() {
    let session = connect().await;
    let listed = session.call::<ListResources>(json!({})).await.unwrap();
    assert_eq!(listed, json!({"resources": fixture::resources()}));
    let listed = session
        .call::<ListResourceTemplates>(json!({}))
        .await
        .unwrap();
    assert_eq!(listed, json!({"resourceTemplates": fixture::templates()}));
    session.close().await;
}

#[tokio::test]
async fn every_resource_and_template_instance_reads_exactly() {
    let session = connect().await;
    for uri in [
        "test://static-text",
        "test://static-binary",
        "test://watched-resource",
        "test://template/123/data",
        "test://template/abc/data",
    ] {
        let read = session
            .call::<ReadResource>(json!({"uri": uri}))
            .await
            .unwrap_or_else(|e| panic!("reading {uri}: {e}"));
        assert_eq!(
            read,
            json!({"contents": fixture::read_contents(uri)}),
            "{uri}"
        );
    }
    session.close().await;
}

#[tokio::test]
async fn reading_an_unknown_resource_is_error_32002_naming_the_uri() {
    let session = connect().await;
    for uri in [
        "test://nonexistent-resource-for-conformance-testing",
        "test://template/123",
    ] {
        let err = session.call_err::<ReadResource>(json!({"uri": uri})).await;
        assert_eq!(err.code, ErrorCode(-32002), "{uri}");
        assert_eq!(err.message, "Resource not found");
        assert_eq!(err.data, Some(json!({"uri": uri})));
    }
    session.close().await;
}

#[tokio::test]
async fn watched_resource_can_be_subscribed_and_unsubscribed() {
    let session = connect().await;
    let uri = json!({"uri": "test://watched-resource"});
    assert_eq!(
        session.call::<Subscribe>(uri.clone()).await.unwrap(),
        json!({})
    );
    assert_eq!(
        session.call::<Unsubscribe>(uri.clone()).await.unwrap(),
        json!({})
    );
    // Again, in the conformance suite's order (subscribe, then unsubscribe).
    assert_eq!(
        session.call::<Subscribe>(uri.clone()).await.unwrap(),
        json!({})
    );
    assert_eq!(session.call::<Unsubscribe>(uri).await.unwrap(), json!({}));
    let err = session
        .call_err::<Subscribe>(json!({"uri": "test://nope"}))
        .await;
    assert_eq!(err.code, ErrorCode(-32002));
    session.close().await;
}
