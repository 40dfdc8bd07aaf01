use mcp_server::tool;

#[tool]
struct Add {
    a: i64,
}

fn main() {}
