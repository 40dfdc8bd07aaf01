//! [`Redis`]: the shared connection every store uses, and the [`Driver`] future that keeps it
//! (and the event bus's subscriber connection and this instance's liveness key) going.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::task::{Context, Poll};

use futures::future::BoxFuture;
use mcp_server::events::{Received, ServerEvent};
use redis::aio::MultiplexedConnection;
use redis::{AsyncConnectionConfig, ConnectionAddr, ConnectionInfo, IntoConnectionInfo, PushInfo};
use tokio::sync::{broadcast, mpsc};

use crate::error::{Error, Result};
use crate::options::{RedisOptions, millis};

/// A connection to Redis shared by the stores made from it (cheap to clone).
///
/// Made by [`Redis::connect`], together with the [`Driver`] the application runs.
#[derive(Clone)]
pub struct Redis {
    pub(crate) shared: Arc<Shared>,
    pub(crate) prefix: Arc<str>,
}

pub(crate) struct Shared {
    pub(crate) options: RedisOptions,
    /// The command connection, `None` while the driver reconnects (or has stopped).
    conn: Arc<RwLock<Option<MultiplexedConnection>>>,
    /// Random, from the OS: names this instance's liveness key and its tasks.
    pub(crate) instance_id: String,
    /// The key prefix given at connect time (bus channel and liveness keys use it).
    pub(crate) base_prefix: String,
    /// Events waiting for the driver to publish them.
    pub(crate) publish: mpsc::Sender<String>,
    /// Local subscribers of the bus.
    pub(crate) local: broadcast::Sender<Received>,
    /// Events `publish` could not queue, or the driver could not send.
    pub(crate) dropped: Arc<AtomicU64>,
}

impl fmt::Debug for Redis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redis")
            .field("prefix", &self.prefix)
            .field("instance_id", &self.shared.instance_id)
            .field("connected", &self.is_connected())
            .finish()
    }
}

/// The future that keeps a [`Redis`] connected: it runs the command connection and the event
/// bus's subscriber connection, publishes queued events, refreshes this instance's liveness
/// key, and reconnects with backoff when Redis goes away. Spawn it once
/// (`tokio::spawn(driver)`); it ends when every [`Redis`] and store made from it is dropped.
/// Dropping it disconnects (operations then fail with [`Error::NotConnected`]).
pub struct Driver {
    future: BoxFuture<'static, ()>,
}

impl fmt::Debug for Driver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Driver")
    }
}

impl Future for Driver {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.future.as_mut().poll(cx)
    }
}

impl Redis {
    /// Connects to the Redis at `url` (`redis://[user:password@]host:port[/db]` or
    /// `redis+unix:///path`), subscribes to the event bus's channel and sets this instance's
    /// liveness key. Returns the handle and the [`Driver`] the application must run.
    ///
    /// Fails if Redis cannot be reached within
    /// [`connect_timeout`](RedisOptions::connect_timeout) (the driver then does not exist;
    /// call again to retry).
    pub async fn connect(url: &str, options: RedisOptions) -> Result<(Redis, Driver)> {
        let info = url.into_connection_info()?;
        let mut id = [0u8; 16];
        getrandom::fill(&mut id)
            .map_err(|e| Error::Unsupported(format!("no OS random numbers: {e}")))?;
        let instance_id: String = id.iter().map(|b| format!("{b:02x}")).collect();
        let (publish, publish_rx) = mpsc::channel(options.publish_queue);
        let local = broadcast::channel(options.bus_capacity).0;
        let prefix: Arc<str> = options.prefix.as_str().into();
        let link = Link {
            info,
            options: options.clone(),
            channel: format!("{}events", options.prefix),
            instance_key: format!("{}instance:{instance_id}", options.prefix),
            conn: Arc::default(),
            local: local.clone(),
            dropped: Arc::default(),
        };
        let session = link.open().await?;
        // Usable at once: commands queue until the application polls the driver.
        link.set_conn(Some(session.cmd.clone()));
        let shared = Arc::new(Shared {
            conn: link.conn.clone(),
            dropped: link.dropped.clone(),
            base_prefix: options.prefix.clone(),
            options,
            instance_id,
            publish,
            local,
        });
        let driver = Driver {
            future: Box::pin(link.run(session, publish_rx)),
        };
        Ok((Redis { shared, prefix }, driver))
    }

