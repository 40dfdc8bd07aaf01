use serde_json::json;

use crate::result::test_util::{decode_err, round_trip};
use crate::*;

#[test]
fn complete_requests() {
    let r: CompleteRequest = round_trip(
        r#"{"jsonrpc": "2.0", "id": "completion-example", "method": "completion/complete",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                 "io.modelcontextprotocol/clientCapabilities": {}},
                       "ref": {"type": "ref/prompt", "name": "code_review"},
                       "argument": {"name": "language", "value": "py"}}}"#,
    );
    assert_eq!(
        r.params.reference,
        CompletionReference::Prompt(PromptReference::new("code_review"))
    );
    let p: CompleteRequestParams = round_trip(
        r#"{"_meta": {"io.modelcontextprotocol/clientCapabilities": {}},
            "ref": {"type": "ref/prompt", "name": "code_review"},
            "argument": {"name": "framework", "value": "fla"},
            "context": {"arguments": {"language": "python"}}}"#,
    );
    let ctx = p.context.and_then(|c| c.arguments).unwrap_or_default();
    assert_eq!(ctx.get("language").map(String::as_str), Some("python"));
    // 2024-11-05: `ResourceReference`, no context or _meta.
    let p: CompleteRequestParams = round_trip(
        r#"{"ref": {"type": "ref/resource", "uri": "file:///{path}"}, "argument": {"name": "path", "value": "sr"}}"#,
    );
    assert_eq!(p.reference, ResourceReference::new("file:///{path}").into());
    round_trip::<CompleteRequestParams>(
        r#"{"ref": {"type": "ref/prompt", "name": "p", "title": "P", "z": 1}, "argument": {"name": "a", "value": ""}, "y": 2}"#,
    );
    let err = decode_err::<CompletionReference>(r#"{"type": "ref/tool", "name": "x"}"#);
    assert!(err.contains("unknown reference type"), "{err}");
    let v = serde_json::to_value(CompleteRequestParams::new(
        PromptReference::new("p"),
        "a",
        "v",
    ))
    .unwrap();
    assert_eq!(
        v,
        json!({"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "v"}})
    );
}

#[test]
fn complete_results() {
    let r: CompleteResult = round_trip(
        r#"{"resultType": "complete", "completion": {"values": ["python", "pytorch", "pyside"], "total": 10, "hasMore": true}}"#,
    );
    assert_eq!(
        (r.completion.total, r.completion.has_more),
        (Some(10), Some(true))
    );
    round_trip::<CompleteResult>(
        r#"{"resultType": "complete", "completion": {"values": ["flask"], "total": 1, "hasMore": false}}"#,
    );
    round_trip::<CompleteResultResponse>(
        r#"{"jsonrpc": "2.0", "id": "completion-example",
            "result": {"resultType": "complete", "completion": {"values": ["flask"], "total": 1, "hasMore": false}}}"#,
    );
    round_trip::<CompleteResult>(r#"{"completion": {"values": []}, "_meta": {"k": 1}, "x": 1}"#);
    assert_eq!(<Complete as Request>::METHOD, "completion/complete");
}
