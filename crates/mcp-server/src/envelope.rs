//! The 2026-07-28 result envelope: every result names its `resultType`, says who the server is
//! in `_meta` (`io.modelcontextprotocol/serverInfo`), and discover, list and read results carry
//! cache hints. Results of earlier revisions are left as they are.

use mcp_types::{
    CacheScope, CallToolResult, CompleteResult, ContentBlock, GetPromptResult, JsonObject, Meta,
    ReadResourceResult, ResourceContents, ResultType, SERVER_INFO_META_KEY,
};
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::cache::CacheHints;

/// A typed result that takes the envelope.
pub(crate) trait Enveloped {
    fn parts(&mut self) -> (&mut Option<ResultType>, &mut Option<Meta>);

    /// About how many bytes its texts and data take serialized (a little more for each
    /// block's other members): what its serialization's buffer starts with. None for a
    /// result that holds no content.
    fn content_len(&self) -> usize {
        0
    }
}

macro_rules! enveloped {
    ($($t:ty => |$r:ident| $len:expr),* $(,)?) => {$(
        impl Enveloped for $t {
            fn parts(&mut self) -> (&mut Option<ResultType>, &mut Option<Meta>) {
                (&mut self.result_type, &mut self.meta)
            }

            fn content_len(&self) -> usize {
                let $r = self;
                $len
            }
        }
    )*};
}

enveloped!(
    CallToolResult => |r| r.content.iter().map(block_len).sum(),
    GetPromptResult => |r| r.messages.iter().map(|m| block_len(&m.content)).sum(),
    ReadResourceResult => |r| r.contents.iter().map(contents_len).sum(),
);

impl Enveloped for CompleteResult {
    fn parts(&mut self) -> (&mut Option<ResultType>, &mut Option<Meta>) {
        (&mut self.result_type, &mut self.meta)
    }
}

/// Per block, besides its text or data.
const BLOCK_OVERHEAD: usize = 128;

fn block_len(block: &ContentBlock) -> usize {
    BLOCK_OVERHEAD
        + match block {
            ContentBlock::Text(t) => t.text.len(),
            ContentBlock::Image(i) => i.data.len(),
            ContentBlock::Audio(a) => a.data.len(),
            ContentBlock::Resource(r) => contents_len(&r.resource),
            _ => 0,
        }
}

fn contents_len(contents: &ResourceContents) -> usize {
    BLOCK_OVERHEAD
        + match contents {
            ResourceContents::Text(t) => t.text.len(),
            ResourceContents::Blob(b) => b.blob.len(),
            _ => 0,
        }
}

/// Marks `result` complete and names the server in its `_meta`.
pub(crate) fn stamp<T: Enveloped>(result: &mut T, server_info: &Value) {
    let (result_type, meta) = result.parts();
    *result_type = Some(ResultType::Complete);
    meta.get_or_insert_with(Meta::new)
        .insert(SERVER_INFO_META_KEY.to_owned(), server_info.clone());
}

/// `result` in the envelope, to serialize. When its handler set neither `resultType` nor
/// `_meta` (the common case), the two members are written after its own, `serverInfo` as
/// `server_info_json` has it, serialized once: [`stamp`] would copy it into the result's
/// `_meta` first (seven allocations per 2026-07-28 result, callgrind). Otherwise the result
/// is stamped in place.
pub(crate) fn stamped<'a, T: Enveloped>(
    result: &'a mut T,
    server_info: &Value,
    server_info_json: &'a RawValue,
) -> Stamped<'a, T> {
    let (result_type, meta) = result.parts();
    if result_type.is_some() || meta.is_some() {
        stamp(result, server_info);
        return Stamped::InPlace(result);
    }
    Stamped::Appended(Appended {
        result,
        result_type: ResultType::Complete,
        meta: ServerInfoMeta {
            server_info: server_info_json,
        },
    })
}

/// A result in the envelope (see [`stamped`]).
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum Stamped<'a, T> {
    /// Stamped in place.
    InPlace(&'a T),
    /// The envelope's members after the result's own.
    Appended(Appended<'a, T>),
}

#[derive(Serialize)]
pub(crate) struct Appended<'a, T> {
    #[serde(flatten)]
    result: &'a T,
    #[serde(rename = "resultType")]
    result_type: ResultType,
    #[serde(rename = "_meta")]
    meta: ServerInfoMeta<'a>,
}

