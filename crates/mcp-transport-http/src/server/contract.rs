//! The promises every [`EventStore`] and [`SessionDirectory`] keeps, as checks any
//! implementation can run in its own tests:
//!
//! ```
//! use mcp_transport_http::server::contract;
//! use mcp_transport_http::server::{InMemoryEventStore, InMemorySessionDirectory};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // `make()` gives a fresh, empty store.
//! contract::verify_event_store(InMemoryEventStore::default).await.unwrap();
//! contract::verify_directory(InMemorySessionDirectory::default).await.unwrap();
//! # }
//! ```
//!
//! Time to live is not checked (stores choose their own); test it where you configure it.

use bytes::Bytes;

use super::directory::{SessionDirectory, SessionRecord};
use super::event_store::{EventStore, StreamId};

macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(format!($($msg)+));
        }
    };
}

fn fail<E: std::fmt::Display>(what: &str) -> impl FnOnce(E) -> String + '_ {
    move |e| format!("{what}: {e}")
}

/// Runs every [`EventStore`] check against stores made by `make` (each call must give a new,
/// empty store). The first broken promise is the error.
pub async fn verify_event_store<S: EventStore>(make: impl Fn() -> S) -> Result<(), String> {
    replay_by_stream(&make()).await?;
    unknown_ids(&make()).await?;
    sessions_apart(&make()).await?;
    bounded_or_truncated(&make()).await?;
    Ok(())
}

/// Runs every [`SessionDirectory`] check against directories made by `make` (each call must
/// give a new, empty directory). The first broken promise is the error.
pub async fn verify_directory<D: SessionDirectory>(make: impl Fn() -> D) -> Result<(), String> {
    create_get_remove(&make()).await?;
    claims(&make()).await?;
    racing_claims(&make()).await?;
    Ok(())
}

async fn append(
    store: &impl EventStore,
    session: &str,
    stream: u64,
    data: &str,
) -> Result<String, String> {
    store
        .append(
            session,
            StreamId(stream),
            Bytes::copy_from_slice(data.as_bytes()),
        )
        .await
        .map_err(fail("append"))
}

async fn replay_by_stream(store: &impl EventStore) -> Result<(), String> {
    let p1 = append(store, "s", 1, "").await?;
    let p2 = append(store, "s", 2, "").await?;
    let a = append(store, "s", 1, "a").await?;
    let x = append(store, "s", 2, "x").await?;
    let b = append(store, "s", 1, "b").await?;
    let ids = [&p1, &p2, &a, &x, &b];
    for (i, id) in ids.iter().enumerate() {
        ensure!(
            !ids[..i].contains(id),
            "append gave the id {id} twice: {ids:?}"
        );
    }
    let replay = store
        .replay_after("s", &p1)
        .await
        .map_err(fail("replay_after"))?
        .ok_or("a replay from the session's first event found nothing")?;
    ensure!(
        replay.stream == StreamId(1),
        "the id {p1} of stream 1 replayed stream {:?}",
        replay.stream
    );
    let got: Vec<_> = replay
        .events
        .iter()
        .map(|e| (e.id.as_str(), &e.data[..]))
        .collect();
    ensure!(
        got == [(a.as_str(), &b"a"[..]), (b.as_str(), &b"b"[..])],
        "the replay of stream 1 after its priming event gave {got:?}"
    );
    ensure!(
        !replay.truncated,
        "a replay with nothing dropped was truncated"
    );
    let replay = store
        .replay_after("s", &p2)
        .await
        .map_err(fail("replay_after"))?
        .ok_or("a replay of stream 2 found nothing")?;
    ensure!(
        replay.stream == StreamId(2) && replay.events.len() == 1 && replay.events[0].id == x,
        "the replay of stream 2 gave {replay:?}"
    );
    let replay = store
        .replay_after("s", &b)
        .await
        .map_err(fail("replay_after"))?
        .ok_or("a replay from the newest event found nothing")?;
    ensure!(
        replay.events.is_empty() && !replay.truncated,
        "a replay from the newest event gave {replay:?}"
    );
    // Appends after a replay go on from there.
    let c = append(store, "s", 1, "c").await?;
    let replay = store
        .replay_after("s", &b)
        .await
        .map_err(fail("replay_after"))?;
    ensure!(
        replay.is_some_and(|r| r.events.len() == 1 && r.events[0].id == c),
        "an event appended after a replay was not replayed"
    );
    store
        .remove_session("s")
        .await
        .map_err(fail("remove_session"))?;
    let gone = store
        .replay_after("s", &p1)
        .await
        .map_err(fail("replay_after"))?;
    ensure!(gone.is_none(), "a removed session replayed {gone:?}");
    store
        .remove_session("never")
        .await
        .map_err(fail("remove_session of an unknown session"))?;
    Ok(())
}

