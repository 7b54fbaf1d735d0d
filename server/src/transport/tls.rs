//! TLS for both surfaces on the one port: rustls (ring provider) with the PEM
//! certificate chain and private key of `tls_cert` and `tls_key`, offering HTTP/2
//! (`h2`, for gRPC) and HTTP/1.1 by ALPN. `transport::conn` completes the handshake within
//! `header_read_timeout`, then serves the connection as it serves plain TCP.

use std::{path::Path, sync::Arc};

use rustls_pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject};
use tokio_rustls::{
    TlsAcceptor,
    rustls::{ServerConfig, crypto::ring},
};

/// Why the TLS settings could not be loaded; names the key.
#[derive(Debug, thiserror::Error)]
#[error("{key}: {path}: {reason}")]
pub struct TlsError {
    /// `tls_cert` or `tls_key`.
    pub key: &'static str,
    pub path: String,
    pub reason: String,
}

/// A loaded TLS identity: accepts TLS connections.
#[derive(Clone)]
pub struct Tls(pub TlsAcceptor);

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tls { .. }")
    }
}

/// The acceptor for the certificate chain at `cert` and the key at `key` (PEM).
pub fn acceptor(cert: &Path, key: &Path) -> Result<Tls, TlsError> {
    let fail = |which: &'static str, path: &Path, reason: String| TlsError {
        key: which,
        path: path.display().to_string(),
        reason,
    };
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .map_err(|e| fail("tls_cert", cert, e.to_string()))?
        .collect::<Result<_, _>>()
        .map_err(|e| fail("tls_cert", cert, e.to_string()))?;
    if chain.is_empty() {
        return Err(fail(
            "tls_cert",
            cert,
            "no PEM CERTIFICATE block in the file".into(),
        ));
    }
    let private =
        PrivateKeyDer::from_pem_file(key).map_err(|e| fail("tls_key", key, e.to_string()))?;
    let mut config = ServerConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| fail("tls_cert", cert, e.to_string()))?
        .with_no_client_auth()
        .with_single_cert(chain, private)
        .map_err(|e| {
            fail(
                "tls_key",
                key,
                format!("does not match the certificate: {e}"),
            )
        })?;
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(Tls(TlsAcceptor::from(Arc::new(config))))
}
