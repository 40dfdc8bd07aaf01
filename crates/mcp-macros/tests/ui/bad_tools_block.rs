use mcp_server::tools;

struct Counter;

#[tools]
impl Counter {
    #[tool]
    async fn reset(&mut self) -> &'static str {
        "reset"
    }

    #[tool]
    #[prompt]
    async fn both(&self) -> &'static str {
        "both"
    }
}

#[tools]
impl Clone for Counter {
    fn clone(&self) -> Self {
        Counter
    }
}

fn main() {}
