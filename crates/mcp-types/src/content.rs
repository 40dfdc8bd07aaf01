//! Content blocks: what prompts, tool results, sampling messages and resources carry.
//!
//! Every block is a JSON object with a `"type"` discriminator. The block structs write their own
//! `type` member and check it when decoding, so a single block (e.g. a [`TextContent`]) and the
//! unions that hold it ([`ContentBlock`], [`SamplingMessageContentBlock`]) share one wire form.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::{JsonObject, Meta};

/// Decodes the flattened `extra` map of a struct with a `"type"` discriminator: removes `type`
/// from the map and checks it equals `tag`.
///
/// Used with `#[serde(tag = "type", rename = "<tag>")]` on the struct, which writes the member.
pub(crate) fn extra_with_tag<'de, D: Deserializer<'de>>(
    d: D,
    tag: &str,
) -> Result<JsonObject, D::Error> {
    let mut extra = JsonObject::deserialize(d)?;
    match extra.remove("type") {
        Some(Value::String(s)) if s == tag => Ok(extra),
        Some(other) => Err(D::Error::custom(format_args!(
            "expected type {tag:?}, got {other}"
        ))),
        None => Err(D::Error::missing_field("type")),
    }
}

/// Reads the `"type"` member of a buffered object, for unions dispatching on it.
pub(crate) fn type_of(v: &Value) -> Option<String> {
    v.get("type").and_then(Value::as_str).map(str::to_owned)
}

/// Decodes one union variant from a buffered value, mapping the error into `E`.
pub(crate) fn variant<T: serde::de::DeserializeOwned, E: serde::de::Error>(
    v: Value,
) -> Result<T, E> {
    serde_json::from_value(v).map_err(E::custom)
}

macro_rules! tag_fn {
    ($name:ident, $tag:literal) => {
        fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<JsonObject, D::Error> {
            extra_with_tag(d, $tag)
        }
    };
}

tag_fn!(text_tag, "text");
tag_fn!(image_tag, "image");
tag_fn!(audio_tag, "audio");
tag_fn!(resource_link_tag, "resource_link");
tag_fn!(resource_tag, "resource");
tag_fn!(tool_use_tag, "tool_use");
tag_fn!(tool_result_tag, "tool_result");

/// The sender or recipient of a message: `"user"` or `"assistant"` (all revisions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Role {
    /// The human side of the conversation.
    User,
    /// The model side of the conversation.
    Assistant,
}

/// Hints for the client about how to use or show an object.
///
/// 2024-11-05 has the same object inline (as `Annotated.annotations`) with `audience` and
/// `priority`; `lastModified` is 2025-06-18 and later.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Annotations {
    /// Who the object is meant for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// How important the object is, from 0 (optional) to 1 (required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// When the object was last modified, as an ISO 8601 timestamp (2025-06-18 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

/// Text given to or produced by a model (`"type": "text"`, all revisions).
///
/// `_meta`: 2025-06-18 and later.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "text", rename_all = "camelCase")]
#[non_exhaustive]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata attached to the block.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip (never `type`).
    #[serde(flatten, deserialize_with = "text_tag")]
    pub extra: JsonObject,
}

impl TextContent {
    /// A text block.
    pub fn new(text: impl Into<String>) -> Self {
        TextContent {
            text: text.into(),
            ..Default::default()
        }
    }
}

/// An image given to or produced by a model (`"type": "image"`, all revisions).
///
/// `_meta`: 2025-06-18 and later.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "image", rename_all = "camelCase")]
#[non_exhaustive]
pub struct ImageContent {
    /// The base64-encoded image data.
    pub data: String,
    /// The MIME type of the image, e.g. `image/png`.
    pub mime_type: String,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata attached to the block.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip (never `type`).
    #[serde(flatten, deserialize_with = "image_tag")]
    pub extra: JsonObject,
}

impl ImageContent {
    /// An image block from base64 `data` and its MIME type.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ImageContent {
            data: data.into(),
            mime_type: mime_type.into(),
            ..Default::default()
        }
    }
}

