//! The fixed values and JSON helpers the sample builders share: the ids, media and resource
//! contents several protocol areas reuse, and the small functions that turn typed values into
//! JSON (`to_json`, `object`, `meta_entry`) and add the 2026-07-28 per-request `_meta`.

use mcp_types::{BlobResourceContents, JsonObject, Meta, TextResourceContents};
use serde::Serialize;
use serde_json::{Value, json};

/// The id of the `subscriptions/listen` request that 2026-07-28 notifications belong to.
pub(super) const LISTEN_ID: &str = "listen-1";

/// A 1x1 PNG, base64.
pub(super) const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

/// A few bytes of WAV, base64.
pub(super) const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

/// The text contents of a source file.
pub(super) fn text_contents() -> TextResourceContents {
    {
        let mut built = TextResourceContents::new("file:///project/src/main.rs", "fn main() {}\n");
        built.mime_type = Some("text/x-rust".to_owned());
        built
    }
}

/// The binary contents of an image.
pub(super) fn blob_contents() -> BlobResourceContents {
    {
        let mut built = BlobResourceContents::new("file:///project/logo.png", PNG);
        built.mime_type = Some("image/png".to_owned());
        built
    }
}

/// The weather the weather tool reports, as `structuredContent`.
pub(super) fn weather() -> Value {
    json!({"temperature": 22.5, "conditions": "Sunny"})
}

/// Serializes `value`; a value that does not serialize becomes a string saying so, which then
/// fails validation with the reason in the report.
pub(super) fn to_json(value: &impl Serialize) -> Value {
    serde_json::to_value(value)
        .unwrap_or_else(|e| Value::String(format!("the sample does not serialize: {e}")))
}

/// The members of a JSON object literal (empty if `v` is not an object).
pub(super) fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(members) => members,
        _ => JsonObject::new(),
    }
}

/// A `_meta` with one entry.
pub(super) fn meta_entry(key: &str, value: Value) -> Meta {
    let mut meta = Meta::new();
    meta.insert(key.to_owned(), value);
    meta
}

/// Merges `meta` into the `_meta` of a serialized request's params, keeping what is there
/// (e.g. a `progressToken`). This is the per-request envelope the protocol layer adds on
/// 2026-07-28, whatever the params type.
pub(super) fn add_request_meta(request: &mut Value, meta: Meta) {
    let Some(request) = request.as_object_mut() else {
        return;
    };
    let params = request
        .entry("params")
        .or_insert_with(|| Value::Object(JsonObject::new()));
    if let Some(params) = params.as_object_mut() {
        let existing = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Meta::new()));
        if let Some(existing) = existing.as_object_mut() {
            existing.extend(meta);
        }
    }
}
