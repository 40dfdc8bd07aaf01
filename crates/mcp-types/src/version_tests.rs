use super::*;

use ProtocolVersion as V;

#[test]
fn all_is_ascending_and_known() {
    let mut sorted = V::ALL.to_vec();
    sorted.sort();
    assert_eq!(sorted, V::ALL);
    assert_eq!(V::ALL.last(), Some(&V::LATEST));
    assert!(V::ALL.iter().all(V::is_known));
}

#[test]
fn parse_display_and_serde() {
    for v in V::ALL {
        let parsed: V = v.as_str().parse().unwrap_or_else(|e| match e {});
        assert_eq!(&parsed, v);
        assert!(!matches!(parsed, V::Unknown(_)));
        assert_eq!(v.to_string(), v.as_str());
        let json = serde_json::to_value(v).expect("serialize");
        assert_eq!(json, serde_json::Value::String(v.as_str().to_owned()));
        assert_eq!(&serde_json::from_value::<V>(json).expect("deserialize"), v);
    }
    let unknown: V = serde_json::from_str("\"1900-01-01\"").expect("deserialize");
    assert_eq!(unknown, V::Unknown("1900-01-01".to_owned()));
    assert!(!unknown.is_known());
    assert_eq!(
        serde_json::to_string(&unknown).expect("serialize"),
        "\"1900-01-01\""
    );
    assert!(serde_json::from_str::<V>("20250618").is_err());
}

#[test]
fn unknown_holding_a_known_string_equals_it() {
    use std::collections::HashSet;
    let odd = V::Unknown("2025-06-18".to_owned());
    assert_eq!(odd, V::V2025_06_18);
    assert_eq!(odd.cmp(&V::V2025_06_18), Ordering::Equal);
    let set: HashSet<V> = [odd, V::V2025_06_18].into_iter().collect();
    assert_eq!(set.len(), 1);
    assert_eq!(String::from(V::V2025_06_18), "2025-06-18");
    assert_eq!(V::from("2025-06-18".to_owned()), V::V2025_06_18);
}

#[test]
fn ordering_is_by_date() {
    assert!(V::V2024_11_05 < V::V2025_03_26);
    assert!(V::V2025_11_25 < V::V2026_07_28);
    assert!(V::from("2025-01-01") > V::V2024_11_05);
    assert!(V::from("2025-01-01") < V::V2025_03_26);
    assert!(V::from("2027-01-01") > V::LATEST);
}

#[test]
fn negotiation() {
    let server = [V::V2025_03_26, V::V2025_11_25, V::V2025_06_18];
    assert_eq!(V::negotiate(&V::V2025_06_18, &server), V::V2025_06_18);
    assert_eq!(V::negotiate(&V::V2024_11_05, &server), V::V2025_11_25);
    assert_eq!(V::negotiate(&V::V2026_07_28, &server), V::V2025_11_25);
    assert_eq!(
        V::negotiate(&V::from("2030-01-01"), &server),
        V::V2025_11_25
    );
    assert_eq!(V::negotiate(&V::V2024_11_05, V::ALL), V::V2024_11_05);
    assert_eq!(V::negotiate(&V::V2024_11_05, &[]), V::V2024_11_05);
}

#[test]
fn eras_and_features() {
    for v in &V::ALL[..4] {
        assert_eq!(v.era(), Era::Stateful);
        assert!(v.has_initialize());
        assert!(!v.has_result_type());
    }
    assert_eq!(V::V2026_07_28.era(), Era::Stateless);
    assert!(!V::V2026_07_28.has_initialize());
    assert_eq!(V::from("2027-03-01").era(), Era::Stateless);
    assert_eq!(V::from("2024-01-01").era(), Era::Stateful);

    let batching: Vec<&V> = V::ALL.iter().filter(|v| v.supports_batching()).collect();
    assert_eq!(batching, [&V::V2025_03_26]);
    assert!(!V::V2025_03_26.has_elicitation());
    assert!(V::V2025_06_18.has_elicitation());
    assert!(!V::V2025_06_18.has_url_elicitation());
    assert!(V::V2026_07_28.has_url_elicitation());
    assert!(V::V2025_06_18.has_structured_content());
    assert!(!V::V2025_03_26.has_structured_content());
    assert!(V::V2025_11_25.has_core_tasks());
    assert!(!V::V2026_07_28.has_core_tasks());
    assert_eq!(V::default(), V::LATEST);
}
