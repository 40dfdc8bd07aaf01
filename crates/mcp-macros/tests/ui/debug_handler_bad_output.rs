// `#[debug_handler(resource)]` points at a return type that is no resource contents.
use mcp_server::debug_handler;

struct Page {
    _html: String,
}

#[debug_handler(resource)]
async fn home() -> Page {
    Page { _html: String::new() }
}

fn main() {}
