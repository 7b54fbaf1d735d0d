//! Browsers on other origins (`cors_origins`): the CORS answers of tower-http's layer
//! ([`layer`]), and the `Origin` check of the events WebSocket ([`check_origin`]).
//!
//! With no origin configured there is neither: no CORS header on any answer, and the
//! WebSocket takes any `Origin` (non-browser clients send none).
//!
//! With a list, an answer to a request whose `Origin` is in it carries
//! `Access-Control-Allow-Origin` with that origin (`*` for any origin, when the list is
//! `["*"]`), `Access-Control-Expose-Headers` with the response headers a page needs
//! ([`EXPOSED`]) and `Vary: origin, ...`. That is every answer the router gives: the
//! API's, its JSON errors (404, 400, 405, ...), the admission's 503, gRPC's too
//! (harmless). A preflight (`OPTIONS` with `Origin` and
//! `Access-Control-Request-Method`) is answered 200 at once, before admission and
//! routing, with the API's methods ([`METHODS`]), the request headers it reads
//! ([`ALLOWED`]) and a max-age ([`PREFLIGHT_MAX_AGE`]); an `OPTIONS` that is no
//! preflight is routed as before (405). Credentials (cookies, TLS client
//! certificates) are never allowed: the API has none; the admin token is an
//! `Authorization` header a page sets itself, which the preflight allows.

use std::{
    sync::Arc,
    task::{Context, Poll},
    time::Duration,
};

use axum::{
    extract::{Request, State},
    http::{
        HeaderName, HeaderValue, Method,
        header::{
            ACCEPT, ACCESS_CONTROL_REQUEST_METHOD, AUTHORIZATION, CONTENT_TYPE, ETAG,
            IF_NONE_MATCH, ORIGIN, RETRY_AFTER,
        },
    },
    middleware::Next,
    response::{IntoResponse, Response},
};
use futures::future::Either;
use terrain_core::quote::Quoted;
use tower::{Layer, Service};
use tower_http::cors::{AllowOrigin, Cors, CorsLayer};

use super::{CACHE_HEADER, REVISION_HEADER};
use crate::{api::ApiError, config::ConfigError};

/// The methods of the HTTP API.
pub const METHODS: [Method; 4] = [Method::GET, Method::POST, Method::PUT, Method::DELETE];

/// The request headers the API reads (the server reads no `x-terrain-*` request
/// header): a preflight allows them.
pub const ALLOWED: [HeaderName; 4] = [CONTENT_TYPE, AUTHORIZATION, IF_NONE_MATCH, ACCEPT];

/// The response headers a page may read besides the safelisted ones
/// (`Content-Type`, `Cache-Control`, ...): every `x-terrain-*` header the server sends,
/// `ETag` and `Retry-After`.
pub const EXPOSED: [HeaderName; 4] = [REVISION_HEADER, CACHE_HEADER, ETAG, RETRY_AFTER];

/// How long a browser may keep a preflight's answer (browsers cap it: Chromium at two
/// hours, Firefox at a day).
pub const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(3600);

/// The configured `cors_origins`, as header values.
#[derive(Debug, Clone, Default)]
pub enum Origins {
    /// None configured: no CORS, no `Origin` check.
    #[default]
    None,
    /// `["*"]`: any origin.
    Any,
    /// These origins only.
    List(Arc<[HeaderValue]>),
}

