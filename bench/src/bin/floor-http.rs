//! The HTTP floor: a raw hyper 1 HTTP/1.1 server (keep-alive, TCP_NODELAY, the multi-thread
//! runtime) answering each POST body with `mcp_bench::floor`'s JSON-RPC echo as
//! `application/json` (202 with no body for a notification). No sessions, no header checks.
//! It takes the servers' command line (`--http ADDR`; `--stateful`/`--stateless` are
//! accepted and ignored) and prints the bound address as its first stdout line.

use std::convert::Infallible;
use std::sync::Arc;

use anyhow::{Result, bail};
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use mcp_bench::args::{Mode, ServerArgs};
use mcp_bench::floor::Floor;

/// The largest body the floor reads (like the SDKs' limits).
const MAX_BODY: usize = 4 << 20;

fn main() -> Result<()> {
    let args = ServerArgs::parse(std::env::args().skip(1))?;
    let Mode::Http { addr, .. } = args.mode else {
        bail!("floor-http serves --http only");
    };
    if args.redis.is_some() {
        bail!("floor-http has no stores (--redis is echo-ours only)");
    }
    if args.otel {
        bail!("--otel is echo-ours only");
    }
    let floor = Arc::new(Floor::new(args.tools));
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(serve(floor, &addr))
}

async fn serve(floor: Arc<Floor>, addr: &str) -> Result<()> {
    let service = service_fn(move |request| answer(floor.clone(), request));
    mcp_bench::http1::serve(addr, service).await
}

async fn answer(
    floor: Arc<Floor>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = http_body_util::Limited::new(request.into_body(), MAX_BODY);
    let Ok(body) = body.collect().await else {
        return Ok(status(StatusCode::BAD_REQUEST));
    };
    let mut out = Vec::new();
    if !floor.answer(&body.to_bytes(), &mut out) {
        return Ok(status(StatusCode::ACCEPTED));
    }
    let mut response = Response::new(Full::new(Bytes::from(out)));
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    Ok(response)
}

fn status(code: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = code;
    response
}
