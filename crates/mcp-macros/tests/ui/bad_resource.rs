use mcp_server::resource;

#[resource(name = "config")]
async fn config() -> &'static str {
    ""
}

#[resource(uri = "users://{id")]
async fn user(id: String) -> String {
    id
}

fn main() {}