async fn unknown_ids(store: &impl EventStore) -> Result<(), String> {
    let id = append(store, "s", 1, "").await?;
    for (session, last) in [
        ("other", id.as_str()),
        ("s", "nonsense"),
        ("s", ""),
        ("s", "1-99999"),
    ] {
        let found = store
            .replay_after(session, last)
            .await
            .map_err(fail("replay_after"))?;
        ensure!(
            found.is_none(),
            "a replay of {last:?} in session {session:?} gave {found:?}"
        );
    }
    Ok(())
}

async fn sessions_apart(store: &impl EventStore) -> Result<(), String> {
    let a0 = append(store, "a", 1, "").await?;
    let b0 = append(store, "b", 1, "").await?;
    append(store, "a", 1, "for a").await?;
    append(store, "b", 1, "for b").await?;
    for (session, first, data) in [("a", &a0, "for a"), ("b", &b0, "for b")] {
        let replay = store
            .replay_after(session, first)
            .await
            .map_err(fail("replay_after"))?
            .ok_or("a session lost its events")?;
        let got: Vec<_> = replay.events.iter().map(|e| &e.data[..]).collect();
        ensure!(
            got == [data.as_bytes()],
            "session {session} replayed {got:?}"
        );
    }
    store
        .remove_session("a")
        .await
        .map_err(fail("remove_session"))?;
    let b = store
        .replay_after("b", &b0)
        .await
        .map_err(fail("replay_after"))?;
    ensure!(b.is_some(), "removing session a removed session b");
    Ok(())
}

/// A store keeps what it can: a replay either has every event after the client's, or says
/// it is truncated; what it has is the newest events, in order.
async fn bounded_or_truncated(store: &impl EventStore) -> Result<(), String> {
    const EVENTS: usize = 3000;
    let first = append(store, "s", 1, "").await?;
    let mut ids = Vec::with_capacity(EVENTS);
    for i in 0..EVENTS {
        ids.push(append(store, "s", 1, &i.to_string()).await?);
        // Another stream in between, so that streams share the bound.
        append(store, "s", 2, "other").await?;
    }
    let replay = store
        .replay_after("s", &first)
        .await
        .map_err(fail("replay_after"))?
        .ok_or("a replay after many events found nothing")?;
    let got: Vec<&str> = replay.events.iter().map(|e| e.id.as_str()).collect();
    ensure!(
        ids.ends_with(&got.iter().map(|s| s.to_string()).collect::<Vec<_>>()),
        "the replay is not the newest events in order ({} of {EVENTS})",
        got.len()
    );
    ensure!(
        got.len() == EVENTS || replay.truncated,
        "{} of {EVENTS} events were replayed without saying the replay is truncated",
        got.len()
    );
    Ok(())
}

async fn create_get_remove(dir: &impl SessionDirectory) -> Result<(), String> {
    let none = dir.get("missing").await.map_err(fail("get"))?;
    ensure!(none.is_none(), "get of an unknown id gave {none:?}");
    let record = SessionRecord::new("s1", "http://a/mcp", Some("alice".into()));
    dir.create(&record).await.map_err(fail("create"))?;
    let got = dir.get("s1").await.map_err(fail("get"))?;
    ensure!(
        got.as_ref() == Some(&record),
        "get after create gave {got:?}"
    );
    let taken = dir
        .create(&SessionRecord::new("s1", "http://b/mcp", None))
        .await;
    ensure!(taken.is_err(), "a second create of the same id succeeded");
    let got = dir.get("s1").await.map_err(fail("get"))?;
    ensure!(
        got.as_ref() == Some(&record),
        "a refused create changed the record: {got:?}"
    );
    let anonymous = SessionRecord::new("s2", "http://a/mcp", None);
    dir.create(&anonymous).await.map_err(fail("create"))?;
    let got = dir.get("s2").await.map_err(fail("get"))?;
    ensure!(
        got.as_ref() == Some(&anonymous),
        "a session without principal came back as {got:?}"
    );
    dir.touch("s1").await.map_err(fail("touch"))?;
    dir.touch("missing")
        .await
        .map_err(fail("touch of an unknown id"))?;
    dir.remove("s1").await.map_err(fail("remove"))?;
    let gone = dir.get("s1").await.map_err(fail("get"))?;
    ensure!(gone.is_none(), "a removed session is still there: {gone:?}");
    dir.remove("missing")
        .await
        .map_err(fail("remove of an unknown id"))?;
    let kept = dir.get("s2").await.map_err(fail("get"))?;
    ensure!(kept.is_some(), "removing s1 removed s2");
    Ok(())
}

