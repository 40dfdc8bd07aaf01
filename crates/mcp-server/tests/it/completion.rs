use mcp_server::types::{
    Complete, CompleteRequestParams, PromptReference, ResourceTemplateReference,
};
use serde_json::json;

use crate::fixture;
use crate::support::{Client, rpc_error};

#[tokio::test(start_paused = true)]
async fn completes_prompt_arguments() {
    let server = fixture();
    let client = Client::connect_full(&server).await;
    let r = client
        .call::<Complete>(CompleteRequestParams::new(
            PromptReference::new("greet"),
            "style",
            "f",
        ))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({"completion": {"values": ["formal", "friendly", "funny"], "total": 3, "hasMore": false}})
    );
    // An argument without a completer: no values.
    let r = client
        .raw("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "x"}}))
        .await
        .unwrap();
    assert_eq!(
        r,
        json!({"completion": {"values": [], "total": 0, "hasMore": false}})
    );
    let err = rpc_error(
        client
            .raw("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "a", "value": ""}}))
            .await
            .unwrap_err(),
    );
    assert_eq!(err.code.0, -32602);
}

#[tokio::test(start_paused = true)]
async fn completes_template_variables_capped_at_100() {
    let server = fixture();
    let client = Client::connect_full(&server).await;
    let r = client
        .call::<Complete>(CompleteRequestParams::new(
            ResourceTemplateReference::new("test://template/{id}/data"),
            "id",
            "",
        ))
        .await
        .unwrap();
    assert_eq!(r.completion.values.len(), 100);
    assert_eq!(r.completion.values[0], "000");
    assert_eq!(r.completion.total, Some(150));
    assert_eq!(r.completion.has_more, Some(true));

    let r = client
        .call::<Complete>(CompleteRequestParams::new(
            ResourceTemplateReference::new("test://template/{id}/data"),
            "id",
            "14",
        ))
        .await
        .unwrap();
    assert_eq!(
        r.completion.values,
        [
            "140", "141", "142", "143", "144", "145", "146", "147", "148", "149"
        ]
    );
    assert_eq!(r.completion.has_more, Some(false));
}
