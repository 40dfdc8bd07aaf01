//! The HTTP client's SSE parsing: the body is cut into chunks (the first byte sets their size)
//! and fed through the client's path; it must not panic, and the messages must not depend on
//! where the chunks are cut.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_transport_http::client::fuzz_sse;

fuzz_target!(|data: &[u8]| {
    let Some((first, body)) = data.split_first() else {
        return;
    };
    let size = usize::from(*first % 16) + 1;
    let chunked = body.chunks(size).map(<[u8]>::to_vec).collect();
    let chunked = futures::executor::block_on(fuzz_sse(chunked));
    let whole = futures::executor::block_on(fuzz_sse(vec![body.to_vec()]));
    assert_eq!(format!("{chunked:?}"), format!("{whole:?}"));
});
