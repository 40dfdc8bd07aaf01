//! The bench's echo server on rmcp 3.11.0 (see `mcp_bench::args` for the command line), in
//! rmcp's own idiom (`#[tool_router]` / `#[tool_handler]`, the extra tools as dynamic routes
//! of the same router), in its fastest configuration: stdio on a `current_thread` runtime;
//! Streamable HTTP on the multi-thread runtime served by hyper's HTTP/1 connection builder
//! with TCP_NODELAY (rmcp's hyper example uses the slower protocol-sniffing `auto` builder),
//! `LocalSessionManager`, JSON responses when stateless. No logging.

use std::sync::Arc;

use anyhow::Result;
use hyper_util::service::TowerToHyperService;
use mcp_bench::args::{Mode, ServerArgs, blob_text};
use rmcp::handler::server::router::tool::{ToolRoute, ToolRouter};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig, Tool};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to echo.
    text: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct BlobArgs {
    /// How many bytes of text to return.
    bytes: usize,
}

#[derive(Clone)]
struct Echo {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Echo {
    fn new(extra_tools: usize) -> Self {
        let mut tool_router = Self::tool_router();
        let schema: Arc<serde_json::Map<String, serde_json::Value>> = Arc::new(
            serde_json::from_value(serde_json::json!({
                "type": "object",
                "properties": {"text": {"type": "string", "description": "Some text."}},
                "required": ["text"]
            }))
            .unwrap_or_default(),
        );
        for i in 0..extra_tools {
            tool_router.add_route(ToolRoute::new_dyn(
                Tool::new(
                    format!("tool_{i}"),
                    format!("Extra tool number {i}"),
                    schema.clone(),
                ),
                |_cx| {
                    Box::pin(async {
                        Ok(CallToolResult::success(vec![ContentBlock::text("ok")]).into())
                    })
                },
            ));
        }
        Self { tool_router }
    }

    #[tool(description = "Echoes the text")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Returns a text of that many bytes")]
    fn blob(&self, Parameters(BlobArgs { bytes }): Parameters<BlobArgs>) -> String {
        blob_text(bytes)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

fn main() -> Result<()> {
    let args = ServerArgs::parse(std::env::args().skip(1))?;
    if args.redis.is_some() {
        anyhow::bail!("echo-rmcp has no Redis stores (--redis is echo-ours only)");
    }
    if args.otel {
        anyhow::bail!("--otel is echo-ours only");
    }
    match args.mode {
        Mode::Stdio => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?
            .block_on(async {
                let running = Echo::new(args.tools)
                    .serve(rmcp::transport::stdio())
                    .await?;
                running.waiting().await?;
                Ok(())
            }),
        Mode::Http { addr, stateful } => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?
            .block_on(serve_http(args.tools, &addr, stateful)),
    }
}

async fn serve_http(extra_tools: usize, addr: &str, stateful: bool) -> Result<()> {
    let echo = Echo::new(extra_tools);
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(stateful)
        .with_json_response(!stateful);
    let service = TowerToHyperService::new(StreamableHttpService::new(
        move || Ok(echo.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    ));
    mcp_bench::http1::serve(addr, service).await
}
