//! A registry of tools, resources, templates or prompts: ordered, keyed, changeable while
//! sessions run, with a cached serialized list.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use base64::Engine as _;
use mcp_types::{ErrorCode, ErrorObject};
use serde_json::value::RawValue;

use crate::server::Paging;

/// What a registry holds.
pub(crate) trait Entry: Send + Sync + 'static {
    /// The unique key: a tool or prompt name, a resource uri, a uri template.
    fn key(&self) -> &str;
    /// The definition as listed (`Tool`, `Resource`, ...), serialized.
    fn definition(&self) -> serde_json::Result<Box<RawValue>>;
    /// The definition as listed to a client that does not take what an extension adds to it
    /// (a tool's MCP Apps `_meta.ui`, for a client without that extension), serialized;
    /// `None` when it is the [`definition`](Self::definition).
    fn plain_definition(&self) -> serde_json::Result<Option<Box<RawValue>>> {
        Ok(None)
    }
}

/// An item of a listing: the item, its serialized definition and its plain one, if any.
type Listed<T> = (Arc<T>, Box<RawValue>, Option<Box<RawValue>>);

/// The items of a registry in order, each with its serialized definitions.
type Listing<T> = Arc<[Listed<T>]>;

pub(crate) struct Registry<T> {
    state: RwLock<State<T>>,
}

struct State<T> {
    items: Vec<Arc<T>>,
    /// Looked up by names a peer sends, on every call: a keyed hash (foldhash's, seeded per
    /// map), cheaper than SipHash (callgrind: the lookup 261 -> 123 instructions per
    /// `tools/call`).
    index: HashMap<String, usize, foldhash::fast::RandomState>,
    /// The items with their serialized definitions, built on the first list after a change.
    cache: Option<Listing<T>>,
}

impl<T: Entry> Registry<T> {
    pub(crate) fn new(items: Vec<T>) -> Self {
        let registry = Registry {
            state: RwLock::new(State {
                items: Vec::new(),
                index: HashMap::default(),
                cache: None,
            }),
        };
        {
            let mut st = registry.state.write().expect("registry lock");
            for item in items {
                st.insert(item);
            }
        }
        registry
    }

    pub(crate) fn get(&self, key: &str) -> Option<Arc<T>> {
        let st = self.state.read().expect("registry lock");
        st.index.get(key).map(|&i| st.items[i].clone())
    }

    pub(crate) fn snapshot(&self) -> Vec<Arc<T>> {
        self.state.read().expect("registry lock").items.clone()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.state.read().expect("registry lock").items.is_empty()
    }

    /// Adds `item`, replacing the one with the same key.
    pub(crate) fn insert(&self, item: T) {
        self.state.write().expect("registry lock").insert(item);
    }

    /// Removes the item with `key`; returns whether there was one.
    pub(crate) fn remove(&self, key: &str) -> bool {
        {
            let mut st = self.state.write().expect("registry lock");
            match st.index.remove(key) {
                Some(i) => {
                    st.items.remove(i);
                    let State { items, index, .. } = &mut *st;
                    for (j, item) in items.iter().enumerate().skip(i) {
                        index.insert(item.key().to_owned(), j);
                    }
                    st.cache = None;
                    true
                }
                None => false,
            }
        }
    }

    fn listing(&self) -> Result<Listing<T>, ErrorObject> {
        if let Some(cache) = &self.state.read().expect("registry lock").cache {
            return Ok(cache.clone());
        }
        let mut st = self.state.write().expect("registry lock");
        if let Some(cache) = &st.cache {
            return Ok(cache.clone());
        }
        let listing = st
            .items
            .iter()
            .map(|item| Ok((item.clone(), item.definition()?, item.plain_definition()?)))
            .collect::<serde_json::Result<Vec<_>>>()
            .map_err(|e| {
                ErrorObject::new(
                    ErrorCode::INTERNAL_ERROR,
                    format!("failed to serialize the list: {e}"),
                )
            })?;
        let listing: Listing<T> = listing.into();
        st.cache = Some(listing.clone());
        Ok(listing)
    }