/// Audio given to or produced by a model (`"type": "audio"`, 2025-03-26 and later).
///
/// `_meta`: 2025-06-18 and later.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "audio", rename_all = "camelCase")]
#[non_exhaustive]
pub struct AudioContent {
    /// The base64-encoded audio data.
    pub data: String,
    /// The MIME type of the audio, e.g. `audio/wav`.
    pub mime_type: String,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata attached to the block.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip (never `type`).
    #[serde(flatten, deserialize_with = "audio_tag")]
    pub extra: JsonObject,
}

impl AudioContent {
    /// An audio block from base64 `data` and its MIME type.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        AudioContent {
            data: data.into(),
            mime_type: mime_type.into(),
            ..Default::default()
        }
    }
}

/// A link to a resource the client may read (`"type": "resource_link"`, 2025-06-18 and later).
///
/// It has the fields of a [`crate::Resource`]; `icons`: 2025-11-25 and later.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "resource_link", rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceLink {
    /// The URI of the resource.
    pub uri: String,
    /// The programmatic name of the resource.
    pub name: String,
    /// A human-readable name for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of the resource, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The size of the raw content in bytes, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons for the resource (2025-11-25 and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<crate::Icon>>,
    /// Metadata attached to the block.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip (never `type`).
    #[serde(flatten, deserialize_with = "resource_link_tag")]
    pub extra: JsonObject,
}

impl ResourceLink {
    /// A link to `uri` called `name`.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ResourceLink {
            uri: uri.into(),
            name: name.into(),
            ..Default::default()
        }
    }
}

/// The contents of a resource embedded in a message (`"type": "resource"`, all revisions).
///
/// `_meta`: 2025-06-18 and later.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "resource", rename_all = "camelCase")]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// The resource contents, text or binary.
    pub resource: ResourceContents,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata attached to the block.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip (never `type`).
    #[serde(flatten, deserialize_with = "resource_tag")]
    pub extra: JsonObject,
}

impl EmbeddedResource {
    /// Embeds `resource`.
    pub fn new(resource: impl Into<ResourceContents>) -> Self {
        EmbeddedResource {
            resource: resource.into(),
            annotations: None,
            meta: None,
            extra: JsonObject::new(),
        }
    }
}

/// Content of prompt messages and tool results, told apart by `"type"`.
///
/// 2025-06-18 names this union; earlier revisions spell it out inline. `audio` is 2025-03-26 and
/// later, `resource_link` 2025-06-18 and later. An unknown `type` fails to decode.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ContentBlock {
    /// `"text"`.
    Text(TextContent),
    /// `"image"`.
    Image(ImageContent),
    /// `"audio"`.
    Audio(AudioContent),
    /// `"resource_link"`.
    ResourceLink(ResourceLink),
    /// `"resource"`.
    Resource(EmbeddedResource),
}

