//! [`Extensions`]: per-message data a transport attaches for the handler.
//!
//! Hand-written rather than taken from the `http` crate so that the engine stays free of an
//! HTTP dependency (stdio and in-memory transports use it too). `http::Extensions` is the
//! model: a map from a type to one value of that type, values `Clone + Send + Sync` so that a
//! [`Message`](crate::Message) carrying them stays `Clone`.

use std::any::{Any, TypeId};
use std::collections::HashMap;
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
    // An empty `HashMap` does not allocate.
    map: HashMap<TypeId, Box<dyn AnyClone>>,
}

impl Extensions {
    /// An empty map (allocates nothing).
    pub fn new() -> Self {
        Extensions::default()
    }

    /// Inserts `value`, returning the previous value of the same type, if any.
    pub fn insert<T: Clone + Send + Sync + 'static>(&mut self, value: T) -> Option<T> {
        self.map
            .insert(TypeId::of::<T>(), Box::new(value))
            .and_then(|old| old.into_any().downcast().ok().map(|b| *b))
    }

    /// The value of type `T`, if there is one.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        let value = self.map.get(&TypeId::of::<T>())?;
        // `**`: ask the value, not the box (which is itself an `AnyClone`).
        (**value).as_any().downcast_ref()
    }

    /// The value of type `T`, mutably, if there is one.
    pub fn get_mut<T: Send + Sync + 'static>(&mut self) -> Option<&mut T> {
        let value = self.map.get_mut(&TypeId::of::<T>())?;
        (**value).as_any_mut().downcast_mut()
    }

    /// Removes and returns the value of type `T`, if there is one.
    pub fn remove<T: Send + Sync + 'static>(&mut self) -> Option<T> {
        let old = self.map.remove(&TypeId::of::<T>())?;
        old.into_any().downcast().ok().map(|b| *b)
    }

    /// Moves every value of `other` into `self`, replacing values of the same types.
    pub fn extend(&mut self, other: Extensions) {
        if self.map.is_empty() {
            self.map = other.map;
        } else {
            self.map.extend(other.map);
        }
    }

    /// Whether the map holds no value.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// How many values the map holds.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Removes every value.
    pub fn clear(&mut self) {
        self.map.clear();
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
