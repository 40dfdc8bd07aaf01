//! The OTLP/HTTP sink of the OpenTelemetry scenario: a raw hyper HTTP/1.1 server that reads
//! each POST body (an OTLP export, not decoded) and answers 200 with an empty protobuf
//! response, so that `echo-ours --otel` exports as it would to a collector without a
//! collector's CPU in the run. It takes the servers' command line (`--http ADDR`) and prints
//! the bound address as its first stdout line.

use std::convert::Infallible;

use anyhow::{Result, bail};
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use mcp_bench::args::{Mode, ServerArgs};

fn main() -> Result<()> {
    let args = ServerArgs::parse(std::env::args().skip(1))?;
    let Mode::Http { addr, .. } = args.mode else {
        bail!("otlp-sink serves --http only");
    };
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(mcp_bench::http1::serve(&addr, service_fn(answer)))
}

async fn answer(request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let status = match request.into_body().collect().await {
        Ok(_) => StatusCode::OK,
        Err(_) => StatusCode::BAD_REQUEST,
    };
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/x-protobuf"),
    );
    Ok(response)
}
