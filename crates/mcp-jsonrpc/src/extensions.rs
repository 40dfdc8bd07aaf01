//! [`Extensions`]: per-message data a transport attaches for the handler.
//!
//! Hand-written rather than taken from the `http` crate so that the engine stays free of an
//! HTTP dependency (stdio and in-memory transports use it too). `http::Extensions` is the
//! model: a map from a type to one value of that type, values `Clone + Send + Sync` so that a
//! [`Message`](crate::Message) carrying them stays `Clone`.

use std::any::{Any, TypeId};
use std::fmt;

/// A type map: at most one value per type, set by a transport on an inbound
/// [`Request`](crate::Request) or [`Notification`](crate::Notification) and read by the
/// handler (through [`RequestContext::extensions`](crate::RequestContext::extensions) for a
/// request).
///
/// Typical values are the HTTP request's headers, a handle on the stream the request arrived
/// on, or the principal an authentication layer established. Use a dedicated type (a newtype)
/// per meaning, since the type is the key.
///
/// ```
/// use mcp_jsonrpc::Extensions;
///
/// #[derive(Clone, Debug, PartialEq)]
/// struct User(String);
///
/// let mut ext = Extensions::new();
/// assert!(ext.insert(User("alice".into())).is_none());
/// assert_eq!(ext.get::<User>(), Some(&User("alice".into())));
/// ext.get_mut::<User>().unwrap().0.push_str("@example.com");
/// assert_eq!(ext.remove::<User>().unwrap().0, "alice@example.com");
/// assert!(ext.is_empty());
/// ```
#[derive(Clone, Default)]
pub struct Extensions {
    // A message carries a handful of values (the HTTP transport attaches four), so a vector
    // searched front to back beats a hash map: no hashing of the `TypeId` (SipHash in
    // `HashMap`), and one allocation for the first four values instead of an allocation and a
    // rehash. An empty `Vec` does not allocate.
    entries: Vec<(TypeId, Box<dyn AnyClone>)>,
}

/// Room made by the first insert: what the HTTP transport attaches to a request.
const FIRST_CAPACITY: usize = 4;

impl Extensions {
    /// An empty map (allocates nothing).
    pub fn new() -> Self {
        Extensions::default()
    }

    /// Inserts `value`, returning the previous value of the same type, if any.
    pub fn insert<T: Clone + Send + Sync + 'static>(&mut self, value: T) -> Option<T> {
        let boxed: Box<dyn AnyClone> = Box::new(value);
        match self.position(TypeId::of::<T>()) {
            Some(i) => {
                let old = std::mem::replace(&mut self.entries[i].1, boxed);
                old.into_any().downcast().ok().map(|b| *b)
            }
            None => {
                if self.entries.capacity() == 0 {
                    self.entries.reserve_exact(FIRST_CAPACITY);
                }
                self.entries.push((TypeId::of::<T>(), boxed));
                None
            }
        }
    }

    fn position(&self, id: TypeId) -> Option<usize> {
        self.entries.iter().position(|(t, _)| *t == id)
    }

    /// The value of type `T`, if there is one.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        let (_, value) = self.entries.iter().find(|(t, _)| *t == TypeId::of::<T>())?;
        // `**`: ask the value, not the box (which is itself an `AnyClone`).
        (**value).as_any().downcast_ref()
    }

    /// The value of type `T`, mutably, if there is one.
    pub fn get_mut<T: Send + Sync + 'static>(&mut self) -> Option<&mut T> {
        let (_, value) = self
            .entries
            .iter_mut()
            .find(|(t, _)| *t == TypeId::of::<T>())?;
        (**value).as_any_mut().downcast_mut()
    }

    /// Removes and returns the value of type `T`, if there is one.
    pub fn remove<T: Send + Sync + 'static>(&mut self) -> Option<T> {
        let i = self.position(TypeId::of::<T>())?;
        let (_, old) = self.entries.swap_remove(i);
        old.into_any().downcast().ok().map(|b| *b)
    }

    /// Moves every value of `other` into `self`, replacing values of the same types.
    pub fn extend(&mut self, other: Extensions) {
        if self.entries.is_empty() {
            self.entries = other.entries;
            return;
        }
        for (id, value) in other.entries {
            match self.position(id) {
                Some(i) => self.entries[i].1 = value,
                None => self.entries.push((id, value)),
            }
        }
    }

    /// Whether the map holds no value.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// How many values the map holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Removes every value.
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

impl fmt::Debug for Extensions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Extensions")
            .field("len", &self.len())
            .finish_non_exhaustive()
    }
}

/// A value that can be cloned behind a `dyn` pointer and downcast.
trait AnyClone: Any + Send + Sync {
    fn clone_box(&self) -> Box<dyn AnyClone>;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

impl<T: Clone + Send + Sync + 'static> AnyClone for T {
    fn clone_box(&self) -> Box<dyn AnyClone> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

impl Clone for Box<dyn AnyClone> {
    fn clone(&self) -> Self {
        // `**self` is the `dyn AnyClone`: clone the value, not the box.
        (**self).clone_box()
    }
}

#[cfg(test)]
mod tests {
    use super::Extensions;

    #[derive(Debug, Clone, PartialEq)]
    struct A(u32);
    #[derive(Debug, Clone, PartialEq)]
    struct B(&'static str);

    #[test]
    fn one_value_per_type() {
        let mut ext = Extensions::new();
        assert!(ext.is_empty());
        assert_eq!(ext.get::<A>(), None);
        assert_eq!(ext.insert(A(1)), None);
        assert_eq!(ext.insert(B("b")), None);
        assert_eq!(ext.insert(A(2)), Some(A(1)));
        assert_eq!(ext.len(), 2);
        ext.get_mut::<A>().unwrap().0 += 1;
        assert_eq!(ext.get::<A>(), Some(&A(3)));
        assert_eq!(ext.remove::<B>(), Some(B("b")));
        assert_eq!(ext.remove::<B>(), None);
        assert_eq!(format!("{ext:?}"), "Extensions { len: 1, .. }");
        ext.clear();
        assert!(ext.is_empty());
    }

    #[test]
    fn clones_are_deep_and_extend_overrides() {
        let mut a = Extensions::new();
        a.insert(A(1));
        let mut b = a.clone();
        b.get_mut::<A>().unwrap().0 = 9;
        assert_eq!(a.get::<A>(), Some(&A(1)));
        b.insert(B("x"));
        a.extend(b);
        assert_eq!(a.get::<A>(), Some(&A(9)));
        assert_eq!(a.get::<B>(), Some(&B("x")));
        let mut empty = Extensions::new();
        empty.extend(a.clone());
        assert_eq!(empty.len(), 2);
        a.extend(Extensions::new());
        assert_eq!(a.len(), 2);
    }
}
