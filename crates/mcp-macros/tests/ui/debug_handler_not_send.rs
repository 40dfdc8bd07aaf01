// `#[debug_handler]` on a resource template handler whose future is not `Send`.
use std::rc::Rc;

use mcp_server::{UriParams, debug_handler};

async fn fetch(_id: &str) -> String {
    String::new()
}

#[debug_handler(resource)]
async fn note(params: UriParams) -> String {
    let id = Rc::new(params.get("id").unwrap_or_default().to_owned());
    fetch(&id).await
}

fn main() {}
