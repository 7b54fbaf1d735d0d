//! Serde decoders for the file's values, each checking with the same function as the
//! key's flag (from [`super::values`]), so a value means the same thing (and is refused
//! with the same words) whichever source gives it. Used as `deserialize_with` on the
//! `Option` fields of [`super::Settings`].

use std::{fmt, net::SocketAddr, str::FromStr, time::Duration};

use serde::{
    Deserialize, Deserializer,
    de::{self, Visitor},
};

use super::{
    lifecycle::{self, WarmRadius},
    values,
};

/// A string checked by `parse`.
fn with<'de, D, T>(d: D, parse: fn(&str) -> Result<T, String>) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
{
    let text = String::deserialize(d)?;
    parse(&text).map(Some).map_err(de::Error::custom)
}

/// A string parsed by the type's [`FromStr`] (`admin_token`, `log_format`, ...).
pub fn parsed<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr,
    T::Err: fmt::Display,
{
    let text = String::deserialize(d)?;
    text.parse().map(Some).map_err(de::Error::custom)
}

/// `listen`: a socket address such as `"127.0.0.1:8080"`.
pub fn listen<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SocketAddr>, D::Error> {
    with(d, values::parse_listen)
}

/// A count limit: an integer, at least 1.
pub fn limit<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    let v = d.deserialize_any(Integer)?;
    let v = usize::try_from(v).unwrap_or(0);
    values::check_limit(v).map_err(de::Error::custom)?;
    Ok(Some(v))
}

/// `compute_nice`: an integer checked by [`values::check_compute_nice`].
pub fn compute_nice<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u8>, D::Error> {
    let v = d.deserialize_any(Integer)?;
    values::check_compute_nice(v)
        .map(Some)
        .map_err(de::Error::custom)
}

/// A finite number greater than 0 (an integer is accepted too): `max_zone_size`.
pub fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let v = d.deserialize_any(Number)?;
    values::check_positive(v).map_err(de::Error::custom)?;
    Ok(Some(v))
}

/// `max_coordinate`: a number checked by [`values::check_max_coordinate`].
pub fn max_coordinate<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    let v = d.deserialize_any(Number)?;
    values::check_max_coordinate(v).map_err(de::Error::custom)?;
    Ok(Some(v))
}

/// A duration: `"10s"`-style text, or a number of seconds.
pub fn duration<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    d.deserialize_any(DurationVisitor).map(Some)
}

/// Any integer; the caller checks its range.
struct Integer;

impl Visitor<'_> for Integer {
    type Value = i64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an integer")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<i64, E> {
        Ok(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<i64, E> {
        Ok(i64::try_from(v).unwrap_or(i64::MAX))
    }
}

/// Any number, an integer included; the caller checks its range.
struct Number;

impl Visitor<'_> for Number {
    type Value = f64;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a number")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        Ok(v as f64)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        Ok(v as f64)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        Ok(v)
    }
}

/// `"10s"`, `"500ms"`, or a number of seconds.
struct DurationVisitor;

impl Visitor<'_> for DurationVisitor {
    type Value = Duration;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a duration like \"10s\"")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Duration, E> {
        values::parse_duration(v).map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Duration, E> {
        values::duration_from_secs(v as f64).map_err(E::custom)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Duration, E> {
        values::duration_from_secs(v as f64).map_err(E::custom)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Duration, E> {
        values::duration_from_secs(v).map_err(E::custom)
    }
}

/// `warm_radius`: a whole number of tiles, or `"off"`.
pub fn warm_radius<'de, D: Deserializer<'de>>(d: D) -> Result<Option<WarmRadius>, D::Error> {
    d.deserialize_any(WarmVisitor).map(Some)
}

/// `2` or `"off"`.
struct WarmVisitor;

impl Visitor<'_> for WarmVisitor {
    type Value = WarmRadius;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a whole number of tiles or \"off\"")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<WarmRadius, E> {
        lifecycle::parse_warm_flag(v).map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<WarmRadius, E> {
        u32::try_from(v)
            .map(|r| WarmRadius(Some(r)))
            .map_err(|_| E::custom(format!("must be a whole number >= 0, got {v}")))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<WarmRadius, E> {
        u32::try_from(v)
            .map(|r| WarmRadius(Some(r)))
            .map_err(|_| E::custom(format!("must be a whole number >= 0, got {v}")))
    }
}
