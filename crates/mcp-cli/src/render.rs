//! The human-readable output: what each command prints on stdout without `--json`. It reads
//! the results as JSON, so that fields a revision adds are shown as they come.

use std::fmt::Write as _;

use serde_json::Value;

/// Bold names when stdout is a terminal (and `NO_COLOR` is not set).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    pub(crate) color: bool,
}

impl Style {
    fn bold(self, text: &str) -> String {
        if self.color {
            format!("\x1b[1m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    fn dim(self, text: &str) -> String {
        if self.color {
            format!("\x1b[2m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
}

fn str_of<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// `name`, then ` (title)` when the title says something else.
fn named(item: &Value, style: Style) -> String {
    let name = str_of(item, "name").unwrap_or("?");
    match str_of(item, "title") {
        Some(title) if title != name => format!("{} ({title})", style.bold(name)),
        _ => style.bold(name),
    }
}

/// The type of a property of a JSON Schema, in a few words.
fn schema_type(schema: &Value) -> String {
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        let options: Vec<String> = options.iter().map(short).collect();
        return format!("one of {}", options.join("|"));
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "array" => match schema.get("items") {
            Some(items) if items.get("type").is_some() || items.get("enum").is_some() => {
                format!("array of {}", schema_type(items))
            }
            _ => "array".to_owned(),
        },
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts.iter().map(short).collect::<Vec<_>>().join("|"),
        _ if schema.get("$ref").is_some() => "see schema".to_owned(),
        _ => "any".to_owned(),
    }
}

/// A JSON value in a few characters: strings without quotes.
fn short(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `tools/list`.
pub(crate) fn tools(tools: &Value, style: Style) -> String {
    let mut out = String::new();
    let tools = tools.as_array().map(Vec::as_slice).unwrap_or_default();
    if tools.is_empty() {
        out.push_str("(no tools)\n");
    }
    for tool in tools {
        let _ = write!(out, "{}", named(tool, style));
        if let Some(description) = str_of(tool, "description") {
            let _ = write!(out, "  {}", first_line(description));
        }
        out.push('\n');
        let schema = &tool["inputSchema"];
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(properties) = schema["properties"].as_object() {
            for (name, property) in properties {
                let mut line = format!("    {name}: {}", schema_type(property));
                if required.contains(&name.as_str()) {
                    line.push_str(", required");
                }
                if let Some(default) = property.get("default") {
                    let _ = write!(line, ", default {}", short(default));
                }
                if let Some(description) = str_of(property, "description") {
                    let _ = write!(line, "  {}", style.dim(first_line(description)));
                }
                out.push_str(&line);
                out.push('\n');
            }
        }
    }
    out
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// The content blocks of a tool result or a prompt message.
fn content(blocks: &Value, out: &mut String) {
    let blocks = match blocks {
        Value::Array(blocks) => blocks.as_slice(),
        single => std::slice::from_ref(single),
    };
    for block in blocks {
        block_text(block, out);
    }
}

/// How many bytes base64 `data` decodes to: 3 per 4 characters, less the padding.
fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|b| *b == b'=').count();
    (data.len() / 4 * 3).saturating_sub(padding)
}

fn block_text(block: &Value, out: &mut String) {
    let size = |key: &str| decoded_len(str_of(block, key).unwrap_or_default());
    let mime = str_of(block, "mimeType").unwrap_or("?");
    match str_of(block, "type") {
        Some("text") => line(out, str_of(block, "text").unwrap_or_default()),
        Some(kind @ ("image" | "audio")) => {
            line(out, &format!("[{kind} {mime}, {} bytes]", size("data")));
        }
        Some("resource_link") => line(
            out,
            &format!(
                "[link {} ({})]",
                str_of(block, "uri").unwrap_or("?"),
                str_of(block, "name").unwrap_or("?")
            ),
        ),
        Some("resource") => {
            let resource = &block["resource"];
            let uri = str_of(resource, "uri").unwrap_or("?");
            let mime = str_of(resource, "mimeType").unwrap_or("?");
            match str_of(resource, "text") {
                Some(text) => {
                    line(out, &format!("[resource {uri} ({mime})]"));
                    line(out, text);
                }
                None => {
                    let bytes = decoded_len(str_of(resource, "blob").unwrap_or_default());
                    line(out, &format!("[resource {uri} ({mime}), {bytes} bytes]"));
                }
            }
        }
        _ => line(out, &block.to_string()),
    }
}

/// `text`, ending with one newline.
fn line(out: &mut String, text: &str) {
    out.push_str(text);
    if !text.ends_with('\n') {
        out.push('\n');
    }
}

/// `tools/call`: the content, else the structured content as JSON.
pub(crate) fn call_result(result: &Value) -> String {
    let mut out = String::new();
    let blocks = result["content"].as_array().map(Vec::len).unwrap_or(0);
    if blocks > 0 {
        content(&result["content"], &mut out);
    } else if let Some(structured) = result.get("structuredContent") {
        line(
            &mut out,
            &serde_json::to_string_pretty(structured).unwrap_or_default(),
        );
    }
    out
}

/// `resources/list` and `resources/templates/list`.
pub(crate) fn resources(resources: &Value, templates: &Value, style: Style) -> String {
    let mut out = String::new();
    let mut section = |title: &str, items: &Value, key: &str| {
        let items = items.as_array().map(Vec::as_slice).unwrap_or_default();
        if items.is_empty() {
            return;
        }
        let _ = writeln!(out, "{title}:");
        for item in items {
            let _ = write!(
                out,
                "  {}  {}",
                style.bold(str_of(item, key).unwrap_or("?")),
                named(item, Style { color: false })
            );
            if let Some(mime) = str_of(item, "mimeType") {
                let _ = write!(out, " [{mime}]");
            }
            if let Some(description) = str_of(item, "description") {
                let _ = write!(out, "  {}", style.dim(first_line(description)));
            }
            out.push('\n');
        }
    };
    section("Resources", resources, "uri");
    section("Resource templates", templates, "uriTemplate");
    if out.is_empty() {
        out.push_str("(no resources)\n");
    }
    out
}

/// `resources/read`: text as it is, blobs as a line saying what they are.
pub(crate) fn read_result(result: &Value) -> String {
    let mut out = String::new();
    let contents = result["contents"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let many = contents.len() > 1;
    for item in contents {
        let uri = str_of(item, "uri").unwrap_or("?");
        let mime = str_of(item, "mimeType").unwrap_or("?");
        if let Some(text) = str_of(item, "text") {
            if many {
                line(&mut out, &format!("[{uri} ({mime})]"));
            }
            line(&mut out, text);
        } else {
            let bytes = decoded_len(str_of(item, "blob").unwrap_or_default());
            line(
                &mut out,
                &format!(
                    "[{uri} ({mime}), {bytes} bytes of binary data: redirect stdout to a file to save it]"
                ),
            );
        }
    }
    out
}

/// `prompts/list`.
pub(crate) fn prompts(prompts: &Value, style: Style) -> String {
    let mut out = String::new();
    let prompts = prompts.as_array().map(Vec::as_slice).unwrap_or_default();
    if prompts.is_empty() {
        out.push_str("(no prompts)\n");
    }
    for prompt in prompts {
        let _ = write!(out, "{}", named(prompt, style));
        if let Some(description) = str_of(prompt, "description") {
            let _ = write!(out, "  {}", first_line(description));
        }
        out.push('\n');
        for argument in prompt["arguments"].as_array().into_iter().flatten() {
            let _ = write!(out, "    {}", str_of(argument, "name").unwrap_or("?"));
            if argument["required"] == true {
                out.push_str(", required");
            }
            if let Some(description) = str_of(argument, "description") {
                let _ = write!(out, "  {}", style.dim(first_line(description)));
            }
            out.push('\n');
        }
    }
    out
}

/// `prompts/get`: each message as `role: content`.
pub(crate) fn prompt_result(result: &Value) -> String {
    let mut out = String::new();
    for message in result["messages"].as_array().into_iter().flatten() {
        let mut body = String::new();
        content(&message["content"], &mut body);
        let _ = write!(out, "{}: {body}", str_of(message, "role").unwrap_or("?"));
    }
    out
}

/// `completion/complete`: one value a line.
pub(crate) fn completion(result: &Value) -> String {
    let mut out = String::new();
    for value in result["completion"]["values"]
        .as_array()
        .into_iter()
        .flatten()
    {
        line(&mut out, &short(value));
    }
    out
}

/// `skills/list`.
pub(crate) fn skills(skills: &Value, style: Style) -> String {
    let mut out = String::new();
    let skills = skills.as_array().map(Vec::as_slice).unwrap_or_default();
    if skills.is_empty() {
        out.push_str("(no skills)\n");
    }
    for skill in skills {
        let frontmatter = &skill["frontmatter"];
        let name = str_of(frontmatter, "name").unwrap_or("?");
        let _ = write!(out, "{}", style.bold(name));
        if let Some(description) = str_of(frontmatter, "description") {
            let _ = write!(out, "  {}", first_line(description));
        }
        out.push('\n');
        let files = match &skill["resources"] {
            Value::Array(files) if files.len() == 1 => "1 file".to_owned(),
            Value::Array(files) => format!("{} files", files.len()),
            Value::String(kind) => kind.clone(),
            _ => "?".to_owned(),
        };
        let _ = writeln!(
            out,
            "    {} ({files})",
            style.dim(str_of(skill, "uri").unwrap_or("?"))
        );
    }
    out
}

/// `mcp info`.
pub(crate) fn info(info: &Value, style: Style) -> String {
    let mut out = String::new();
    let server = &info["serverInfo"];
    let _ = writeln!(
        out,
        "server: {} {}",
        named(server, style),
        str_of(server, "version").unwrap_or("?")
    );
    let _ = writeln!(
        out,
        "protocol: {} ({} era)",
        str_of(info, "protocolVersion").unwrap_or("?"),
        str_of(info, "era").unwrap_or("?")
    );
    let mut capabilities = Vec::new();
    for (name, value) in info["capabilities"].as_object().into_iter().flatten() {
        if name == "extensions" {
            for extension in value.as_object().into_iter().flatten().map(|(k, _)| k) {
                capabilities.push(format!("extension {extension}"));
            }
            continue;
        }
        let flags: Vec<&str> = value
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(_, v)| **v == true)
            .map(|(k, _)| k.as_str())
            .collect();
        if flags.is_empty() {
            capabilities.push(name.clone());
        } else {
            capabilities.push(format!("{name} ({})", flags.join(", ")));
        }
    }
    let _ = writeln!(out, "capabilities: {}", capabilities.join(", "));
    if let Some(instructions) = str_of(info, "instructions") {
        let _ = writeln!(out, "instructions: {instructions}");
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const PLAIN: Style = Style { color: false };

    #[test]
    fn tools_with_their_arguments() {
        let list = json!([{
            "name": "add",
            "title": "Adder",
            "description": "Adds two numbers\nand more",
            "inputSchema": {"type": "object", "properties": {
                "a": {"type": "number", "description": "First"},
                "mode": {"enum": ["fast", "slow"], "default": "fast"},
                "tags": {"type": "array", "items": {"type": "string"}},
            }, "required": ["a"]},
        }]);
        assert_eq!(
            tools(&list, PLAIN),
            "add (Adder)  Adds two numbers\n    a: number, required  First\n    \
             mode: one of fast|slow, default fast\n    tags: array of string\n"
        );
        assert_eq!(tools(&json!([]), PLAIN), "(no tools)\n");
        assert!(tools(&list, Style { color: true }).contains("\x1b[1madd\x1b[0m"));
    }

    #[test]
    fn tool_results_block_by_block() {
        let result = json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "test://r", "mimeType": "text/plain", "text": "inside"}},
            {"type": "resource_link", "uri": "test://l", "name": "l"},
            {"type": "unknown", "x": 1},
        ]});
        assert_eq!(
            call_result(&result),
            "hello\n[image image/png, 8 bytes]\n[resource test://r (text/plain)]\ninside\n\
             [link test://l (l)]\n{\"type\":\"unknown\",\"x\":1}\n"
        );
        let structured = json!({"content": [], "structuredContent": {"sum": 3}});
        assert_eq!(call_result(&structured), "{\n  \"sum\": 3\n}\n");
        assert_eq!(call_result(&json!({})), "");
    }

