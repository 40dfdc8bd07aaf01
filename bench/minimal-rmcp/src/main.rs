//! The smallest stdio MCP server on rmcp: one `echo(text)` tool, rmcp with only `server`,
//! `macros` and `transport-io`. `cargo xtask bench` counts its packages and times its cold build.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServiceExt, schemars, tool, tool_router};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    text: String,
}

#[derive(Clone)]
struct Minimal;

#[tool_router(server_handler)]
impl Minimal {
    #[tool(description = "Echoes the text")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(async {
            let running = Minimal.serve(rmcp::transport::stdio()).await?;
            running.waiting().await?;
            Ok(())
        })
}