/// `_meta` naming the server only.
#[derive(Serialize)]
struct ServerInfoMeta<'a> {
    // `SERVER_INFO_META_KEY` (a test checks that they agree).
    #[serde(rename = "io.modelcontextprotocol/serverInfo")]
    server_info: &'a RawValue,
}

/// The same for a result given as a JSON object (a custom method's): `resultType` is added
/// unless the handler set one.
pub(crate) fn stamp_object(result: &mut JsonObject, server_info: &Value) {
    result
        .entry("resultType")
        .or_insert_with(|| Value::String("complete".to_owned()));
    let meta = result
        .entry("_meta")
        .or_insert_with(|| Value::Object(JsonObject::new()));
    if let Value::Object(meta) = meta {
        meta.entry(SERVER_INFO_META_KEY)
            .or_insert_with(|| server_info.clone());
    }
}

/// The members a list page ends with, each after a comma: `resultType`, the cache hints and
/// `_meta`.
pub(crate) fn list_trailer(hints: CacheHints, server_info: &Value) -> String {
    let scope = match hints.scope {
        CacheScope::Public => "public",
        // Private is the safe reading of a scope this code does not know.
        _ => "private",
    };
    format!(
        r#","resultType":"complete","ttlMs":{},"cacheScope":"{scope}","_meta":{{"{SERVER_INFO_META_KEY}":{server_info}}}"#,
        hints.ttl_ms()
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn trailers_and_stamps() {
        let info = serde_json::json!({"name": "s", "version": "1"});
        let trailer = list_trailer(CacheHints::public(Duration::from_secs(300)), &info);
        let page: Value = serde_json::from_str(&format!(r#"{{"tools":[]{trailer}}}"#)).unwrap();
        assert_eq!(
            page,
            serde_json::json!({"tools": [], "resultType": "complete", "ttlMs": 300000,
                "cacheScope": "public", "_meta": {"io.modelcontextprotocol/serverInfo": info}})
        );
        let mut call = CallToolResult::text("x");
        stamp(&mut call, &info);
        let v = serde_json::to_value(&call).unwrap();
        assert_eq!(v["resultType"], "complete");
        assert_eq!(v["_meta"][SERVER_INFO_META_KEY]["name"], "s");
        let info_json = serde_json::value::to_raw_value(&info).unwrap();
        // Written after the result's own members, the same envelope; a result whose handler
        // set `_meta` keeps it, with the server named beside it.
        let mut call = CallToolResult::text("x");
        let written = serde_json::to_value(stamped(&mut call, &info, &info_json)).unwrap();
        assert_eq!(written, v);
        let mut own = CallToolResult::text("x");
        own.meta = Some(Meta::from_iter([("k".to_owned(), Value::from(1))]));
        let written = serde_json::to_value(stamped(&mut own, &info, &info_json)).unwrap();
        assert_eq!(written["_meta"]["k"], 1);
        assert_eq!(written["_meta"][SERVER_INFO_META_KEY]["name"], "s");
        assert_eq!(written["resultType"], "complete");
        let mut custom = JsonObject::new();
        custom.insert("resultType".into(), "custom".into());
        stamp_object(&mut custom, &info);
        assert_eq!(custom["resultType"], "custom");
    }

    #[test]
    fn large_results_serialize_as_small_ones_do_into_a_buffer_sized_up_front() {
        use crate::service::McpResponse;
        // Escapes make the text longer than its length: the buffer then grows as usual.
        for text in [
            "plain".repeat(30_000),
            "\"q\"\n".repeat(40_000),
            "é".repeat(5),
        ] {
            let mut call = CallToolResult::text(text.clone());
            stamp(&mut call, &serde_json::json!({"name": "s"}));
            assert!(call.content_len() >= text.len());
            let sized = McpResponse::sized(&call, call.content_len()).unwrap();
            let plain = McpResponse::new(&call).unwrap();
            assert_eq!(sized.raw().get(), plain.raw().get());
        }
        let read = ReadResourceResult::new(vec![ResourceContents::Text(
            mcp_types::TextResourceContents::new("file:///a", "x".repeat(70_000)),
        )]);
        assert!(read.content_len() >= 70_000);
        assert_eq!(CompleteResult::default().content_len(), 0);
    }
}