    /// The same connection with another key prefix (the stores made from it keep their keys
    /// under `prefix`; the event bus and the liveness key keep the connect-time prefix).
    #[must_use]
    pub fn with_prefix(&self, prefix: impl Into<String>) -> Redis {
        Redis {
            shared: self.shared.clone(),
            prefix: prefix.into().into(),
        }
    }

    /// This instance's id (hex, 128 random bits): the tasks it creates record it.
    pub fn instance_id(&self) -> &str {
        &self.shared.instance_id
    }

    /// Whether the command connection is up right now.
    pub fn is_connected(&self) -> bool {
        self.shared
            .conn
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    pub(crate) fn options(&self) -> &RedisOptions {
        &self.shared.options
    }

    /// A handle on the command connection, or [`Error::NotConnected`].
    pub(crate) fn conn(&self) -> Result<MultiplexedConnection> {
        let slot = self
            .shared
            .conn
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        slot.clone().ok_or(Error::NotConnected)
    }

    /// `prefix` + `parts`.
    pub(crate) fn key(&self, parts: &[&str]) -> String {
        let mut key = String::from(&*self.prefix);
        for part in parts {
            key.push_str(part);
        }
        key
    }

    /// The liveness key of `instance`.
    pub(crate) fn instance_key(&self, instance: &str) -> String {
        format!("{}instance:{instance}", self.shared.base_prefix)
    }
}

/// Where a subscriber connection hands its pub/sub messages.
type PushSink = Box<dyn Fn(PushInfo) -> std::result::Result<(), ()> + Send + Sync>;

/// What the driver owns: how to connect, and where to put the connection.
struct Link {
    info: ConnectionInfo,
    options: RedisOptions,
    channel: String,
    instance_key: String,
    conn: Arc<RwLock<Option<MultiplexedConnection>>>,
    local: broadcast::Sender<Received>,
    dropped: Arc<AtomicU64>,
}

/// One pair of live connections and the futures that run them.
struct Session {
    cmd: MultiplexedConnection,
    cmd_io: BoxFuture<'static, ()>,
    /// Kept so that the subscriber connection stays open.
    _sub: MultiplexedConnection,
    sub_io: BoxFuture<'static, ()>,
}

/// Why [`Link::serve`] returned.
enum Ended {
    /// Every handle is gone: the driver is done.
    Closed,
    /// The connection broke: reconnect.
    Lost,
}

impl Link {
    /// Opens the command and subscriber connections, subscribes and sets the liveness key.
    async fn open(&self) -> Result<Session> {
        let timeout = self.options.connect_timeout;
        let (cmd, cmd_io) = self.dial(None).await?;
        let local = self.local.clone();
        let channel = self.channel.clone();
        let push = move |info: PushInfo| -> std::result::Result<(), ()> {
            deliver(&local, &channel, info);
            Ok(())
        };
        let (mut sub, sub_io) = self.dial(Some(Box::new(push))).await?;
        let mut session = Session {
            cmd,
            cmd_io,
            _sub: sub.clone(),
            sub_io,
        };
        let mut cmd = session.cmd.clone();
        let setup = async {
            sub.subscribe(&self.channel).await?;
            self.refresh_instance(&mut cmd).await
        };
        // The connections' IO runs only while their futures are polled: poll them alongside.
        let setup = async {
            tokio::select! {
                r = setup => r,
                () = &mut session.cmd_io => Err(Error::NotConnected),
                () = &mut session.sub_io => Err(Error::NotConnected),
            }
        };
        tokio::time::timeout(timeout, setup)
            .await
            .map_err(|_| Error::ConnectTimeout(timeout))??;
        Ok(session)
    }

