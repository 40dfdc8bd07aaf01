//! The OAuth client's parser of `WWW-Authenticate` challenges. Never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(value) = std::str::from_utf8(data) {
        mcp_auth::fuzzing::www_authenticate(value);
    }
});
