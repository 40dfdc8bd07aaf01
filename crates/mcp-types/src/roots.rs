//! Roots: the directories and files a client lets a server work on.

use serde::{Deserialize, Serialize};

use crate::{EmptyParams, JsonObject, Meta, Notification, Request, ResultType, TypedNotification};

/// Marker for `roots/list` (server to client; all revisions). In 2026-07-28 it is sent as an
/// [`crate::InputRequest`] inside an [`crate::InputRequiredResult`].
#[derive(Debug)]
pub enum ListRoots {}

impl Request for ListRoots {
    const METHOD: &'static str = "roots/list";
    type Params = EmptyParams;
    type Result = ListRootsResult;
}

/// Marker for `notifications/roots/list_changed` (client to server; up to 2025-11-25, removed in
/// 2026-07-28).
#[derive(Debug)]
pub enum RootsListChanged {}

impl Notification for RootsListChanged {
    const METHOD: &'static str = "notifications/roots/list_changed";
    type Params = EmptyParams;
}

/// A whole `roots/list` request: a JSON-RPC request up to 2025-11-25, a bare `{method, params}`
/// input request on 2026-07-28.
pub type ListRootsRequest = crate::TypedInputRequest<ListRoots>;

/// A whole `notifications/roots/list_changed` notification (up to 2025-11-25).
pub type RootsListChangedNotification = TypedNotification<RootsListChanged>;

/// A directory or file the server may operate on (all revisions).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Root {
    /// The root's URI; must start with `file://` in every revision so far.
    pub uri: String,
    /// A human-readable name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Metadata attached to the root (2025-06-18 and later).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl Root {
    /// A root with the given URI and no name.
    pub fn new(uri: impl Into<String>) -> Self {
        Root {
            uri: uri.into(),
            ..Default::default()
        }
    }

    /// Sets the name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// The client's answer to `roots/list` (all revisions).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// `resultType` (not sent by any revision so far for this result; kept if present).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Metadata attached to the result (up to 2025-11-25).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl ListRootsResult {
    /// A result listing `roots`.
    pub fn new(roots: Vec<Root>) -> Self {
        ListRootsResult {
            roots,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::result::test_util::{decode_err, round_trip};

    #[test]
    fn examples_2026() {
        let r: Root =
            round_trip(r#"{"uri":"file:///home/user/projects/myproject","name":"My Project"}"#);
        assert_eq!(
            r,
            Root::new("file:///home/user/projects/myproject").with_name("My Project")
        );
        let list: ListRootsResult = round_trip(
            r#"{"roots":[{"uri":"file:///home/user/repos/frontend","name":"Frontend Repository"},
                         {"uri":"file:///home/user/repos/backend","name":"Backend Repository"}]}"#,
        );
        assert_eq!(list.roots.len(), 2);
        let req: ListRootsRequest =
            round_trip(r#"{"id":"list-roots-example","method":"roots/list"}"#);
        assert_eq!(req.id, Some(crate::RequestId::from("list-roots-example")));
        assert!(req.jsonrpc.is_none());
    }

    #[test]
    fn older_shapes_and_meta() {
        let req: ListRootsRequest = round_trip(
            r#"{"jsonrpc":"2.0","id":7,"method":"roots/list","params":{"_meta":{"progressToken":1}}}"#,
        );
        assert!(req.params.meta.is_some());
        round_trip::<ListRootsResult>(
            r#"{"roots":[{"uri":"file:///a","_meta":{"k":1},"x":2}],"_meta":{"m":true},"y":3}"#,
        );
        round_trip::<RootsListChangedNotification>(
            r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#,
        );
        decode_err::<ListRootsRequest>(r#"{"method":"tools/list"}"#);
        decode_err::<ListRootsResult>(r#"{}"#);
    }
}
