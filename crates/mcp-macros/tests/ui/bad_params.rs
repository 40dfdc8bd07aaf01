use mcp_server::{prompt, tool};

#[tool]
async fn echo(text: &str) -> String {
    text.to_owned()
}

#[tool]
async fn first<T: Clone>(items: Vec<T>) -> usize {
    items.len()
}

#[prompt]
async fn repeat(times: u32) -> String {
    "again".repeat(times as usize)
}

fn main() {}