async fn claims(dir: &impl SessionDirectory) -> Result<(), String> {
    let record = SessionRecord::new("s", "http://a/mcp", Some("alice".into()));
    dir.create(&record).await.map_err(fail("create"))?;
    let wrong = dir
        .claim("s", "http://x/mcp", "http://b/mcp")
        .await
        .map_err(fail("claim"))?;
    ensure!(
        wrong.is_none(),
        "a claim from the wrong home succeeded: {wrong:?}"
    );
    let got = dir.get("s").await.map_err(fail("get"))?;
    ensure!(
        got.as_ref() == Some(&record),
        "a refused claim changed the record: {got:?}"
    );
    let claimed = dir
        .claim("s", "http://a/mcp", "http://b/mcp")
        .await
        .map_err(fail("claim"))?
        .ok_or("a claim from the right home failed")?;
    ensure!(
        claimed.id == "s"
            && claimed.home == "http://b/mcp"
            && claimed.generation == 1
            && claimed.principal.as_deref() == Some("alice"),
        "the claimed record is {claimed:?}"
    );
    let got = dir.get("s").await.map_err(fail("get"))?;
    ensure!(
        got.as_ref() == Some(&claimed),
        "get after claim gave {got:?}"
    );
    let again = dir
        .claim("s", "http://b/mcp", "http://a/mcp")
        .await
        .map_err(fail("claim"))?;
    ensure!(
        again.is_some_and(|r| r.generation == 2 && r.home == "http://a/mcp"),
        "a second claim did not raise the generation to 2"
    );
    let unknown = dir
        .claim("missing", "http://a/mcp", "http://b/mcp")
        .await
        .map_err(fail("claim"))?;
    ensure!(
        unknown.is_none(),
        "a claim of an unknown session gave {unknown:?}"
    );
    let still_unknown = dir.get("missing").await.map_err(fail("get"))?;
    ensure!(
        still_unknown.is_none(),
        "a claim created a session: {still_unknown:?}"
    );
    Ok(())
}

async fn racing_claims(dir: &impl SessionDirectory) -> Result<(), String> {
    for i in 0..20 {
        let id = format!("race-{i}");
        dir.create(&SessionRecord::new(id.clone(), "http://a/mcp", None))
            .await
            .map_err(fail("create"))?;
        let (b, c) = futures::future::join(
            dir.claim(&id, "http://a/mcp", "http://b/mcp"),
            dir.claim(&id, "http://a/mcp", "http://c/mcp"),
        )
        .await;
        let b = b.map_err(fail("claim"))?;
        let c = c.map_err(fail("claim"))?;
        ensure!(
            b.is_some() != c.is_some(),
            "of two claims from the same home, {} succeeded",
            if b.is_some() { "both" } else { "none" }
        );
        let winner = b.or(c).map(|r| r.home);
        let got = dir.get(&id).await.map_err(fail("get"))?;
        ensure!(
            got.as_ref().map(|r| (Some(r.home.clone()), r.generation)) == Some((winner, 1)),
            "after a race the record is {got:?}"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::{InMemoryEventStore, InMemorySessionDirectory};

    #[tokio::test]
    async fn the_in_memory_event_store_keeps_the_contract() {
        verify_event_store(InMemoryEventStore::default)
            .await
            .unwrap();
        // A small bound: every replay of the long session is truncated.
        verify_event_store(|| InMemoryEventStore::new(8, 1 << 20))
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn the_in_memory_directory_keeps_the_contract() {
        verify_directory(InMemorySessionDirectory::default)
            .await
            .unwrap();
    }

    /// A store that forgets the newest event: the contract must catch it.
    #[derive(Debug, Default)]
    struct Forgetful(InMemoryEventStore);

    impl EventStore for Forgetful {
        fn append<'a>(
            &'a self,
            session: &'a str,
            stream: StreamId,
            data: Bytes,
        ) -> super::super::StoreFuture<'a, String> {
            self.0.append(session, stream, data)
        }

        fn replay_after<'a>(
            &'a self,
            session: &'a str,
            id: &'a str,
        ) -> super::super::StoreFuture<'a, Option<super::super::Replay>> {
            Box::pin(async move {
                let replay = self.0.replay_after(session, id).await?;
                Ok(replay.map(|mut r| {
                    r.events.pop();
                    r
                }))
            })
        }

        fn remove_session<'a>(&'a self, session: &'a str) -> super::super::StoreFuture<'a, ()> {
            self.0.remove_session(session)
        }
    }

    #[tokio::test]
    async fn a_store_that_loses_events_fails_the_contract() {
        let err = verify_event_store(Forgetful::default).await.unwrap_err();
        assert!(err.contains("stream 1"), "{err}");
    }
}
