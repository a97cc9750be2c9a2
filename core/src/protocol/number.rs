//! JSON numbers held as `f64`: whole values are written as integers, so that a `50` read
//! from the wire is written back as `50`, not `50.0`.

use serde::Serializer;

/// The largest magnitude below which every whole `f64` is an exact integer (2^53).
const EXACT_INTEGER_LIMIT: f64 = 9_007_199_254_740_992.0;

/// Writes `value` as an integer when it is whole, else as a float.
pub(crate) fn serialize<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    if value.fract() == 0.0 && value.abs() < EXACT_INTEGER_LIMIT {
        // Exact: the value is whole and within the range where the cast loses nothing.
        serializer.serialize_i64(*value as i64)
    } else {
        serializer.serialize_f64(*value)
    }
}

/// [`serialize`] for an optional member (used with `skip_serializing_if`).
pub(crate) fn serialize_option<S: Serializer>(value: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => serialize(value, serializer),
        None => serializer.serialize_none(),
    }
}