    /// One connection; with `push`, RESP3 with pushes (pub/sub messages) sent there.
    async fn dial(
        &self,
        push: Option<PushSink>,
    ) -> Result<(MultiplexedConnection, BoxFuture<'static, ()>)> {
        let timeout = self.options.connect_timeout;
        let mut settings = self.info.redis_settings().clone();
        let mut config = AsyncConnectionConfig::new()
            .set_response_timeout(Some(self.options.response_timeout))
            .set_connection_timeout(Some(timeout));
        if let Some(push) = push {
            settings = settings.set_protocol(redis::ProtocolVersion::RESP3);
            config = config.set_push_sender(push);
        }
        let connect = async {
            match self.info.addr() {
                ConnectionAddr::Tcp(host, port) => {
                    let stream = tokio::net::TcpStream::connect((host.as_str(), *port))
                        .await
                        .map_err(redis::RedisError::from)?;
                    stream.set_nodelay(true).map_err(redis::RedisError::from)?;
                    let (conn, io) =
                        MultiplexedConnection::new_with_config(&settings, stream, config).await?;
                    Ok((conn, Box::pin(io) as BoxFuture<'static, ()>))
                }
                #[cfg(unix)]
                ConnectionAddr::Unix(path) => {
                    let stream = tokio::net::UnixStream::connect(path)
                        .await
                        .map_err(redis::RedisError::from)?;
                    let (conn, io) =
                        MultiplexedConnection::new_with_config(&settings, stream, config).await?;
                    Ok((conn, Box::pin(io) as BoxFuture<'static, ()>))
                }
                other => Err(Error::Unsupported(format!(
                    "{other} (TLS is not enabled in mcp-redis)"
                ))),
            }
        };
        tokio::time::timeout(timeout, connect)
            .await
            .map_err(|_| Error::ConnectTimeout(timeout))?
    }

    async fn refresh_instance(&self, conn: &mut MultiplexedConnection) -> Result<()> {
        redis::cmd("SET")
            .arg(&self.instance_key)
            .arg(1)
            .arg("PX")
            .arg(millis(self.options.instance_ttl))
            .query_async::<()>(conn)
            .await?;
        Ok(())
    }

    fn set_conn(&self, conn: Option<MultiplexedConnection>) {
        *self.conn.write().unwrap_or_else(PoisonError::into_inner) = conn;
    }

    /// The driver: serve a session; when it breaks, reconnect with backoff.
    async fn run(self, first: Session, mut publish: mpsc::Receiver<String>) {
        let mut session = Some(first);
        let mut backoff = self.options.reconnect_min;
        loop {
            if let Some(live) = session.take() {
                self.set_conn(Some(live.cmd.clone()));
                let ended = self.serve(live, &mut publish).await;
                self.set_conn(None);
                match ended {
                    Ended::Closed => return,
                    Ended::Lost => {
                        tracing::warn!("lost the connection to redis; reconnecting");
                        backoff = self.options.reconnect_min;
                    }
                }
            }
            if publish.is_closed() {
                return;
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(self.options.reconnect_max);
            match self.open().await {
                Ok(live) => {
                    tracing::info!("reconnected to redis");
                    // Anything published while the subscriber was away was missed.
                    let _ = self.local.send(Received::Lagged);
                    session = Some(live);
                }
                Err(e) => tracing::warn!(error = %e, "cannot reconnect to redis"),
            }
        }
    }

    async fn serve(&self, session: Session, publish: &mut mpsc::Receiver<String>) -> Ended {
        let Session {
            cmd,
            mut cmd_io,
            _sub,
            mut sub_io,
        } = session;
        let heartbeat = async {
            let mut conn = cmd.clone();
            let every = self.options.instance_ttl / 3;
            loop {
                tokio::time::sleep(every).await;
                if let Err(e) = self.refresh_instance(&mut conn).await {
                    tracing::warn!(error = %e, "cannot refresh this instance's liveness key");
                    return;
                }
            }
        };
        let pump = async {
            let mut conn = cmd.clone();
            while let Some(event) = publish.recv().await {
                let sent = redis::cmd("PUBLISH")
                    .arg(&self.channel)
                    .arg(&event)
                    .query_async::<()>(&mut conn)
                    .await;
                if let Err(e) = sent {
                    self.dropped.fetch_add(1, Ordering::Relaxed);
                    tracing::warn!(error = %e, "an event could not be published; dropped");
                    if e.is_unrecoverable_error() || e.is_timeout() {
                        return Ended::Lost;
                    }
                }
            }
            Ended::Closed
        };
        tokio::select! {
            ended = pump => ended,
            () = heartbeat => Ended::Lost,
            () = &mut cmd_io => Ended::Lost,
            () = &mut sub_io => Ended::Lost,
        }
    }
}

/// Hands a pub/sub message of `channel` to the local subscribers.
fn deliver(local: &broadcast::Sender<Received>, channel: &str, info: PushInfo) {
    let Some(msg) = redis::Msg::from_push_info(info) else {
        return;
    };
    if msg.get_channel_name() != channel {
        return;
    }
    match serde_json::from_slice::<ServerEvent>(msg.get_payload_bytes()) {
        // No local subscriber is not an error.
        Ok(event) => drop(local.send(Received::Event(event))),
        Err(e) => tracing::warn!(error = %e, "ignored a malformed event on the bus channel"),
    }
}
