//! TLS for `https://` URLs: the CA certificates a [`ClientBuilder`](crate::ClientBuilder)
//! trusts (a PEM file or PEM bytes), checked when the client is built so a missing,
//! unreadable or garbage file is an error naming `ca_file` rather than a failed
//! handshake later ([`check_ca_pem`], public so tools built on the SDK refuse a CA file
//! with the same words); and the mapping of a refused handshake to [`ClientError::Tls`].

use std::path::{Path, PathBuf};

use rustls_pki_types::{CertificateDer, pem::PemObject};
use tonic::transport::{Certificate, ClientTlsConfig};

use crate::ClientError;

/// Where the trusted CA certificates come from.
#[derive(Debug, Clone)]
pub(crate) enum CaSource {
    /// A PEM file, read when the client is built.
    File(PathBuf),
    /// PEM text given in memory.
    Pem(Vec<u8>),
}

/// The PEM bytes of `source`, with at least one certificate in them.
pub(crate) fn ca_pem(source: &CaSource) -> Result<Vec<u8>, ClientError> {
    let (label, pem) = match source {
        CaSource::File(path) => (
            path.display().to_string(),
            std::fs::read(path).map_err(|e| ca_error(path, e.to_string()))?,
        ),
        CaSource::Pem(bytes) => ("(PEM given in memory)".to_string(), bytes.clone()),
    };
    check_ca_pem(&pem).map_err(|reason| ClientError::CaFile {
        path: label,
        reason,
    })?;
    Ok(pem)
}

/// Whether `pem` holds CA certificates to trust: at least one PEM `CERTIFICATE`
/// block, every one well formed (the DER inside is checked by the handshake). The
/// error is the reason, for a message that names the file.
pub fn check_ca_pem(pem: &[u8]) -> Result<(), String> {
    let mut count = 0usize;
    for cert in CertificateDer::pem_slice_iter(pem) {
        cert.map_err(|e| format!("not a PEM certificate file: {e}"))?;
        count += 1;
    }
    if count == 0 {
        return Err("no PEM CERTIFICATE block in the file".into());
    }
    Ok(())
}

fn ca_error(path: &Path, reason: String) -> ClientError {
    ClientError::CaFile {
        path: path.display().to_string(),
        reason,
    }
}

/// The tonic TLS settings trusting the certificates of `pem`, verifying the server
/// as `domain` when given (else as the URL's host).
pub(crate) fn tls_config(pem: &[u8], domain: Option<&str>) -> ClientTlsConfig {
    let mut tls = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem));
    if let Some(d) = domain {
        tls = tls.domain_name(d);
    }
    tls
}

/// A failed connect as a [`ClientError`]: [`ClientError::Tls`] when the TLS layer
/// refused the server (its certificate is not signed by the CA, or is not for the
/// name), which no retry mends; otherwise `Unavailable`, with the causes.
pub(crate) fn connect_error(e: tonic::transport::Error) -> ClientError {
    let causes = Causes::of(e.to_string(), std::error::Error::source(&e));
    if causes.tls {
        ClientError::Tls(causes.text)
    } else {
        ClientError::Unavailable(causes.text)
    }
}

/// What the chain of causes under a failure says.
pub(crate) struct Causes {
    /// The failure's own text, then each cause's, outermost first, joined by ": ".
    pub text: String,
    /// The TLS layer refused the server (rustls's error, as itself or inside the I/O
    /// error the handshake failed with).
    pub tls: bool,
    /// The connection failed: an HTTP/2 error (a reset, a GOAWAY) or an I/O error.
    pub transport: bool,
}

impl Causes {
    pub(crate) fn of(top: String, mut source: Option<&(dyn std::error::Error + 'static)>) -> Self {
        let mut causes = Causes {
            text: top,
            tls: false,
            transport: false,
        };
        while let Some(e) = source {
            causes.tls |= e.is::<tokio_rustls::rustls::Error>()
                || e.downcast_ref::<std::io::Error>()
                    .and_then(|io| io.get_ref())
                    .is_some_and(|inner| inner.is::<tokio_rustls::rustls::Error>());
            causes.transport |= e.is::<h2::Error>() || e.is::<std::io::Error>();
            causes.text.push_str(": ");
            causes.text.push_str(&e.to_string());
            source = e.source();
        }
        causes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_or_garbage_ca_file_names_the_option_and_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing.pem");
        let e = ca_pem(&CaSource::File(missing.clone())).unwrap_err();
        assert!(matches!(&e, ClientError::CaFile { path, .. } if path.contains("missing.pem")));
        assert!(e.to_string().starts_with("ca_file "), "{e}");

        let garbage = dir.path().join("garbage.pem");
        std::fs::write(&garbage, "not a certificate").unwrap();
        let e = ca_pem(&CaSource::File(garbage)).unwrap_err().to_string();
        assert!(
            e.starts_with("ca_file ") && e.contains("no PEM CERTIFICATE"),
            "{e}"
        );

        let broken = b"-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n";
        let e = ca_pem(&CaSource::Pem(broken.to_vec()))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("ca_file ") && e.contains("not a PEM"), "{e}");
    }
}
