//! The optional response cache (2026-07-28 caching hints): results of `tools/list`,
//! `prompts/list`, `resources/list`, `resources/templates/list` and `resources/read` are kept
//! for the `ttlMs` the server gave them, and dropped early when a notification says they
//! changed.
//!
//! The cache belongs to one client, hence one authorization context, so results of either
//! `cacheScope` (`public` or `private`) may be reused by it. Results without `ttlMs` (every
//! result of the handshake era), with `ttlMs: 0`, `input_required` results and the final
//! results of input rounds are never stored.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use mcp_types::{
    ListPrompts, ListResourceTemplates, ListResources, ListTools, ReadResource, Request as _,
    ResultType, ServerNotification,
};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::time::Instant;

/// The methods whose results may be cached.
const CACHEABLE: &[&str] = &[
    ListTools::METHOD,
    ListPrompts::METHOD,
    ListResources::METHOD,
    ListResourceTemplates::METHOD,
    ReadResource::METHOD,
];

/// What identifies a cached result: the method and the params (without `_meta`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct CacheKey {
    method: &'static str,
    params: String,
}

struct Entry {
    result: Box<RawValue>,
    expires: Instant,
    /// The URI a `resources/read` result is about.
    uri: Option<String>,
}

/// The caching hints of a result.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Hints {
    #[serde(default)]
    result_type: Option<ResultType>,
    #[serde(default)]
    ttl_ms: Option<i64>,
}

/// A bounded map from request to result; see the [module docs](self).
pub(crate) struct ResponseCache {
    capacity: usize,
    entries: Mutex<HashMap<CacheKey, Entry>>,
}

