//! The resource server's reading of what a client presents: `Authorization` header values
//! (one per input line), a JWT access token's header checks, and a whole DPoP proof check.
//! Never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let values: Vec<&[u8]> = data.split(|b| *b == b'\n').collect();
    mcp_auth::fuzzing::authorization(&values);
    if let Ok(text) = std::str::from_utf8(data) {
        mcp_auth::fuzzing::jwt_header(text);
        mcp_auth::fuzzing::dpop_proof(text);
    }
});
