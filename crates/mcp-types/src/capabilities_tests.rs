use super::*;
use crate::result::test_util::round_trip;

#[test]
fn client_examples_2026() {
    let both: ClientCapabilities = round_trip(r#"{"elicitation":{"form":{},"url":{}}}"#);
    assert!(both.supports_elicitation_form() && both.supports_elicitation_url());

    let implicit: ClientCapabilities = round_trip(r#"{"elicitation":{}}"#);
    assert!(implicit.supports_elicitation_form());
    assert!(!implicit.supports_elicitation_url());

    let url_only: ClientCapabilities = round_trip(r#"{"elicitation":{"url":{}}}"#);
    assert!(!url_only.supports_elicitation_form());
    assert!(url_only.supports_elicitation_url());

    let ext: ClientCapabilities = round_trip(
        r#"{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}"#,
    );
    assert!(ext.extension("io.modelcontextprotocol/ui").is_some());
    assert!(ext.extension("other").is_none());

    let roots: ClientCapabilities = round_trip(r#"{"roots":{}}"#);
    assert!(roots.supports_roots());
    let ctx: ClientCapabilities = round_trip(r#"{"sampling":{"context":{}}}"#);
    assert!(ctx.supports_sampling() && !ctx.supports_sampling_tools());
    let base: ClientCapabilities = round_trip(r#"{"sampling":{}}"#);
    assert!(base.supports_sampling());
    let tools: ClientCapabilities = round_trip(r#"{"sampling":{"tools":{}}}"#);
    assert!(tools.supports_sampling_tools());

    let none: ClientCapabilities = round_trip("{}");
    assert!(
        !none.supports_elicitation_form() && !none.supports_sampling() && !none.supports_roots()
    );
}

#[test]
fn client_older_shapes() {
    // 2024-11-05
    round_trip::<ClientCapabilities>(
        r#"{"roots":{"listChanged":true},"sampling":{},"experimental":{"x":{"a":1}}}"#,
    );
    // 2025-11-25, every nested field
    let caps: ClientCapabilities = round_trip(
        r#"{"roots":{"listChanged":true},"sampling":{"context":{},"tools":{}},
            "elicitation":{"form":{},"url":{}},
            "tasks":{"list":{},"cancel":{},"requests":{"sampling":{"createMessage":{}},
                                                   "elicitation":{"create":{}}}}}"#,
    );
    let tasks = caps.tasks.expect("tasks");
    assert!(
        tasks
            .requests
            .and_then(|r| r.sampling)
            .and_then(|s| s.create_message)
            .is_some()
    );
}

#[test]
fn server_shapes() {
    for json in [
        r#"{"completions":{}}"#,
        r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#,
        r#"{"logging":{}}"#,
        r#"{"prompts":{"listChanged":true}}"#,
        r#"{"prompts":{}}"#,
        r#"{"resources":{"subscribe":true,"listChanged":true}}"#,
        r#"{"resources":{"listChanged":true}}"#,
        r#"{"resources":{}}"#,
        r#"{"resources":{"subscribe":true}}"#,
        r#"{"tools":{"listChanged":true}}"#,
        r#"{"tools":{}}"#,
        r#"{"experimental":{"x":{}},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}"#,
    ] {
        round_trip::<ServerCapabilities>(json);
    }
    let caps: ServerCapabilities = round_trip(r#"{"resources":{"subscribe":true}}"#);
    assert!(caps.supports_resource_subscriptions());
    let caps: ServerCapabilities =
        round_trip(r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#);
    assert!(caps.extension(crate::TASKS_EXTENSION).is_some());
}

#[test]
fn unknown_fields_survive_at_every_level() {
    let caps: ClientCapabilities = round_trip(
        r#"{"future":{"a":1},"roots":{"x":true},"sampling":{"y":1},"elicitation":{"z":[]},
            "tasks":{"q":1,"requests":{"r":2,"sampling":{"s":3},"elicitation":{"t":4}}}}"#,
    );
    assert!(caps.extra.contains_key("future"));
    let caps: ServerCapabilities = round_trip(
        r#"{"future":1,"prompts":{"a":1},"resources":{"b":2},"tools":{"c":3},
            "tasks":{"d":4,"requests":{"e":5,"tools":{"f":6}}}}"#,
    );
    assert!(caps.extra.contains_key("future"));
}
