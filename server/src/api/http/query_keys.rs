//! Unknown query keys are refused, naming the key, as unknown body fields are: a
//! misspelt parameter (`maxErr=5` for `maxError=5`) must not quietly answer something
//! else (the full-detail mesh). Each route takes exactly the query parameters its
//! operation in the OpenAPI document lists ([`super::openapi::document`]), so the
//! document and the server cannot disagree about them; the check runs after routing
//! and before the handler.
//!
//! A query string that does not decode is left to the handler, which refuses it naming
//! `query` when it reads a parameter.

use std::{
    collections::{BTreeSet, HashMap},
    sync::Arc,
};

use axum::{
    extract::{MatchedPath, Request, State},
    middleware::Next,
    response::{IntoResponse, Response},
};
use serde_json::Value;
use terrain_core::quote::Quoted;

use super::extract::Query;
use crate::api::ApiError;

/// The query keys each route takes, by its path as the router matches it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryKeys(HashMap<String, BTreeSet<String>>);

impl QueryKeys {
    /// The keys of every operation of `doc` (an OpenAPI document as JSON), by path;
    /// a path's methods share its keys.
    pub fn of_document(doc: &Value) -> Self {
        let mut keys: HashMap<String, BTreeSet<String>> = HashMap::new();
        let paths = doc["paths"].as_object().into_iter().flatten();
        for (path, item) in paths {
            let names = keys.entry(path.clone()).or_default();
            let operations = item.as_object().into_iter().flatten();
            for parameter in operations
                .filter_map(|(_, op)| op["parameters"].as_array())
                .flatten()
                .filter(|p| p["in"] == "query")
            {
                if let Some(name) = parameter["name"].as_str() {
                    names.insert(name.to_string());
                }
            }
        }
        QueryKeys(keys)
    }

    /// Refuses the first key of `query` that `route` (a matched path, `{*rest}`
    /// written `{rest}` as the document does) does not take. A route the document
    /// does not list is not checked.
    pub fn check(&self, route: &str, query: &Query) -> Result<(), ApiError> {
        let route = route.replace("{*", "{");
        let (Some(known), Ok(pairs)) = (self.0.get(&route), query.pairs()) else {
            return Ok(());
        };
        match pairs.iter().find(|(k, _)| !known.contains(k)) {
            None => Ok(()),
            Some((key, _)) => {
                let expected = if known.is_empty() {
                    "this route takes no query parameters".to_string()
                } else {
                    let names: Vec<&str> = known.iter().map(String::as_str).collect();
                    format!("expected one of {}", names.join(", "))
                };
                let reason = format!("unknown query parameter {}: {expected}", Quoted(key));
                Err(ApiError::invalid(key.clone(), reason))
            }
        }
    }
}

/// The middleware: refuses a request with an unknown query key before its handler.
pub async fn refuse_unknown(
    State(keys): State<Arc<QueryKeys>>,
    request: Request,
    next: Next,
) -> Response {
    if request.uri().query().is_some()
        && let Some(route) = request.extensions().get::<MatchedPath>()
        && let Err(e) = keys.check(route.as_str(), &Query::from_uri(request.uri()))
    {
        return e.into_response();
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Limits;

    #[test]
    fn each_route_takes_the_keys_its_operation_lists() {
        let keys = QueryKeys::of_document(&super::super::openapi::document(&Limits::default()));
        let check = |route: &str, pairs: &[(&str, &str)]| {
            keys.check(route, &Query::from_pairs(pairs))
                .map_err(|e| (e.field().map(str::to_string), e.to_string()))
        };
        let height = "/v1/worlds/{world}/height";
        assert_eq!(
            check(height, &[("x", "1"), ("z", "2"), ("mode", "exact")]),
            Ok(())
        );
        let (field, message) = check(height, &[("x", "1"), ("zz", "2")]).unwrap_err();
        assert_eq!(field.as_deref(), Some("zz"));
        assert!(
            message.contains("expected one of mode, revision, x, z"),
            "{message}"
        );
        let mesh = "/v1/worlds/{world}/tiles/{tx}/{tz}/mesh";
        assert_eq!(check(mesh, &[("maxError", "5")]), Ok(()));
        assert_eq!(
            check(mesh, &[("maxErr", "5")]).unwrap_err().0.as_deref(),
            Some("maxErr")
        );
        // The movement routes take the revision in the query too.
        for route in ["terrain-info", "paths/check"] {
            let route = format!("/v1/worlds/{{world}}/{route}");
            assert_eq!(check(&route, &[("revision", "4")]), Ok(()));
        }
        let (field, message) =
            check("/v1/worlds/{world}/paths/find", &[("revision", "4")]).unwrap_err();
        assert_eq!(field.as_deref(), Some("revision"));
        assert!(message.contains("takes no query parameters"), "{message}");
        // A wildcard route as the router names it; the map page's cache buster.
        assert!(check("/map/assets/{*path}", &[("v", "1")]).is_err());
        let tile = "/v1/worlds/{world}/map/{z}/{x}/{file}";
        assert_eq!(check(tile, &[("layer", "walk"), ("r", "7")]), Ok(()));
    }
}
