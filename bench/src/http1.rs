//! The raw HTTP/1 accept loop the floor and rmcp's echo server share: bind, print the bound
//! address as stdout's first line, then one hyper HTTP/1 connection per accepted socket
//! (TCP_NODELAY, keep-alive), each on its own task.

use std::error::Error as StdError;
use std::io::Write as _;

use anyhow::Result;
use hyper::body::{Body, Incoming};
use hyper::service::Service;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;

/// Serves `service` on `addr` until the process is killed.
pub async fn serve<S, B>(addr: &str, service: S) -> Result<()>
where
    S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn StdError + Send + Sync>>,
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", listener.local_addr()?)?;
    stdout.flush()?;
    drop(stdout);
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = service.clone();
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