    /// One page of the list, as the raw result `{"<field>": [...], "nextCursor": ...}`
    /// followed by `trailer` (more members, each after a comma): from the cursor's item, as
    /// many as `paging` allows (at least one). With `visible`, only the items it accepts are
    /// listed (and counted by cursors); with `plain`, items are listed with their plain
    /// definitions where they have one.
    pub(crate) fn page(
        &self,
        field: &str,
        cursor: Option<&str>,
        paging: Paging,
        visible: Option<&dyn Fn(&T) -> bool>,
        plain: bool,
        trailer: &str,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let listing = self.listing()?;
        let shown: Vec<&RawValue> = match visible {
            None => listing.iter().map(|l| definition(l, plain)).collect(),
            Some(visible) => listing
                .iter()
                .filter(|(item, _, _)| visible(item))
                .map(|l| definition(l, plain))
                .collect(),
        };
        let start = match cursor {
            Some(c) => decode_cursor(c)
                .filter(|&n| n <= shown.len())
                .ok_or_else(|| ErrorObject::new(ErrorCode::INVALID_PARAMS, "Invalid cursor"))?,
            None => 0,
        };
        let most = start
            .saturating_add(paging.items.unwrap_or(usize::MAX).max(1))
            .min(shown.len());
        // Items while they fit in `paging.bytes` (each with its comma), and always one.
        let mut end = start;
        let mut bytes = 0usize;
        while end < most {
            bytes = bytes.saturating_add(shown[end].get().len() + 1);
            if bytes > paging.bytes && end > start {
                break;
            }
            end += 1;
        }
        let page = &shown[start..end];
        let mut out = String::with_capacity(64 + trailer.len() + bytes);
        out.push_str("{\"");
        out.push_str(field);
        out.push_str("\":[");
        for (i, d) in page.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(d.get());
        }
        out.push(']');
        if end < shown.len() {
            out.push_str(",\"nextCursor\":\"");
            out.push_str(&encode_cursor(end));
            out.push('"');
        }
        out.push_str(trailer);
        out.push('}');
        RawValue::from_string(out)
            .map_err(|e| ErrorObject::new(ErrorCode::INTERNAL_ERROR, e.to_string()))
    }
}

/// The definition of `listed` to list: its plain one if `plain` and it has one.
fn definition<T>((_, def, plain_def): &Listed<T>, plain: bool) -> &RawValue {
    match plain_def {
        Some(plain_def) if plain => plain_def,
        _ => def,
    }
}

impl<T: Entry> State<T> {
    fn insert(&mut self, item: T) {
        let key = item.key().to_owned();
        let item = Arc::new(item);
        match self.index.get(&key) {
            Some(&i) => self.items[i] = item,
            None => {
                self.index.insert(key, self.items.len());
                self.items.push(item);
            }
        }
        self.cache = None;
    }
}

/// Cursors are opaque to clients: the offset of the next page, base64url-encoded with a tag
/// so that arbitrary strings are rejected.
pub(crate) fn encode_cursor(offset: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("mcp-page:{offset}"))
}

