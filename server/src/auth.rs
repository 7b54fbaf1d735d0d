//! Who may change a world: mutations (registering and removing flat zones) need
//! `Authorization: Bearer <admin token>` when an admin token is configured, on both
//! surfaces (HTTP header, gRPC metadata). Reads stay open.
//!
//! The token is compared in constant time and never logged or echoed: its `Debug`
//! form is redacted.

use std::fmt;

use subtle::ConstantTimeEq;

use crate::error::{ErrorCode, ServiceError};

/// The longest accepted token.
const MAX_TOKEN_LEN: usize = 4096;

/// The configured admin token.
#[derive(Clone, PartialEq, Eq)]
pub struct AdminToken(String);

impl AdminToken {
    /// A token: 1 to 4096 visible ASCII characters (so it fits an HTTP header as is).
    pub fn new(token: impl Into<String>) -> Result<Self, String> {
        let token = token.into();
        if token.is_empty() || token.len() > MAX_TOKEN_LEN {
            return Err(format!("must be 1 to {MAX_TOKEN_LEN} characters long"));
        }
        if !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err("may only contain visible ASCII characters (no spaces)".to_string());
        }
        Ok(AdminToken(token))
    }

    /// The token's text, to build an `Authorization` header with.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for AdminToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AdminToken(<redacted>)")
    }
}

impl std::str::FromStr for AdminToken {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AdminToken::new(s)
    }
}

/// A mutation without the right admin token. The message never echoes the token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("authorization: {0}")]
pub struct Unauthenticated(&'static str);

impl ServiceError for Unauthenticated {
    fn error_code(&self) -> ErrorCode {
        ErrorCode::Unauthenticated
    }

    fn field(&self) -> Option<&str> {
        Some("authorization")
    }
}

/// The mutation gate of one server.
#[derive(Debug, Clone)]
pub struct Auth {
    token: Option<AdminToken>,
}

impl Auth {
    /// Open when `token` is `None`; otherwise mutations must present it.
    pub fn new(token: Option<AdminToken>) -> Self {
        Auth { token }
    }

    /// Checks the value of an `Authorization` header (or `authorization` metadata):
    /// `Bearer <token>`. Missing or wrong -> `UNAUTHENTICATED`.
    pub fn check(&self, authorization: Option<&[u8]>) -> Result<(), Unauthenticated> {
        let Some(expected) = &self.token else {
            return Ok(());
        };
        let Some(value) = authorization else {
            return Err(Unauthenticated(
                "missing; mutations and admin routes need \"Authorization: Bearer <admin token>\"",
            ));
        };
        let presented =
            strip_bearer(value).ok_or(Unauthenticated("expected \"Bearer <admin token>\""))?;
        if bool::from(presented.ct_eq(expected.0.as_bytes())) {
            Ok(())
        } else {
            Err(Unauthenticated("wrong admin token"))
        }
    }
}

/// The credentials after a case-insensitive `Bearer ` scheme.
fn strip_bearer(value: &[u8]) -> Option<&[u8]> {
    let (scheme, rest) = value.split_at_checked(7)?;
    scheme
        .eq_ignore_ascii_case(b"bearer ")
        .then(|| rest.trim_ascii())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_without_a_token() {
        assert!(Auth::new(None).check(None).is_ok());
    }

    #[test]
    fn checks_the_bearer_token() {
        let auth = Auth::new(Some(AdminToken::new("s3cret").unwrap()));
        assert!(auth.check(Some(b"Bearer s3cret")).is_ok());
        assert!(auth.check(Some(b"bearer s3cret")).is_ok());
        for bad in [
            None,
            Some(&b"Bearer s3cre"[..]),
            Some(b"Bearer s3cret2"),
            Some(b"Basic s3cret"),
            Some(b"s3cret"),
            Some(b"Bearer "),
        ] {
            let err = auth.check(bad).unwrap_err();
            assert_eq!(err.error_code(), ErrorCode::Unauthenticated);
            assert!(!err.to_string().contains("s3cret"), "{err}");
        }
    }

    #[test]
    fn tokens_are_validated_and_redacted() {
        assert!(AdminToken::new("").is_err());
        assert!(AdminToken::new("a b").is_err());
        let token = AdminToken::new("abc").unwrap();
        assert!(!format!("{token:?}").contains("abc"));
    }
}
