use mcp_server::{
    Context, Prompt, PromptArguments, Resource, ResourceTemplate, Server, Tool, UriParams,
};
use serde_json::{Value, json};

use crate::support::{Client, rpc_error};

fn paged_server() -> Server {
    let mut b = Server::builder().page_size(2);
    for i in 0..5 {
        b = b
            .tool(Tool::new(format!("tool{i}"), |_cx: Context| async { "" }))
            .resource(Resource::text(format!("test://r{i}"), format!("r{i}"), ""))
            .resource_template(
                ResourceTemplate::new(
                    format!("test://t{i}/{{x}}"),
                    format!("t{i}"),
                    |_p: UriParams, _cx: Context| async { "" },
                )
                .unwrap(),
            )
            .prompt(Prompt::new(
                format!("p{i}"),
                |_a: PromptArguments, _cx: Context| async { "" },
            ));
    }
    b.build()
}

async fn collect(
    client: &Client,
    method: &'static str,
    field: &str,
    key: &str,
) -> (Vec<String>, usize) {
    let mut names = Vec::new();
    let mut pages = 0;
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let page = client.raw(method, params).await.unwrap();
        pages += 1;
        let items = page[field].as_array().unwrap();
        assert!(items.len() <= 2);
        names.extend(items.iter().map(|i| i[key].as_str().unwrap().to_owned()));
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(c) => cursor = Some(c.to_owned()),
            None => return (names, pages),
        }
    }
}

#[tokio::test(start_paused = true)]
async fn every_list_pages_with_opaque_cursors() {
    let server = paged_server();
    let client = Client::connect_full(&server).await;
    for (method, field, key, prefix) in [
        ("tools/list", "tools", "name", "tool"),
        ("resources/list", "resources", "uri", "test://r"),
        ("resources/templates/list", "resourceTemplates", "name", "t"),
        ("prompts/list", "prompts", "name", "p"),
    ] {
        let (names, pages) = collect(&client, method, field, key).await;
        assert_eq!(pages, 3, "{method}");
        let expected: Vec<String> = (0..5).map(|i| format!("{prefix}{i}")).collect();
        assert_eq!(names, expected, "{method}");

        for bad in ["not-a-cursor", "bWNwLXBhZ2U6OTk", ""] {
            let err = rpc_error(
                client
                    .raw(method, json!({"cursor": bad}))
                    .await
                    .unwrap_err(),
            );
            assert_eq!(err.code.0, -32602, "{method} {bad}");
            assert_eq!(err.message, "Invalid cursor");
        }
    }
}