impl<'de> Deserialize<'de> for ContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match type_of(&v).as_deref() {
            Some("text") => variant(v).map(ContentBlock::Text),
            Some("image") => variant(v).map(ContentBlock::Image),
            Some("audio") => variant(v).map(ContentBlock::Audio),
            Some("resource_link") => variant(v).map(ContentBlock::ResourceLink),
            Some("resource") => variant(v).map(ContentBlock::Resource),
            Some(other) => Err(D::Error::custom(format_args!(
                "unknown content type {other:?}"
            ))),
            None => Err(D::Error::missing_field("type")),
        }
    }
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent::new(text))
    }

    /// An image block from base64 `data` and its MIME type.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Image(ImageContent::new(data, mime_type))
    }

    /// An audio block from base64 `data` and its MIME type.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Audio(AudioContent::new(data, mime_type))
    }

    /// A link to the resource at `uri` called `name`.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ContentBlock::ResourceLink(ResourceLink::new(uri, name))
    }

    /// An embedded resource.
    pub fn resource(resource: impl Into<ResourceContents>) -> Self {
        ContentBlock::Resource(EmbeddedResource::new(resource))
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

impl From<TextContent> for ContentBlock {
    fn from(c: TextContent) -> Self {
        ContentBlock::Text(c)
    }
}

impl From<ImageContent> for ContentBlock {
    fn from(c: ImageContent) -> Self {
        ContentBlock::Image(c)
    }
}

impl From<AudioContent> for ContentBlock {
    fn from(c: AudioContent) -> Self {
        ContentBlock::Audio(c)
    }
}

impl From<ResourceLink> for ContentBlock {
    fn from(c: ResourceLink) -> Self {
        ContentBlock::ResourceLink(c)
    }
}

impl From<EmbeddedResource> for ContentBlock {
    fn from(c: EmbeddedResource) -> Self {
        ContentBlock::Resource(c)
    }
}

/// A request from the model to call a tool (`"type": "tool_use"`, 2025-11-25 and later).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "tool_use", rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolUseContent {
    /// An id for this call, matched by [`ToolResultContent::tool_use_id`].
    pub id: String,
    /// The name of the tool to call.
    pub name: String,
    /// The arguments, conforming to the tool's input schema.
    pub input: JsonObject,
    /// Metadata attached to the block.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip (never `type`).
    #[serde(flatten, deserialize_with = "tool_use_tag")]
    pub extra: JsonObject,
}

impl ToolUseContent {
    /// A call of tool `name` with `input`, identified by `id`.
    pub fn new(id: impl Into<String>, name: impl Into<String>, input: JsonObject) -> Self {
        ToolUseContent {
            id: id.into(),
            name: name.into(),
            input,
            ..Default::default()
        }
    }
}

