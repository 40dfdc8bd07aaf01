//! What the server asks of the user: elicitation (a form, or a URL to visit) and sampling
//! (a reply the user types in place of an LLM). Answered on the terminal, one field at a
//! time, on stderr and stdin; refused with a message on stderr when stdin is not a terminal.

use std::collections::BTreeMap;
use std::io::{IsTerminal as _, Write as _};
use std::sync::Arc;

use mcp_client::types::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitValue, SamplingContent,
};
use mcp_client::{ElicitationHandler, ErrorObject, RequestContext, SamplingHandler};
use serde_json::Value;

/// The model name a sampling answer typed by the user carries.
const TYPED_BY_THE_USER: &str = "mcp-cli (typed by the user)";
/// The JSON-RPC code of a refused sampling request (the user rejected it, or cannot be
/// asked), as the specification's examples use.
const USER_REJECTED: i32 = -1;

/// The elicitation and sampling handlers. One question at a time holds the terminal.
#[derive(Clone)]
pub(crate) struct Interact {
    terminal: Arc<tokio::sync::Mutex<()>>,
}

impl Interact {
    pub(crate) fn new() -> Interact {
        Interact {
            terminal: Arc::default(),
        }
    }
}

/// Whether a person can answer: stdin is a terminal.
fn can_ask() -> bool {
    std::io::stdin().is_terminal()
}

/// Writes `text` on stderr (no newline added), after removing a progress bar.
fn say(text: &str) {
    crate::progress::clear();
    let mut stderr = std::io::stderr().lock();
    let _ = write!(stderr, "{text}");
    let _ = stderr.flush();
}

/// Reads one line of the terminal, without its newline; `None` at end of input.
async fn read_line() -> Option<String> {
    let line = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        match std::io::stdin().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line),
        }
    })
    .await
    .ok()
    .flatten()?;
    Some(line.trim_end_matches(['\n', '\r']).to_owned())
}

/// Asks `prompt` and reads the answer.
async fn ask(prompt: &str) -> Option<String> {
    say(prompt);
    read_line().await
}

impl ElicitationHandler for Interact {
    async fn elicit(
        &self,
        params: ElicitRequestParams,
        _ctx: RequestContext,
    ) -> Result<ElicitResult, ErrorObject> {
        if !can_ask() {
            crate::progress::line(&format!(
                "mcp: the server asked for input ({:?}), but stdin is not a terminal, so \
                 nobody can answer: cancelled. Run mcp on a terminal to answer.",
                params.message()
            ));
            return Ok(ElicitResult::cancel());
        }
        let _terminal = self.terminal.lock().await;
        match &params {
            ElicitRequestParams::Url(url) => Ok(visit(&url.message, &url.url).await),
            ElicitRequestParams::Form(form) => {
                let schema = serde_json::to_value(&form.requested_schema).unwrap_or_default();
                Ok(fill(&form.message, &schema).await)
            }
            other => {
                crate::progress::line(&format!(
                    "mcp: the server asked for input in a form mcp does not know ({:?}): \
                     declined",
                    other.message()
                ));
                Ok(ElicitResult::decline())
            }
        }
    }
}

impl SamplingHandler for Interact {
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _ctx: RequestContext,
    ) -> Result<CreateMessageResult, ErrorObject> {
        if !can_ask() {
            let message = "the server asked for an LLM completion (sampling), but stdin is not \
                           a terminal, so nobody can answer: refused. Run mcp on a terminal to \
                           type the reply.";
            crate::progress::line(&format!("mcp: {message}"));
            return Err(ErrorObject::new(USER_REJECTED, message));
        }
        let _terminal = self.terminal.lock().await;
        say(&describe_sampling(&params));
        let Some(reply) = ask("> ").await else {
            say("\n");
            return Err(ErrorObject::new(
                USER_REJECTED,
                "the user cancelled the request",
            ));
        };
        if reply.trim() == "/decline" {
            return Err(ErrorObject::new(
                USER_REJECTED,
                "the user declined the request",
            ));
        }
        let mut result = CreateMessageResult::new(TYPED_BY_THE_USER, SamplingContent::text(reply));
        result.stop_reason = Some("endTurn".to_owned());
        Ok(result)
    }
}

