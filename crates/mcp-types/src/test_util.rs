//! Helpers shared by the unit tests of the protocol-area modules.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Numbers compare numerically: `18` and `18.0` are the same.
fn normalize(v: Value) -> Value {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(f) => serde_json::json!(f),
            None => Value::Number(n),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(normalize).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, normalize(v))).collect()),
        other => other,
    }
}

/// Decodes `json` as `T`, encodes it again and checks the two are JSON-equal. Returns the value.
#[track_caller]
pub(crate) fn round_trip<T: Serialize + DeserializeOwned>(json: &str) -> T {
    let input: Value = serde_json::from_str(json).expect("test JSON is valid");
    let typed: T = match serde_json::from_value(input.clone()) {
        Ok(t) => t,
        Err(e) => panic!(
            "decoding {} failed: {e}\n{json}",
            std::any::type_name::<T>()
        ),
    };
    let output = serde_json::to_value(&typed).expect("encodes");
    assert_eq!(
        normalize(output),
        normalize(input),
        "round trip of {}",
        std::any::type_name::<T>()
    );
    typed
}

/// Decoding `json` as `T` fails; returns the error message.
#[track_caller]
pub(crate) fn decode_err<T: DeserializeOwned + std::fmt::Debug>(json: &str) -> String {
    match serde_json::from_str::<T>(json) {
        Ok(t) => panic!(
            "decoding {} unexpectedly succeeded: {t:?}",
            std::any::type_name::<T>()
        ),
        Err(e) => e.to_string(),
    }
}
