//! Assertions and readers shared by the tests: bit-equal heights, JSON numbers, the
//! HTTP error shape, and samples of a Prometheus exposition.

use reqwest::StatusCode;
use serde_json::Value;

/// Asserts two heights are the same f64, bit for bit.
#[track_caller]
pub fn assert_same(got: f64, want: f64, what: &str) {
    assert_eq!(
        got.to_bits(),
        want.to_bits(),
        "{what}: got {got:?}, want {want:?}"
    );
}

/// A JSON number as f64.
#[track_caller]
pub fn num(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("expected a number, got {value}"))
}

/// A JSON array of numbers.
#[track_caller]
pub fn nums(value: &Value) -> Vec<f64> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("expected an array, got {value}"))
        .iter()
        .map(num)
        .collect()
}

/// Asserts an HTTP error answer: status, `error.code` and `error.field`.
#[track_caller]
pub fn assert_http_error(
    answer: &(StatusCode, Value),
    status: u16,
    code: &str,
    field: Option<&str>,
) {
    let (got_status, body) = answer;
    let error = &body["error"];
    assert_eq!(got_status.as_u16(), status, "status of {body}");
    assert_eq!(error["code"], code, "code of {body}");
    assert_eq!(error["field"].as_str(), field, "field of {body}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(!message.is_empty(), "message of {body}");
    if let Some(field) = field {
        assert!(
            message.starts_with(field),
            "message {message:?} should start with {field:?}"
        );
    }
}

/// The value of the sample `series` (name and labels, e.g. `x_total{world="main"}`) in a
/// Prometheus text exposition.
pub fn metric_sample(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|line| {
        line.strip_prefix(series)?
            .strip_prefix(' ')?
            .trim()
            .parse()
            .ok()
    })
}
