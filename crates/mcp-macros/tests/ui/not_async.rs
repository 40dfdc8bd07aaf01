use mcp_server::tool;

/// Adds.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn main() {}
