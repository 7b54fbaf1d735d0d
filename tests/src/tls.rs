//! [`Identity`]: a self-signed certificate for `localhost` and 127.0.0.1, written as PEM
//! files, for servers started with [`crate::TestServer::start_tls`] and the clients
//! that trust it.

use std::path::PathBuf;

use tempfile::TempDir;
use terrain_server::config::TlsFiles;

/// A certificate and its key in a temporary directory.
#[derive(Debug)]
pub struct Identity {
    dir: TempDir,
    cert_pem: String,
}

impl Identity {
    /// A fresh self-signed certificate (rcgen).
    pub fn new() -> Self {
        let cert = rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()])
            .expect("a certificate");
        let dir = tempfile::tempdir().expect("temporary directory");
        let cert_pem = cert.cert.pem();
        std::fs::write(dir.path().join("cert.pem"), &cert_pem).expect("writes cert.pem");
        std::fs::write(dir.path().join("key.pem"), cert.signing_key.serialize_pem())
            .expect("writes key.pem");
        Identity { dir, cert_pem }
    }

    /// The certificate's PEM file, which is also the CA file that trusts it.
    pub fn cert(&self) -> PathBuf {
        self.dir.path().join("cert.pem")
    }

    /// The certificate as PEM text.
    pub fn cert_pem(&self) -> &str {
        &self.cert_pem
    }

    /// The server's `tls_cert` and `tls_key`.
    pub fn files(&self) -> TlsFiles {
        TlsFiles {
            cert: self.cert(),
            key: self.dir.path().join("key.pem"),
        }
    }

    /// A path in the identity's directory (for damaged or missing files).
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

impl Default for Identity {
    fn default() -> Self {
        Self::new()
    }
}
