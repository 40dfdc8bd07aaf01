//! The JSON-RPC envelope: `Message::decode` never panics, and a message it accepts re-encodes
//! to JSON that decodes to the same message (compared by its encoding).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_jsonrpc::Message;

fn has_invalid(msg: &Message) -> bool {
    match msg {
        Message::Invalid(_) => true,
        Message::Batch(items) => items.iter().any(has_invalid),
        _ => false,
    }
}

fuzz_target!(|data: &[u8]| {
    let msg = Message::decode(data);
    let limited = Message::decode_limited(data, 256);
    if data.len() <= 256 {
        assert_eq!(format!("{msg:?}"), format!("{limited:?}"));
    }
    let _ = msg.size_hint();
    if has_invalid(&msg) {
        // Not sendable: encoding refuses it rather than panicking.
        assert!(msg.to_json().is_err());
        return;
    }
    let json = msg.to_json().expect("a decoded message encodes");
    let again = Message::decode(json.as_bytes());
    assert!(!has_invalid(&again), "{json} decodes to {again:?}");
    let json2 = again.to_json().expect("a decoded message encodes");
    assert_eq!(json, json2);
});
