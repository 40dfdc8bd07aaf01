use mcp_server::resource;

#[resource(uri = "users://{id}/posts/{post}")]
async fn post(id: String) -> String {
    id
}

#[resource(uri = "users://{id}")]
async fn user(id: String, name: String) -> String {
    id + &name
}

#[resource(uri = "config://app")]
async fn config(name: String) -> String {
    name
}

fn main() {}