/// The result of a tool call, sent back to the model (`"type": "tool_result"`, 2025-11-25 and
/// later).
///
/// `structuredContent` is an object on 2025-11-25 and any JSON value on 2026-07-28.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename = "tool_result", rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolResultContent {
    /// The [`ToolUseContent::id`] this answers.
    pub tool_use_id: String,
    /// The unstructured result.
    pub content: Vec<ContentBlock>,
    /// The structured result, conforming to the tool's output schema.
    #[serde(
        default,
        deserialize_with = "some_value",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the call failed; absent means `false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata attached to the block.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip (never `type`).
    #[serde(flatten, deserialize_with = "tool_result_tag")]
    pub extra: JsonObject,
}

impl ToolResultContent {
    /// The result of call `tool_use_id`.
    pub fn new(tool_use_id: impl Into<String>, content: Vec<ContentBlock>) -> Self {
        ToolResultContent {
            tool_use_id: tool_use_id.into(),
            content,
            ..Default::default()
        }
    }
}

/// Decodes a present member as `Some`, even when it is `null`, so `null` round-trips.
pub(crate) fn some_value<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// Content of a sampling message, told apart by `"type"` (2025-11-25 and later).
///
/// Revisions up to 2025-06-18 allow only text, image (and from 2025-03-26 audio) here.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum SamplingMessageContentBlock {
    /// `"text"`.
    Text(TextContent),
    /// `"image"`.
    Image(ImageContent),
    /// `"audio"`.
    Audio(AudioContent),
    /// `"tool_use"`.
    ToolUse(ToolUseContent),
    /// `"tool_result"`.
    ToolResult(ToolResultContent),
}

impl<'de> Deserialize<'de> for SamplingMessageContentBlock {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match type_of(&v).as_deref() {
            Some("text") => variant(v).map(SamplingMessageContentBlock::Text),
            Some("image") => variant(v).map(SamplingMessageContentBlock::Image),
            Some("audio") => variant(v).map(SamplingMessageContentBlock::Audio),
            Some("tool_use") => variant(v).map(SamplingMessageContentBlock::ToolUse),
            Some("tool_result") => variant(v).map(SamplingMessageContentBlock::ToolResult),
            Some(other) => Err(D::Error::custom(format_args!(
                "unknown sampling content type {other:?}"
            ))),
            None => Err(D::Error::missing_field("type")),
        }
    }
}

impl SamplingMessageContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        SamplingMessageContentBlock::Text(TextContent::new(text))
    }

    /// The text, if this is a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            SamplingMessageContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

impl From<TextContent> for SamplingMessageContentBlock {
    fn from(c: TextContent) -> Self {
        SamplingMessageContentBlock::Text(c)
    }
}

impl From<ImageContent> for SamplingMessageContentBlock {
    fn from(c: ImageContent) -> Self {
        SamplingMessageContentBlock::Image(c)
    }
}

impl From<AudioContent> for SamplingMessageContentBlock {
    fn from(c: AudioContent) -> Self {
        SamplingMessageContentBlock::Audio(c)
    }
}

impl From<ToolUseContent> for SamplingMessageContentBlock {
    fn from(c: ToolUseContent) -> Self {
        SamplingMessageContentBlock::ToolUse(c)
    }
}

impl From<ToolResultContent> for SamplingMessageContentBlock {
    fn from(c: ToolResultContent) -> Self {
        SamplingMessageContentBlock::ToolResult(c)
    }
}

/// The text contents of a resource (all revisions; `_meta`: 2025-06-18 and later).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TextResourceContents {
    /// The URI of the resource.
    pub uri: String,
    /// The MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
    /// Metadata attached to the contents.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl TextResourceContents {
    /// The text contents of `uri`.
    pub fn new(uri: impl Into<String>, text: impl Into<String>) -> Self {
        TextResourceContents {
            uri: uri.into(),
            text: text.into(),
            ..Default::default()
        }
    }
}

/// The binary contents of a resource (all revisions; `_meta`: 2025-06-18 and later).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BlobResourceContents {
    /// The URI of the resource.
    pub uri: String,
    /// The MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The base64-encoded data.
    pub blob: String,
    /// Metadata attached to the contents.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this crate does not know, kept for the round trip.
    #[serde(flatten)]
    pub extra: JsonObject,
}

impl BlobResourceContents {
    /// The base64 `blob` contents of `uri`.
    pub fn new(uri: impl Into<String>, blob: impl Into<String>) -> Self {
        BlobResourceContents {
            uri: uri.into(),
            blob: blob.into(),
            ..Default::default()
        }
    }
}

/// The contents of a resource: text or binary (all revisions).
///
/// The schema's `ResourceContents` is the base of both kinds; on the wire they differ only in
/// carrying `text` or `blob`, which is how this union tells them apart (`text` wins if both are
/// present).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ResourceContents {
    /// Contents with `text`.
    Text(TextResourceContents),
    /// Contents with a base64 `blob`.
    Blob(BlobResourceContents),
}

impl<'de> Deserialize<'de> for ResourceContents {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        if v.get("text").is_some() {
            variant(v).map(ResourceContents::Text)
        } else if v.get("blob").is_some() {
            variant(v).map(ResourceContents::Blob)
        } else {
            Err(D::Error::custom(
                "resource contents need a `text` or a `blob` member",
            ))
        }
    }
}

impl ResourceContents {
    /// The URI of the resource.
    pub fn uri(&self) -> &str {
        match self {
            ResourceContents::Text(c) => &c.uri,
            ResourceContents::Blob(c) => &c.uri,
        }
    }

    /// The MIME type, if known.
    pub fn mime_type(&self) -> Option<&str> {
        match self {
            ResourceContents::Text(c) => c.mime_type.as_deref(),
            ResourceContents::Blob(c) => c.mime_type.as_deref(),
        }
    }
}

impl From<TextResourceContents> for ResourceContents {
    fn from(c: TextResourceContents) -> Self {
        ResourceContents::Text(c)
    }
}

impl From<BlobResourceContents> for ResourceContents {
    fn from(c: BlobResourceContents) -> Self {
        ResourceContents::Blob(c)
    }
}

#[cfg(test)]
#[path = "content_tests.rs"]
mod tests;
