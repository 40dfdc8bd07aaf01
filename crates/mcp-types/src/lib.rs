//! Every type of the Model Context Protocol, for all revisions from 2024-11-05 to 2026-07-28.
//!
//! One set of Rust types serves every revision: a field that some revision lacks is an `Option`
//! and is omitted when absent, and each type's docs say where revisions disagree. Fields this
//! crate does not know, and every `_meta`, are kept so a message survives a round trip.
//!
//! Methods are typed: each request has a marker type implementing [`Request`] (method string,
//! params type, result type) and each notification one implementing [`Notification`], so no other
//! crate writes a method string.
//!
//! ```
//! use mcp_types::{CallTool, CallToolRequestParams, Request};
//!
//! assert_eq!(CallTool::METHOD, "tools/call");
//! let params: CallToolRequestParams =
//!     serde_json::from_str(r#"{"name":"echo","arguments":{"text":"hi"}}"#).unwrap();
//! assert_eq!(params.name, "echo");
//! ```
//!
//! # Building values
//!
//! The protocol types are `#[non_exhaustive]`: a future revision may add a field or a variant
//! without breaking your code, so struct literals and exhaustive matches are not available
//! outside this crate. Build a value with its constructor (`new` with the required members, or
//! `Default`), then set optional fields directly; match with a `_` arm.
//!
//! ```
//! use mcp_types::{Tool, ToolAnnotations};
//!
//! let mut annotations = ToolAnnotations::default();
//! annotations.read_only_hint = Some(true);
//! let mut tool = Tool::new("echo", Tool::empty_input_schema());
//! tool.title = Some("Echo".to_owned());
//! tool.annotations = Some(annotations);
//! assert_eq!(serde_json::to_value(&tool).unwrap()["annotations"]["readOnlyHint"], true);
//! ```
//!
//! # Cargo features
//!
//! None. The crate depends on `serde` and `serde_json` only; it does no IO and has no async code.
//!
//! # Cancel safety
//!
//! Nothing here is async.

/// The examples of the crate's README, compiled and run as doctests (not rendered).
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// `From<&str>` and `From<String>` for params whose one required member is a string, through
/// their `new`: what lets a client call take a tool's name or a resource's URI alone.
macro_rules! from_required_string {
    ($ty:ident, $doc:literal) => {
        #[doc = $doc]
        impl From<&str> for $ty {
            fn from(value: &str) -> Self {
                $ty::new(value)
            }
        }

        #[doc = $doc]
        impl From<String> for $ty {
            fn from(value: String) -> Self {
                $ty::new(value)
            }
        }
    };
}

mod common;
mod error;
mod extra_fields;

// Protocol areas. Each module holds the types of one area and the method markers for its
// requests and notifications.
mod apps;
mod capabilities;
mod completion;
mod content;
mod discover;
mod elicitation;
mod elicitation_schema;
mod header_params;
mod lifecycle;
mod logging;
mod messages;
mod notifications;
mod prompts;
mod resources;
mod result;
mod roots;
mod sampling;
mod skills;
mod subscriptions;
mod tasks;
pub mod tasks_extension;
mod tools;
mod version;

#[cfg(test)]
mod evolution_tests;
#[cfg(test)]
mod proptests;

pub use apps::*;
pub use capabilities::*;
pub use common::*;
pub use completion::*;
pub use content::*;
pub use discover::*;
pub use elicitation::*;
pub use elicitation_schema::*;
pub use error::*;
pub use header_params::*;
pub use lifecycle::*;
pub use logging::*;
pub use messages::*;
pub use notifications::*;
pub use prompts::*;
pub use resources::*;
pub use result::*;
pub use roots::*;
pub use sampling::*;
pub use skills::*;
pub use subscriptions::*;
pub use tasks::*;
pub use tools::*;
pub use version::*;