impl ResponseCache {
    /// A cache of at most `capacity` results; 0 turns it off.
    pub(crate) fn new(capacity: usize) -> Self {
        ResponseCache {
            capacity,
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<CacheKey, Entry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The key of a request, if its result may be cached.
    pub(crate) fn key(&self, method: &str, params: &Value) -> Option<CacheKey> {
        if self.capacity == 0 {
            return None;
        }
        let method = CACHEABLE.iter().find(|m| **m == method)?;
        let mut params = params.clone();
        if let Some(object) = params.as_object_mut() {
            object.remove("_meta");
        }
        Some(CacheKey {
            method,
            params: params.to_string(),
        })
    }

    /// The fresh result stored under `key`.
    pub(crate) fn get(&self, key: &CacheKey) -> Option<Box<RawValue>> {
        let mut entries = self.lock();
        let entry = entries.get(key)?;
        if entry.expires <= Instant::now() {
            entries.remove(key);
            return None;
        }
        Some(entry.result.clone())
    }

    /// Stores `result` under `key` for its `ttlMs`, if it has a positive one and is complete.
    pub(crate) fn put(&self, key: CacheKey, result: &RawValue) {
        let Ok(hints) = serde_json::from_str::<Hints>(result.get()) else {
            return;
        };
        let complete = matches!(hints.result_type, None | Some(ResultType::Complete));
        let ttl = hints
            .ttl_ms
            .and_then(|t| u64::try_from(t).ok())
            .unwrap_or(0);
        if !complete || ttl == 0 {
            return;
        }
        let uri = (key.method == ReadResource::METHOD)
            .then(|| serde_json::from_str::<Value>(&key.params).ok())
            .flatten()
            .and_then(|p| p.get("uri").and_then(Value::as_str).map(str::to_owned));
        let now = Instant::now();
        let mut entries = self.lock();
        if entries.len() >= self.capacity && !entries.contains_key(&key) {
            entries.retain(|_, e| e.expires > now);
            if entries.len() >= self.capacity {
                // Full of fresh results: the one that would expire first makes room.
                let soonest = entries
                    .iter()
                    .min_by_key(|(_, e)| e.expires)
                    .map(|(k, _)| k.clone());
                if let Some(soonest) = soonest {
                    entries.remove(&soonest);
                }
            }
        }
        entries.insert(
            key,
            Entry {
                result: result.to_owned(),
                expires: now + Duration::from_millis(ttl),
                uri,
            },
        );
    }

    /// Drops what `notification` says is out of date.
    pub(crate) fn invalidate(&self, notification: &ServerNotification) {
        if self.capacity == 0 {
            return;
        }
        let mut entries = self.lock();
        match notification {
            ServerNotification::ToolListChanged(_) => {
                entries.retain(|k, _| k.method != ListTools::METHOD);
            }
            ServerNotification::PromptListChanged(_) => {
                entries.retain(|k, _| k.method != ListPrompts::METHOD);
            }
            ServerNotification::ResourceListChanged(_) => entries.retain(|k, _| {
                k.method != ListResources::METHOD && k.method != ListResourceTemplates::METHOD
            }),
            // The updated resource may be a sub-resource of the one read, or the other way
            // round.
            ServerNotification::ResourceUpdated(p) => entries.retain(|_, e| {
                e.uri
                    .as_deref()
                    .is_none_or(|uri| !uri.starts_with(p.uri.as_str()) && !p.uri.starts_with(uri))
            }),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use mcp_types::{EmptyParams, ResourceUpdatedNotificationParams};
    use serde_json::json;

    use super::*;

    fn raw(v: Value) -> Box<RawValue> {
        serde_json::value::to_raw_value(&v).unwrap()
    }

    #[tokio::test(start_paused = true)]
    async fn results_live_for_their_ttl() {
        let cache = ResponseCache::new(8);
        let key = cache
            .key("tools/list", &json!({"_meta": {"a": 1}}))
            .unwrap();
        // `_meta` is not part of the key.
        assert_eq!(Some(key.clone()), cache.key("tools/list", &json!({})));
        cache.put(
            key.clone(),
            &raw(json!({"tools": [], "resultType": "complete", "ttlMs": 1000})),
        );
        assert!(cache.get(&key).is_some());
        tokio::time::advance(Duration::from_millis(1001)).await;
        assert!(cache.get(&key).is_none());
    }

    #[test]
    fn only_complete_results_with_a_ttl_are_kept() {
        let cache = ResponseCache::new(8);
        let key = cache.key("prompts/list", &json!({})).unwrap();
        for result in [
            json!({"prompts": []}),
            json!({"prompts": [], "ttlMs": 0}),
            json!({"prompts": [], "ttlMs": -5}),
            json!({"resultType": "input_required", "ttlMs": 100}),
        ] {
            cache.put(key.clone(), &raw(result));
            assert!(cache.get(&key).is_none());
        }
        assert!(cache.key("tools/call", &json!({})).is_none());
        assert!(
            ResponseCache::new(0)
                .key("tools/list", &json!({}))
                .is_none()
        );
    }

    #[tokio::test(start_paused = true)]
    async fn notifications_invalidate_and_capacity_is_bounded() {
        let cache = ResponseCache::new(2);
        let tools = cache.key("tools/list", &json!({})).unwrap();
        let read_a = cache
            .key("resources/read", &json!({"uri": "file:///a/x"}))
            .unwrap();
        let read_b = cache
            .key("resources/read", &json!({"uri": "file:///b"}))
            .unwrap();
        cache.put(tools.clone(), &raw(json!({"tools": [], "ttlMs": 10_000})));
        cache.put(
            read_a.clone(),
            &raw(json!({"contents": [], "ttlMs": 5_000})),
        );
        // Full: the entry that expires first (read_a) makes room.
        cache.put(
            read_b.clone(),
            &raw(json!({"contents": [], "ttlMs": 60_000})),
        );
        assert!(cache.get(&read_a).is_none());
        assert!(cache.get(&tools).is_some() && cache.get(&read_b).is_some());

        cache.invalidate(&ServerNotification::ToolListChanged(EmptyParams::default()));
        assert!(cache.get(&tools).is_none());
        cache.invalidate(&ServerNotification::ResourceUpdated(
            ResourceUpdatedNotificationParams::new("file:///b"),
        ));
        assert!(cache.get(&read_b).is_none());
    }
}