impl Origins {
    /// The origins of a validated `cors_origins` (`Config::validate`).
    pub fn of(configured: &[String]) -> Result<Origins, ConfigError> {
        if configured.is_empty() {
            return Ok(Origins::None);
        }
        if configured == ["*"] {
            return Ok(Origins::Any);
        }
        let values = configured
            .iter()
            .enumerate()
            .map(|(i, origin)| {
                HeaderValue::from_str(origin).map_err(|e| {
                    ConfigError::invalid(format!("cors_origins[{i}]"), format!("{origin:?}: {e}"))
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Origins::List(values.into()))
    }

    /// Whether a request with this `Origin` header (if any) may open the events
    /// WebSocket: always without a list, or without the header (not a browser's
    /// request); else when the origin is listed.
    pub fn admits(&self, origin: Option<&HeaderValue>) -> bool {
        match (self, origin) {
            (Origins::List(list), Some(origin)) => list.contains(origin),
            _ => true,
        }
    }
}

/// The CORS layer of `origins`, `None` without any: laid over every route (and the
/// fallbacks) by the transport, outside admission.
pub fn layer(origins: &Origins) -> Option<PreflightsAndAnswers> {
    let allow = match origins {
        Origins::None => return None,
        Origins::Any => AllowOrigin::any(),
        Origins::List(list) => AllowOrigin::list(list.iter().cloned()),
    };
    let cors = CorsLayer::new()
        .allow_origin(allow)
        .allow_methods(METHODS.to_vec())
        .allow_headers(ALLOWED.to_vec())
        .expose_headers(EXPOSED.to_vec())
        .max_age(PREFLIGHT_MAX_AGE);
    Some(PreflightsAndAnswers { cors })
}

/// tower-http's [`CorsLayer`], for preflights and the answers to requests only: an
/// `OPTIONS` request that is no preflight goes past it to the routes (tower-http's
/// layer would answer every `OPTIONS` itself).
#[derive(Debug, Clone)]
pub struct PreflightsAndAnswers {
    cors: CorsLayer,
}

impl<S: Clone> Layer<S> for PreflightsAndAnswers {
    type Service = PreflightsAndAnswersService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        PreflightsAndAnswersService {
            plain: inner.clone(),
            cors: self.cors.layer(inner),
        }
    }
}

/// The service of [`PreflightsAndAnswers`].
#[derive(Debug, Clone)]
pub struct PreflightsAndAnswersService<S> {
    plain: S,
    cors: Cors<S>,
}

/// An `OPTIONS` request that is no CORS preflight (which carries `Origin` and
/// `Access-Control-Request-Method`).
fn plain_options(req: &Request) -> bool {
    let headers = req.headers();
    req.method() == Method::OPTIONS
        && !(headers.contains_key(ORIGIN) && headers.contains_key(ACCESS_CONTROL_REQUEST_METHOD))
}

impl<S> Service<Request> for PreflightsAndAnswersService<S>
where
    S: Service<Request, Response = Response> + Clone,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Either<S::Future, tower_http::cors::ResponseFuture<S::Future>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        match self.plain.poll_ready(cx) {
            Poll::Ready(Ok(())) => self.cors.poll_ready(cx),
            other => other,
        }
    }

    fn call(&mut self, req: Request) -> Self::Future {
        if plain_options(&req) {
            Either::Left(self.plain.call(req))
        } else {
            Either::Right(self.cors.call(req))
        }
    }
}

/// The events WebSocket's `Origin` check (a route layer): with `cors_origins` listed, a
/// request whose `Origin` is not among them is refused with 403 (`PERMISSION_DENIED`,
/// field `origin`) before the upgrade; a request without `Origin` (no browser's) and
/// any request without a list pass.
pub async fn check_origin(State(origins): State<Origins>, req: Request, next: Next) -> Response {
    let origin = req.headers().get(ORIGIN);
    if origins.admits(origin) {
        return next.run(req).await;
    }
    let shown = origin.map_or_else(String::new, |v| {
        Quoted(&String::from_utf8_lossy(v.as_bytes())).to_string()
    });
    ApiError::OriginRefused(shown).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_of_the_configuration() {
        assert!(matches!(Origins::of(&[]).unwrap(), Origins::None));
        assert!(matches!(Origins::of(&["*".into()]).unwrap(), Origins::Any));
        let Origins::List(list) = Origins::of(&["https://game.example".into()]).unwrap() else {
            panic!("a list");
        };
        assert_eq!(&*list, [HeaderValue::from_static("https://game.example")]);
        let err = Origins::of(&["https://a.example".into(), "bad\norigin".into()]).unwrap_err();
        assert!(err.to_string().starts_with("cors_origins[1]: "), "{err}");
    }

    #[test]
    fn the_origin_check() {
        let game = HeaderValue::from_static("https://game.example");
        let other = HeaderValue::from_static("https://other.example");
        let listed = Origins::of(&["https://game.example".into()]).unwrap();
        assert!(listed.admits(Some(&game)));
        assert!(!listed.admits(Some(&other)));
        assert!(listed.admits(None), "no Origin: not a browser");
        assert!(Origins::None.admits(Some(&other)));
        assert!(Origins::Any.admits(Some(&other)));
    }

    /// Every `x-terrain-*` header the server's sources name is exposed (a new one
    /// must be added to [`EXPOSED`]).
    #[test]
    fn every_x_terrain_header_is_exposed() {
        let mut found = std::collections::BTreeSet::new();
        let mut dirs = vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    for (at, _) in text.match_indices("\"x-terrain-") {
                        let name = &text[at + 1..];
                        let name = &name[..name.find('"').unwrap()];
                        if name != "x-terrain-" {
                            found.insert(name.to_ascii_lowercase());
                        }
                    }
                }
            }
        }
        assert!(found.contains("x-terrain-revision"), "{found:?}");
        let exposed = EXPOSED;
        let exposed: Vec<&str> = exposed.iter().map(HeaderName::as_str).collect();
        for name in &found {
            assert!(exposed.contains(&name.as_str()), "{name} is not exposed");
        }
    }
}
