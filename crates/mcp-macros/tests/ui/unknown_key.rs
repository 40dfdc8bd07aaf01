use mcp_server::{resource, tool};

#[tool(name = "add", summary = "Adds")]
async fn add(a: i64) -> i64 {
    a
}

#[resource(uri = "config://app", mime = "text/plain")]
async fn config() -> &'static str {
    ""
}

fn main() {}
