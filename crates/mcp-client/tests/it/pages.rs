//! List streams against servers whose cursors never end or come round again.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures::StreamExt;
use mcp_client::{Client, Error};
use mcp_types::{ListPrompts, ListResources, ListTools, Request as _};
use serde_json::json;

use crate::support::FakeServer;

/// A server whose `tools/list` hands out a new cursor with every page; counts the pages.
fn endless() -> (FakeServer, Arc<AtomicUsize>) {
    let pages = Arc::new(AtomicUsize::new(0));
    let count = pages.clone();
    let server = FakeServer::new().route(ListTools::METHOD, move |_, _| {
        let n = count.fetch_add(1, Ordering::Relaxed) + 1;
        async move {
            Ok(json!({
                "tools": [{"name": format!("t{n}"), "inputSchema": {"type": "object"}}],
                "nextCursor": format!("c{n}")
            }))
        }
    });
    (server, pages)
}

#[tokio::test]
async fn endless_cursors_end_at_the_default_page_limit() {
    let (server, pages) = endless();
    let h = server.connect(Client::builder()).await;
    let items: Vec<_> = h.client.list_tools_stream().collect().await;
    assert_eq!(items.len(), 101, "100 pages of one tool, then the error");
    assert!(items[..100].iter().all(Result::is_ok));
    assert!(
        matches!(&items[100], Err(Error::TooManyPages { method, pages: 100 })
            if method == ListTools::METHOD),
        "{:?}",
        items[100]
    );
    assert_eq!(
        items[100].as_ref().unwrap_err().to_string(),
        "tools/list: the server still had more after 100 pages"
    );
    assert_eq!(
        pages.load(Ordering::Relaxed),
        100,
        "no page fetched past it"
    );
}

#[tokio::test]
async fn the_page_limit_is_set_on_the_builder() {
    let (server, pages) = endless();
    let h = server.connect(Client::builder().max_list_pages(3)).await;
    let items: Vec<_> = h.client.list_tools_stream().collect().await;
    assert_eq!(items.len(), 4);
    assert!(matches!(
        &items[3],
        Err(Error::TooManyPages { pages: 3, .. })
    ));
    assert_eq!(pages.load(Ordering::Relaxed), 3);
    // One page at a time is up to the caller, and not counted.
    let page = h.client.list_tools(Some("c9".into())).await.unwrap();
    assert_eq!(page.next_cursor.as_deref(), Some("c4"));
}

#[tokio::test]
async fn a_list_of_exactly_the_limit_ends_without_an_error() {
    let server = FakeServer::new().route(ListResources::METHOD, |params, _| async move {
        let page = params["cursor"].as_str().unwrap_or("p1").to_owned();
        let mut v = json!({"resources": [{"uri": format!("file:///{page}"), "name": page}]});
        match page.as_str() {
            "p1" => v["nextCursor"] = json!("p2"),
            "p2" => v["nextCursor"] = json!("p3"),
            _ => {}
        }
        Ok(v)
    });
    let h = server.connect(Client::builder().max_list_pages(3)).await;
    let items: Vec<_> = h.client.list_resources_stream().collect().await;
    assert_eq!(items.len(), 3);
    assert!(items.iter().all(Result::is_ok), "{items:?}");
}

#[tokio::test]
async fn a_cursor_that_comes_round_again_ends_the_stream() {
    // a -> b -> a: not the same cursor twice in a row, but a loop all the same.
    let server = FakeServer::new().route(ListPrompts::METHOD, |params, _| async move {
        let next = match params["cursor"].as_str() {
            None | Some("b") => "a",
            Some(_) => "b",
        };
        Ok(json!({"prompts": [{"name": "p"}], "nextCursor": next}))
    });
    let h = server.connect(Client::builder()).await;
    let items: Vec<_> = h.client.list_prompts_stream().collect().await;
    assert_eq!(items.len(), 4, "{items:?}");
    assert!(items[..3].iter().all(Result::is_ok));
    match &items[3] {
        Err(Error::Protocol { method, message }) => {
            assert_eq!(method, ListPrompts::METHOD);
            assert_eq!(message, "the server repeated the cursor \"a\"");
        }
        other => panic!("expected a protocol error, got {other:?}"),
    }
}