pub(crate) fn decode_cursor(cursor: &str) -> Option<usize> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()?;
    std::str::from_utf8(&bytes)
        .ok()?
        .strip_prefix("mcp-page:")?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Item(&'static str);

    impl Entry for Item {
        fn key(&self) -> &str {
            self.0
        }
        fn definition(&self) -> serde_json::Result<Box<RawValue>> {
            serde_json::value::to_raw_value(self.0)
        }
        // `b` has a plain definition, listed with `plain`.
        fn plain_definition(&self) -> serde_json::Result<Option<Box<RawValue>>> {
            (self.0 == "b")
                .then(|| serde_json::value::to_raw_value("plain b"))
                .transpose()
        }
    }

    /// Pages of at most `n` items, of any size.
    fn items(n: usize) -> Paging {
        Paging {
            items: Some(n),
            bytes: usize::MAX,
        }
    }

    #[test]
    fn pages_end_at_their_byte_budget_and_hold_at_least_one_item() {
        let r = Registry::new(vec![Item("a"), Item("b"), Item("c")]);
        // Each item is `"a"` and its comma: 4 bytes.
        let by_bytes = |bytes| Paging { items: None, bytes };
        let v: serde_json::Value = serde_json::from_str(
            r.page("x", None, by_bytes(8), None, false, "")
                .unwrap()
                .get(),
        )
        .unwrap();
        assert_eq!(v["x"], serde_json::json!(["a", "b"]));
        let next = v["nextCursor"].as_str().unwrap().to_owned();
        let v: serde_json::Value = serde_json::from_str(
            r.page("x", Some(&next), by_bytes(8), None, false, "")
                .unwrap()
                .get(),
        )
        .unwrap();
        assert_eq!(v["x"], serde_json::json!(["c"]));
        assert!(v.get("nextCursor").is_none());
        // A budget smaller than one item still lists one a page.
        let v: serde_json::Value = serde_json::from_str(
            r.page("x", None, by_bytes(1), None, false, "")
                .unwrap()
                .get(),
        )
        .unwrap();
        assert_eq!(v["x"], serde_json::json!(["a"]));
        // The default budget lists a typical server's items on one page.
        let all = Paging {
            items: None,
            bytes: crate::DEFAULT_PAGE_BYTES,
        };
        let v: serde_json::Value =
            serde_json::from_str(r.page("x", None, all, None, false, "").unwrap().get()).unwrap();
        assert_eq!(v["x"], serde_json::json!(["a", "b", "c"]));
    }

    #[test]
    fn pages_replace_and_remove() {
        let r = Registry::new(vec![Item("a"), Item("b"), Item("c")]);
        let p1 = r.page("x", None, items(2), None, false, "").unwrap();
        let v: serde_json::Value = serde_json::from_str(p1.get()).unwrap();
        assert_eq!(v["x"], serde_json::json!(["a", "b"]));
        let next = v["nextCursor"].as_str().unwrap();
        let p2 = r.page("x", Some(next), items(2), None, false, "").unwrap();
        assert_eq!(p2.get(), r#"{"x":["c"]}"#);
        assert!(
            r.page("x", Some("garbage"), items(2), None, false, "")
                .is_err()
        );
        assert!(
            r.page("x", Some(&encode_cursor(9)), items(2), None, false, "")
                .is_err()
        );
        // A filter hides items from the list and from cursor counting.
        let not_b = |i: &Item| i.0 != "b";
        let f1 = r
            .page("x", None, items(1), Some(&not_b), false, "")
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(f1.get()).unwrap();
        assert_eq!(v["x"], serde_json::json!(["a"]));
        let f2 = r
            .page(
                "x",
                v["nextCursor"].as_str(),
                items(1),
                Some(&not_b),
                false,
                "",
            )
            .unwrap();
        assert_eq!(f2.get(), r#"{"x":["c"]}"#);
        let trailed = r
            .page("x", None, items(10), None, false, r#","ttlMs":0"#)
            .unwrap();
        assert!(
            trailed.get().ends_with(r#"],"ttlMs":0}"#),
            "{}",
            trailed.get()
        );
        assert!(r.remove("a"));
        assert!(!r.remove("a"));
        r.insert(Item("b"));
        assert_eq!(
            r.page("x", None, items(10), None, false, "").unwrap().get(),
            r#"{"x":["b","c"]}"#
        );
        assert_eq!(r.get("c").unwrap().0, "c");
    }

    #[test]
    fn plain_lists_the_plain_definitions() {
        let r = Registry::new(vec![Item("a"), Item("b")]);
        assert_eq!(
            r.page("x", None, items(10), None, false, "").unwrap().get(),
            r#"{"x":["a","b"]}"#
        );
        assert_eq!(
            r.page("x", None, items(10), None, true, "").unwrap().get(),
            r#"{"x":["a","plain b"]}"#
        );
        let not_a = |i: &Item| i.0 != "a";
        assert_eq!(
            r.page("x", None, items(10), Some(&not_a), true, "")
                .unwrap()
                .get(),
            r#"{"x":["plain b"]}"#
        );
    }
}
