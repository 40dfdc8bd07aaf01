// A `#[tool]` returning `anyhow::Result` without mcp-server's `anyhow` feature.
use mcp_server::tool;

/// Reads a file.
#[tool]
async fn read(path: String) -> anyhow::Result<String> {
    Ok(std::fs::read_to_string(path)?)
}

fn main() {
    let _ = read_tool();
}
