use mcp_server::types::LoggingLevel;
use mcp_server::{Context, Server, Tool};
use serde_json::json;
#[cfg(feature = "tracing-bridge")]
use tracing_subscriber::layer::SubscriberExt;

use crate::support::Client;

fn logging_server() -> Server {
    Server::builder()
        .tool(Tool::new("chatty", |cx: Context| async move {
            for level in [
                LoggingLevel::Debug,
                LoggingLevel::Info,
                LoggingLevel::Warning,
                LoggingLevel::Error,
            ] {
                cx.log(level, Some("chatty"), json!(format!("at {level}")))
                    .await?;
            }
            Ok::<_, mcp_server::HandlerError>("done")
        }))
        .tool(Tool::new("traced", |_cx: Context| async move {
            tracing::debug!(target: "app", "debug event");
            tracing::info!(target: "app", answer = 42, "info event");
            tracing::warn!(target: "app", "warn event");
            "traced"
        }))
        .build()
}

async fn logged(client: &mut Client, tool: &'static str) -> Vec<serde_json::Value> {
    let r = client
        .raw("tools/call", json!({"name": tool}))
        .await
        .unwrap();
    assert!(r.get("isError").is_none(), "{r}");
    let mut out = Vec::new();
    loop {
        tokio::select! {
            n = client.notification() => {
                assert_eq!(n.0, "notifications/message");
                out.push(n.1);
            }
            () = tokio::time::sleep(std::time::Duration::from_millis(500)) => break,
        }
    }
    out
}

#[tokio::test(start_paused = true)]
async fn set_level_filters_log_messages() {
    let server = logging_server();
    let mut client = Client::connect_full(&server).await;
    // The default level is info.
    let msgs = logged(&mut client, "chatty").await;
    let levels: Vec<&str> = msgs.iter().map(|m| m["level"].as_str().unwrap()).collect();
    assert_eq!(levels, ["info", "warning", "error"]);
    assert_eq!(
        msgs[0],
        json!({"level": "info", "logger": "chatty", "data": "at info"})
    );

    assert_eq!(
        client
            .raw("logging/setLevel", json!({"level": "debug"}))
            .await
            .unwrap(),
        json!({})
    );
    assert_eq!(logged(&mut client, "chatty").await.len(), 4);

    client
        .raw("logging/setLevel", json!({"level": "error"}))
        .await
        .unwrap();
    let msgs = logged(&mut client, "chatty").await;
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0]["level"], "error");
}

#[cfg(feature = "tracing-bridge")]
#[tokio::test(start_paused = true)]
async fn the_tracing_bridge_forwards_events_at_each_sessions_level() {
    let server = logging_server();
    let subscriber = tracing_subscriber::registry().with(server.tracing_layer());
    let _guard = tracing::subscriber::set_default(subscriber);

    let mut warn_only = Client::connect_full(&server).await;
    warn_only
        .raw("logging/setLevel", json!({"level": "warning"}))
        .await
        .unwrap();
    let mut debug = Client::connect_full(&server).await;
    debug
        .raw("logging/setLevel", json!({"level": "debug"}))
        .await
        .unwrap();

    let msgs = logged(&mut debug, "traced").await;
    let levels: Vec<&str> = msgs.iter().map(|m| m["level"].as_str().unwrap()).collect();
    assert_eq!(levels, ["debug", "info", "warning"]);
    assert_eq!(
        msgs[1],
        json!({"level": "info", "logger": "app", "data": {"message": "info event", "answer": 42}})
    );

    let msgs: Vec<_> = {
        let mut out = Vec::new();
        while let Ok(n) = tokio::time::timeout(
            std::time::Duration::from_millis(500),
            warn_only.notification(),
        )
        .await
        {
            out.push(n.1);
        }
        out
    };
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0]["data"]["message"], "warn event");
}