    #[test]
    fn resources_reads_prompts_completions_skills_info() {
        let listed = resources(
            &json!([{"uri": "test://a", "name": "a", "mimeType": "text/plain"}]),
            &json!([{"uriTemplate": "test://t/{id}", "name": "t", "description": "T"}]),
            PLAIN,
        );
        assert_eq!(
            listed,
            "Resources:\n  test://a  a [text/plain]\nResource templates:\n  test://t/{id}  t  T\n"
        );
        let read = json!({"contents": [{"uri": "test://a", "text": "hi"},
            {"uri": "test://b", "mimeType": "image/png", "blob": "AAAA"}]});
        let shown = read_result(&read);
        assert!(
            shown.starts_with("[test://a (?)]\nhi\n[test://b (image/png), 3 bytes"),
            "{shown}"
        );
        let listed = prompts(
            &json!([{"name": "greet", "arguments": [{"name": "name", "required": true}]}]),
            PLAIN,
        );
        assert_eq!(listed, "greet\n    name, required\n");
        let got =
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}]});
        assert_eq!(prompt_result(&got), "user: Hi\n");
        let completed = json!({"completion": {"values": ["Alice", "Bob"], "hasMore": false}});
        assert_eq!(completion(&completed), "Alice\nBob\n");
        let listed = skills(
            &json!([{"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "A"},
                "resources": [{}, {}]}]),
            PLAIN,
        );
        assert_eq!(listed, "a  A\n    skill://a/SKILL.md (2 files)\n");
        let shown = info(
            &json!({"serverInfo": {"name": "s", "version": "1"}, "protocolVersion": "2026-07-28",
                "era": "stateless", "capabilities": {"tools": {"listChanged": true}, "logging": {},
                "extensions": {"io.modelcontextprotocol/skills": {}}}}),
            PLAIN,
        );
        assert_eq!(
            shown,
            "server: s 1\nprotocol: 2026-07-28 (stateless era)\ncapabilities: \
             extension io.modelcontextprotocol/skills, logging, tools (listChanged)\n"
        );
    }
}