/// The sampling request as the user reads it.
fn describe_sampling(params: &CreateMessageRequestParams) -> String {
    let mut text = format!(
        "\nThe server asks for an LLM completion (sampling, at most {} tokens); you are the \
         LLM.\n",
        params.max_tokens
    );
    if let Some(system) = &params.system_prompt {
        text.push_str(&format!("system: {system}\n"));
    }
    let messages = serde_json::to_value(&params.messages).unwrap_or_default();
    for message in messages.as_array().into_iter().flatten() {
        let role = message["role"].as_str().unwrap_or("?");
        let blocks = match &message["content"] {
            Value::Array(blocks) => blocks.clone(),
            block => vec![block.clone()],
        };
        for block in blocks {
            let shown = match block["type"].as_str() {
                Some("text") => block["text"].as_str().unwrap_or_default().to_owned(),
                Some(other) => format!("[{other}]"),
                None => "[?]".to_owned(),
            };
            text.push_str(&format!("{role}: {shown}\n"));
        }
    }
    text.push_str("Type the reply on one line (/decline refuses, Ctrl-D cancels):\n");
    text
}

/// A URL-mode elicitation: show the URL, and open it if the user agrees.
async fn visit(message: &str, url: &str) -> ElicitResult {
    say(&format!(
        "\nThe server asks you to visit a URL: {message}\n  {url}\n"
    ));
    loop {
        let Some(answer) = ask("Open it? [y]es, [n]o (decline), [c]ancel: ").await else {
            say("\n");
            return ElicitResult::cancel();
        };
        match answer.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => {
                if let Err(e) = crate::auth::open_browser(url) {
                    say(&format!(
                        "  (could not open a browser: {e}; open the URL yourself)\n"
                    ));
                }
                return ElicitResult::accept(None);
            }
            "n" | "no" => return ElicitResult::decline(),
            "c" | "cancel" => return ElicitResult::cancel(),
            _ => say("  ! answer y, n or c\n"),
        }
    }
}

/// A form-mode elicitation: each field in turn.
async fn fill(message: &str, schema: &Value) -> ElicitResult {
    let fields = match fields(schema) {
        Ok(fields) => fields,
        Err(why) => {
            crate::progress::line(&format!(
                "mcp: the server asked for a form mcp cannot show ({why}): declined"
            ));
            return ElicitResult::decline();
        }
    };
    say(&format!(
        "\nThe server asks: {message}\n(An empty line keeps the default, or skips an optional \
         field; /decline declines, /cancel or Ctrl-D cancels.)\n"
    ));
    let mut content = BTreeMap::new();
    for field in &fields {
        say(&field.heading());
        loop {
            let Some(line) = ask("> ").await else {
                say("\n");
                return ElicitResult::cancel();
            };
            match field.answer(&line) {
                Ok(Answer::Decline) => return ElicitResult::decline(),
                Ok(Answer::Cancel) => return ElicitResult::cancel(),
                Ok(Answer::Skip) => break,
                Ok(Answer::Value(value)) => {
                    content.insert(field.name.clone(), value);
                    break;
                }
                Err(why) => say(&format!("  ! {why}\n")),
            }
        }
    }
    ElicitResult::accept(Some(content))
}

/// One field of a form.
#[derive(Debug, Clone, PartialEq)]
struct Field {
    name: String,
    title: Option<String>,
    description: Option<String>,
    required: bool,
    default: Option<Value>,
    kind: Kind,
}

/// What a field takes.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Text {
        min: Option<u64>,
        max: Option<u64>,
        format: Option<String>,
    },
    Number {
        integer: bool,
        min: Option<f64>,
        max: Option<f64>,
    },
    Boolean,
    /// One of the options: (value, title).
    Choice(Vec<(String, Option<String>)>),
    /// Some of the options.
    Multi {
        options: Vec<(String, Option<String>)>,
        min: Option<u64>,
        max: Option<u64>,
    },
}

