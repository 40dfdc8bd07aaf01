//! The schemas `schema_object` derives: no numeric `format` of schemars'.

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::schema_object;

#[allow(dead_code)] // Only its schema is used.
#[derive(JsonSchema)]
struct Inner {
    small: u8,
    #[schemars(extend("format" = "date-time"))]
    at: String,
}

#[allow(dead_code)] // Only its schema is used.
#[derive(JsonSchema)]
struct Numbers {
    byte: u8,
    signed: i32,
    big: u64,
    ratio: f64,
    maybe: Option<u16>,
    list: Vec<u32>,
    inner: Inner,
    inners: Vec<Inner>,
    #[schemars(extend("format" = "uri"))]
    link: String,
}

/// Every `format` anywhere in `schema`, with its JSON pointer.
fn formats(schema: &Value, at: &str, out: &mut Vec<(String, String)>) {
    match schema {
        Value::Object(o) => {
            for (k, v) in o {
                let here = format!("{at}/{k}");
                match (k.as_str(), v) {
                    ("format", Value::String(f)) => out.push((here, f.clone())),
                    _ => formats(v, &here, out),
                }
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                formats(v, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn numeric_formats_are_dropped_everywhere_and_ranges_kept() {
    let schema = Value::Object(schema_object::<Numbers>());
    let mut found = Vec::new();
    formats(&schema, "", &mut found);
    let found: Vec<(&str, &str)> = found
        .iter()
        .map(|(at, f)| (at.as_str(), f.as_str()))
        .collect();
    // Only the two formats set by hand remain (`Inner` is under `$defs`).
    assert_eq!(
        found,
        [
            ("/$defs/Inner/properties/at/format", "date-time"),
            ("/properties/link/format", "uri"),
        ],
        "{schema:#}"
    );

    let props = &schema["properties"];
    assert_eq!(
        props["byte"],
        json!({"type": "integer", "minimum": 0, "maximum": 255})
    );
    assert_eq!(props["signed"], json!({"type": "integer"}));
    assert_eq!(props["big"], json!({"type": "integer", "minimum": 0}));
    assert_eq!(props["ratio"], json!({"type": "number"}));
    assert_eq!(
        props["maybe"],
        json!({"type": ["integer", "null"], "minimum": 0, "maximum": 65535})
    );
    assert_eq!(
        props["list"],
        json!({"type": "array", "items": {"type": "integer", "minimum": 0}})
    );
    assert_eq!(
        schema["$defs"]["Inner"]["properties"]["small"],
        json!({"type": "integer", "minimum": 0, "maximum": 255})
    );
}

#[test]
fn a_format_on_a_string_is_kept_even_if_it_reads_like_a_numeric_one() {
    #[allow(dead_code)] // Only its schema is used.
    #[derive(JsonSchema)]
    struct Odd {
        #[schemars(extend("format" = "int32"))]
        code: String,
    }
    let schema = schema_object::<Odd>();
    assert_eq!(schema["properties"]["code"]["format"], "int32");
}

#[test]
fn a_typed_tools_input_and_output_schemas_have_no_numeric_format() {
    #[derive(serde::Deserialize, JsonSchema)]
    struct Args {
        count: u8,
    }
    #[derive(serde::Serialize, JsonSchema)]
    struct Item {
        weight: f32,
    }
    #[derive(serde::Serialize, JsonSchema)]
    struct Out {
        total: u64,
        items: Vec<Item>,
    }
    let tool = crate::Tool::typed("t", |args: Args| async move {
        let total = u64::from(args.count);
        crate::Json(Out {
            total,
            items: Vec::new(),
        })
    });
    let definition = tool.definition();
    let input = Value::Object(definition.input_schema.clone());
    let output = definition
        .output_schema
        .clone()
        .expect("Json<Out> gives one");
    let output = Value::Object(output);
    assert_eq!(
        output["$defs"]["Item"]["properties"]["weight"],
        json!({"type": "number"})
    );
    for schema in [input, output] {
        let mut found = Vec::new();
        formats(&schema, "", &mut found);
        assert!(found.is_empty(), "{schema:#}");
        assert!(schema.to_string().contains(r#""minimum":0"#), "{schema:#}");
    }
}
