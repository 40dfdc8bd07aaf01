// A `#[from_context]` parameter whose type is no extractor.
use mcp_server::tool;

struct Db;

/// Looks a key up.
#[tool]
async fn lookup(key: String, #[from_context] _db: Db) -> String {
    key
}

fn main() {
    let _ = lookup_tool();
}