/// What the user answered for a field.
#[derive(Debug, Clone, PartialEq)]
enum Answer {
    Value(ElicitValue),
    /// Nothing, for an optional field without a default.
    Skip,
    Decline,
    Cancel,
}

/// The fields of a requested schema, in the order of its `properties`.
fn fields(schema: &Value) -> Result<Vec<Field>, String> {
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .ok_or("no properties")?;
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    properties
        .iter()
        .map(|(name, property)| {
            let kind = kind(property).map_err(|why| format!("field {name}: {why}"))?;
            let mut default = property.get("default").cloned();
            // An integer's default may arrive as `30.0` (a number schema keeps it as a
            // float): it is sent, and shown, as the integer it is.
            if let (Kind::Number { integer: true, .. }, Some(Value::Number(n))) = (&kind, &default)
                && let Some(f) = n.as_f64()
                && f.fract() == 0.0
                && f.abs() < 9e15
            {
                default = Some(Value::from(f as i64));
            }
            Ok(Field {
                name: name.clone(),
                title: text(property, "title"),
                description: text(property, "description"),
                required: required.contains(&name.as_str()),
                default,
                kind,
            })
        })
        .collect()
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// The options of `enum` (with the legacy `enumNames` as titles) or of `oneOf`/`anyOf`
/// (`const` and `title`).
fn options(schema: &Value) -> Option<Vec<(String, Option<String>)>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        return Some(
            values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| {
                    let title = names
                        .and_then(|n| n.get(i))
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    Some((v.as_str()?.to_owned(), title))
                })
                .collect(),
        );
    }
    let titled = schema
        .get("oneOf")
        .or_else(|| schema.get("anyOf"))
        .and_then(Value::as_array)?;
    Some(
        titled
            .iter()
            .filter_map(|o| Some((o.get("const")?.as_str()?.to_owned(), text(o, "title"))))
            .collect(),
    )
}

fn kind(property: &Value) -> Result<Kind, String> {
    let count = |key| property.get(key).and_then(Value::as_u64);
    let bound = |key| property.get(key).and_then(Value::as_f64);
    match property.get("type").and_then(Value::as_str) {
        Some("boolean") => Ok(Kind::Boolean),
        Some("number") | Some("integer") => Ok(Kind::Number {
            integer: property["type"] == "integer",
            min: bound("minimum"),
            max: bound("maximum"),
        }),
        Some("array") => {
            let options = property
                .get("items")
                .and_then(options)
                .filter(|o| !o.is_empty())
                .ok_or("an array without options")?;
            Ok(Kind::Multi {
                options,
                min: count("minItems"),
                max: count("maxItems"),
            })
        }
        Some("string") | None => match options(property).filter(|o| !o.is_empty()) {
            Some(options) => Ok(Kind::Choice(options)),
            None if property.get("type").is_some() => Ok(Kind::Text {
                min: count("minLength"),
                max: count("maxLength"),
                format: text(property, "format"),
            }),
            None => Err("no type".to_owned()),
        },
        Some(other) => Err(format!("type {other}")),
    }
}

impl Field {
    /// The lines shown before the field's prompt.
    fn heading(&self) -> String {
        let mut what = match &self.kind {
            Kind::Text { format, .. } => match format {
                Some(format) => format!("text, {format}"),
                None => "text".to_owned(),
            },
            Kind::Number { integer: true, .. } => "integer".to_owned(),
            Kind::Number { .. } => "number".to_owned(),
            Kind::Boolean => "y/n".to_owned(),
            Kind::Choice(_) => "one of".to_owned(),
            Kind::Multi { .. } => "some of, separated by commas".to_owned(),
        };
        if let Kind::Number { min, max, .. } = &self.kind {
            match (min, max) {
                (Some(a), Some(b)) => what.push_str(&format!(", {a} to {b}")),
                (Some(a), None) => what.push_str(&format!(", at least {a}")),
                (None, Some(b)) => what.push_str(&format!(", at most {b}")),
                (None, None) => {}
            }
        }
        what.push_str(if self.required {
            ", required"
        } else {
            ", optional"
        });
        if let Some(default) = &self.default {
            what.push_str(&format!(", default {}", show_default(default)));
        }
        let mut heading = format!("{} ({what})", self.title.as_deref().unwrap_or(&self.name));
        if let Some(description) = &self.description {
            heading.push_str(&format!(": {description}"));
        }
        heading.push('\n');
        if let Kind::Choice(options) | Kind::Multi { options, .. } = &self.kind {
            for (i, (value, title)) in options.iter().enumerate() {
                match title {
                    Some(title) => heading.push_str(&format!("  {}) {title} [{value}]\n", i + 1)),
                    None => heading.push_str(&format!("  {}) {value}\n", i + 1)),
                }
            }
        }
        heading
    }

