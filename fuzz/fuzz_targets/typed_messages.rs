//! Every typed message of `mcp-types`: the input, read as a JSON-RPC message, is typed by its
//! method (requests, notifications) or, for a result, by every method; read as bare JSON, it
//! is tried as the params and the result of every method. Whatever decodes must encode and
//! decode to an equal value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_jsonrpc::{Message, Response};
use mcp_types::{
    ClientNotification, ClientRequest, ClientResult, ServerNotification, ServerRequest,
    ServerResult,
};
use serde_json::Value;
use serde_json::value::RawValue;

macro_rules! round_trip_method {
    ($ty:ty, $method:expr, $params:expr) => {
        if let Ok(typed) = <$ty>::from_parts($method, $params) {
            let params = typed.params_value().expect("typed params encode");
            let raw = RawValue::from_string(params.to_string()).expect("encoded params are JSON");
            let back = <$ty>::from_parts(typed.method(), Some(&raw))
                .unwrap_or_else(|e| panic!("{} {raw}: {e}", typed.method()));
            assert_eq!(typed, back, "{raw}");
            // The `{method, params}` form too.
            let whole = serde_json::to_string(&typed).expect("typed message encodes");
            let back: $ty = serde_json::from_str(&whole).unwrap_or_else(|e| panic!("{whole}: {e}"));
            assert_eq!(typed, back, "{whole}");
        }
    };
}

macro_rules! round_trip_result {
    ($ty:ty, $method:expr, $raw:expr) => {
        if let Ok(typed) = <$ty>::from_parts($method, $raw) {
            let json = serde_json::to_string(&typed).expect("typed result encodes");
            let raw = RawValue::from_string(json).expect("encoded result is JSON");
            let back = <$ty>::from_parts($method, &raw)
                .unwrap_or_else(|e| panic!("{} {raw}: {e}", $method));
            assert_eq!(typed, back, "{raw}");
        }
    };
}

fn methods() -> impl Iterator<Item = &'static str> {
    ClientRequest::METHODS
        .iter()
        .chain(ServerRequest::METHODS)
        .chain(ClientNotification::METHODS)
        .chain(ServerNotification::METHODS)
        .copied()
}

fn all(params: Option<&RawValue>) {
    for method in methods() {
        round_trip_method!(ClientRequest, method, params);
        round_trip_method!(ServerRequest, method, params);
        round_trip_method!(ClientNotification, method, params);
        round_trip_method!(ServerNotification, method, params);
        if let Some(raw) = params {
            round_trip_result!(ServerResult, method, raw);
            round_trip_result!(ClientResult, method, raw);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    match Message::decode(data) {
        Message::Request(r) => {
            round_trip_method!(ClientRequest, &r.method, r.params.as_deref());
            round_trip_method!(ServerRequest, &r.method, r.params.as_deref());
        }
        Message::Notification(n) => {
            round_trip_method!(ClientNotification, &n.method, n.params.as_deref());
            round_trip_method!(ServerNotification, &n.method, n.params.as_deref());
        }
        Message::Response(Response {
            result: Ok(raw), ..
        }) => all(Some(&raw)),
        _ => {}
    }
    // Bare params or a bare result (most of the spec's examples).
    if serde_json::from_slice::<Value>(data).is_ok() {
        let text = String::from_utf8_lossy(data).into_owned();
        if let Ok(raw) = RawValue::from_string(text) {
            all(Some(&raw));
        }
    } else {
        all(None);
    }
});
