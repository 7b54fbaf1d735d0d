//! Zone files: JSON arrays of zones in their file form ([`ZoneDoc::from_file_entry`]),
//! and what every file of zones shares: [`NamedZone`], [`ManifestError`] (which names
//! the file, the entry and the field) and the id checks.
//!
//! A zone file is a pure function from JSON text to [`NamedZone`]s in file order, with
//! heights left unresolved ([`ZoneSpec::resolve`] turns an offset into metres). The
//! game manifests of the Hyperscape world use the same types; their derivation lives
//! with that game (`generator::hyperscape::manifest`).

use std::collections::HashMap;

use serde_json::Value;

use super::doc::{DocError, ZoneDoc};
use super::model::{ZoneError, ZoneLimits, ZoneSpec, validate_id};

const ZONE_FILE: &str = "zone file";

/// A zone as a file describes it: its id and its unresolved spec.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedZone {
    pub id: String,
    pub spec: ZoneSpec,
}

/// Why a zone file or a game manifest was refused. Each message starts with the file
/// (`zone file`, or a manifest such as `stations.json`) and the path of the offending
/// entry and field, e.g. `stations.json: stations[3].flattenPadding`.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The text is not JSON (the source says where).
    #[error("{file}: not valid JSON: {source}")]
    Json {
        file: &'static str,
        #[source]
        source: serde_json::Error,
    },
    /// A field is missing, has the wrong type, or holds a refused value.
    #[error("{file}: {field}: {reason}")]
    Field {
        file: &'static str,
        field: String,
        reason: String,
    },
    /// The zone derived from `entry` is invalid; the source names the zone field.
    #[error("{file}: {entry}.{source}")]
    Zone {
        file: &'static str,
        entry: String,
        #[source]
        source: ZoneError,
    },
}

impl ManifestError {
    /// The file the error is about.
    pub fn file(&self) -> &'static str {
        match self {
            Self::Json { file, .. } | Self::Field { file, .. } | Self::Zone { file, .. } => file,
        }
    }
}

/// A [`ManifestError::Field`]; an empty `field` is the top level of the file.
pub(crate) fn field_error(
    file: &'static str,
    field: &str,
    reason: impl Into<String>,
) -> ManifestError {
    let field = if field.is_empty() {
        "(top level)"
    } else {
        field
    };
    ManifestError::Field {
        file,
        field: field.to_string(),
        reason: reason.into(),
    }
}

/// Parses `json`, the text of `file`.
pub(crate) fn parse(file: &'static str, json: &str) -> Result<Value, ManifestError> {
    serde_json::from_str(json).map_err(|source| ManifestError::Json { file, source })
}

/// What a JSON value is, for error messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Checks `id` and `spec` of the zone derived from `entry` and names it.
pub(crate) fn named(
    file: &'static str,
    entry: &str,
    id: String,
    spec: ZoneSpec,
) -> Result<NamedZone, ManifestError> {
    let zone_error = |source| ManifestError::Zone {
        file,
        entry: entry.to_string(),
        source,
    };
    validate_id(&id).map_err(zone_error)?;
    spec.validate(&ZoneLimits::default()).map_err(zone_error)?;
    Ok(NamedZone { id, spec })
}

/// Zone ids seen so far, with the entry that gave each.
#[derive(Default)]
pub(crate) struct SeenIds(HashMap<String, String>);

impl SeenIds {
    pub(crate) fn check(
        &mut self,
        file: &'static str,
        entry: &str,
        id: &str,
    ) -> Result<(), ManifestError> {
        if let Some(first) = self.0.get(id) {
            return Err(field_error(
                file,
                &format!("{entry}.id"),
                format!("duplicate zone id {id:?} (first from {first})"),
            ));
        }
        self.0.insert(id.to_string(), entry.to_string());
        Ok(())
    }
}

/// The error of entry `entry` of a zone file: `zones[i].field: reason`, or
/// `zones[i]: ...` when no one field is to blame (serde's wording for a missing key,
/// which the zone file has always used).
fn entry_error(entry: &str, err: DocError) -> ManifestError {
    match err {
        DocError::Document(reason) => field_error(ZONE_FILE, entry, reason),
        DocError::Missing(field) => {
            field_error(ZONE_FILE, entry, format!("missing field `{field}`"))
        }
        other => {
            let field = other.field().unwrap_or_default();
            field_error(ZONE_FILE, &format!("{entry}.{field}"), other.reason())
        }
    }
}

fn zone_entry(entry: &str, v: &Value) -> Result<NamedZone, ManifestError> {
    let doc = ZoneDoc::from_file_entry(v).map_err(|e| entry_error(entry, e))?;
    let id = doc
        .id
        .clone()
        .ok_or_else(|| field_error(ZONE_FILE, &format!("{entry}.id"), "required"))?;
    let spec = doc.spec().map_err(|source| ManifestError::Zone {
        file: ZONE_FILE,
        entry: entry.to_string(),
        source,
    })?;
    named(ZONE_FILE, entry, id, spec)
}

/// A zone file: a JSON array of zones ([`ZoneDoc`]'s keys, unknown keys refused), each
/// with a unique, valid `id`. Errors name the entry as `zones[i]`.
pub fn parse_zone_file(json: &str) -> Result<Vec<NamedZone>, ManifestError> {
    let doc = parse(ZONE_FILE, json)?;
    let Value::Array(items) = &doc else {
        let reason = format!("expected an array of zones, got {}", kind(&doc));
        return Err(field_error(ZONE_FILE, "", reason));
    };
    let mut seen = SeenIds::default();
    let mut zones = Vec::with_capacity(items.len());
    for (i, v) in items.iter().enumerate() {
        let entry = format!("zones[{i}]");
        let zone = zone_entry(&entry, v)?;
        seen.check(ZONE_FILE, &entry, &zone.id)?;
        zones.push(zone);
    }
    Ok(zones)
}
