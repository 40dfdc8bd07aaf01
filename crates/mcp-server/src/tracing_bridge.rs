//! Forwarding `tracing` events to connected clients as `notifications/message`.

use std::fmt;
use std::sync::Weak;

use mcp_types::{JsonObject, LoggingLevel, LoggingMessageNotificationParams};
use serde_json::Value;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context as LayerContext, Layer};

use crate::Server;
use crate::server::ServerInner;

/// A [`tracing_subscriber::Layer`] that forwards `tracing` events to the server's sessions
/// as log messages (`notifications/message`), each session receiving the events at or above
/// the level it set with `logging/setLevel`. Make one with [`Server::tracing_layer`].
///
/// It never blocks: each session has a bounded queue ([`ServerBuilder::log_queue`]) and
/// events that do not fit are dropped. The logger name is the event's target; the data is an
/// object with the `message` and the event's other fields. Events from this crate and from
/// `mcp_jsonrpc` are not forwarded (they could feed back into themselves).
///
/// Levels map `ERROR` to `error`, `WARN` to `warning`, `INFO` to `info`, and `DEBUG` and
/// `TRACE` to `debug`.
///
/// ```
/// use tracing_subscriber::layer::SubscriberExt;
///
/// let server = mcp_server::Server::builder().build();
/// let subscriber = tracing_subscriber::registry().with(server.tracing_layer());
/// tracing::subscriber::with_default(subscriber, || tracing::info!("no session hears this"));
/// ```
///
/// [`ServerBuilder::log_queue`]: crate::ServerBuilder::log_queue
#[derive(Clone)]
pub struct McpLogLayer {
    server: Weak<ServerInner>,
}

impl fmt::Debug for McpLogLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpLogLayer").finish_non_exhaustive()
    }
}

impl Server {
    /// A `tracing` layer forwarding events to this server's sessions; see [`McpLogLayer`].
    /// The layer does not keep the server alive.
    pub fn tracing_layer(&self) -> McpLogLayer {
        McpLogLayer {
            server: self.downgrade(),
        }
    }
}

fn level(level: &Level) -> LoggingLevel {
    match *level {
        Level::ERROR => LoggingLevel::Error,
        Level::WARN => LoggingLevel::Warning,
        Level::INFO => LoggingLevel::Info,
        _ => LoggingLevel::Debug,
    }
}

struct Fields(JsonObject);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0
            .insert(field.name().to_owned(), Value::String(format!("{value:?}")));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.into());
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_owned(), value.into());
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), value.into());
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.insert(field.name().to_owned(), value.into());
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().to_owned(), value.into());
    }
}

impl<S: Subscriber> Layer<S> for McpLogLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: LayerContext<'_, S>) {
        let meta = event.metadata();
        let target = meta.target();
        if target.starts_with("mcp_server") || target.starts_with("mcp_jsonrpc") {
            return;
        }
        let Some(server) = self.server.upgrade() else {
            return;
        };
        let level = level(meta.level());
        let Ok(sessions) = server.sessions.lock() else {
            return;
        };
        let mut listeners = sessions.values().filter(|s| s.wants_log(level)).peekable();
        if listeners.peek().is_none() {
            return;
        }
        let mut fields = Fields(JsonObject::new());
        event.record(&mut fields);
        let mut params = LoggingMessageNotificationParams::new(level, Value::Object(fields.0));
        params.logger = Some(target.to_owned());
        for session in listeners {
            session.push_log(params.clone());
        }
    }
}