    /// What `line` answers for this field, or why it is not an answer.
    fn answer(&self, line: &str) -> Result<Answer, String> {
        let input = line.trim();
        match input {
            "/decline" => return Ok(Answer::Decline),
            "/cancel" => return Ok(Answer::Cancel),
            "" => {
                return match &self.default {
                    Some(default) => default_value(default)
                        .map(Answer::Value)
                        .ok_or_else(|| "the default is not a form value; type one".to_owned()),
                    None if self.required => Err("this field is required".to_owned()),
                    None => Ok(Answer::Skip),
                };
            }
            _ => {}
        }
        let value = match &self.kind {
            Kind::Boolean => match input.to_ascii_lowercase().as_str() {
                "y" | "yes" | "true" => ElicitValue::Boolean(true),
                "n" | "no" | "false" => ElicitValue::Boolean(false),
                _ => return Err("answer y or n".to_owned()),
            },
            Kind::Number { integer, min, max } => {
                let number: serde_json::Number = serde_json::from_str(input)
                    .map_err(|_| format!("`{input}` is not a number"))?;
                let f = number.as_f64().unwrap_or(f64::NAN);
                if *integer && !(number.is_i64() || number.is_u64()) {
                    return Err(format!("`{input}` is not an integer"));
                }
                if min.is_some_and(|m| f < m) || max.is_some_and(|m| f > m) || f.is_nan() {
                    return Err(format!("`{input}` is out of range"));
                }
                ElicitValue::Number(number)
            }
            Kind::Text { min, max, format } => {
                let length = input.chars().count() as u64;
                if min.is_some_and(|m| length < m) {
                    return Err(format!("at least {} characters", min.unwrap_or_default()));
                }
                if max.is_some_and(|m| length > m) {
                    return Err(format!("at most {} characters", max.unwrap_or_default()));
                }
                if format.as_deref() == Some("email") && !input.contains('@') {
                    return Err(format!("`{input}` is not an email address"));
                }
                ElicitValue::String(input.to_owned())
            }
            Kind::Choice(options) => ElicitValue::String(choose(options, input)?),
            Kind::Multi { options, min, max } => {
                let mut chosen = Vec::new();
                for part in input.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    let value = choose(options, part)?;
                    if !chosen.contains(&value) {
                        chosen.push(value);
                    }
                }
                let n = chosen.len() as u64;
                if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
                    return Err(format!(
                        "choose {} to {}",
                        min.unwrap_or(0),
                        max.map_or("any".to_owned(), |m| m.to_string())
                    ));
                }
                ElicitValue::StringArray(chosen)
            }
        };
        Ok(Answer::Value(value))
    }
}

/// The option `input` names: by its number, its value or its title.
fn choose(options: &[(String, Option<String>)], input: &str) -> Result<String, String> {
    if let Ok(n) = input.parse::<usize>()
        && let Some((value, _)) = n.checked_sub(1).and_then(|i| options.get(i))
    {
        return Ok(value.clone());
    }
    options
        .iter()
        .find(|(value, title)| value == input || title.as_deref() == Some(input))
        .map(|(value, _)| value.clone())
        .ok_or_else(|| format!("`{input}` is not one of the options"))
}

/// A schema's `default` as a form value, if it is one.
fn default_value(default: &Value) -> Option<ElicitValue> {
    serde_json::from_value(default.clone()).ok()
}

fn show_default(default: &Value) -> String {
    match default {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_owned))
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests;
