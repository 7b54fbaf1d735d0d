//! The commands' HTTP client: one `GET` over plain HTTP/1.1 or, for an `https://` URL,
//! over TLS (rustls, ring provider) trusting the PEM certificates of a CA file; never
//! waits longer than [`TIMEOUT`] per step. [`check`] is `terrain-server healthcheck
//! [URL]` for container health checks (the runtime image has no curl): exit 0 when the
//! readiness URL answers 200, 1 otherwise; the default URL is the command line's
//! ([`crate::config::cli::DEFAULT_HEALTHCHECK_URL`]). [`fetch`] reads the whole answer
//! (the `backup --from` command). Readiness itself is [`crate::api::health`].

use std::{
    io::{Read, Write},
    net::{SocketAddr, TcpStream, ToSocketAddrs},
    path::Path,
    sync::Arc,
    time::Duration,
};

use rustls_pki_types::{CertificateDer, ServerName, pem::PemObject};
use tokio_rustls::rustls::{
    ClientConfig, ClientConnection, RootCertStore, StreamOwned, crypto::ring,
};

/// The bound on connecting, writing and reading.
pub const TIMEOUT: Duration = Duration::from_secs(3);

/// Why the check failed.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("{0:?}: expected http://HOST:PORT/PATH or https://HOST:PORT/PATH")]
    Url(String),
    /// An `https://` URL without a CA file, or a CA file that cannot be used.
    #[error("ca_file: {0}")]
    Ca(String),
    #[error("{url}: {source}")]
    Io {
        url: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{url}: answered {status}")]
    Status { url: String, status: String },
}

/// `GET url`; `Ok` when the answer's status is 200.
pub fn check(url: &str) -> Result<(), CheckError> {
    let mut stream = send_get(url, None, None)?;
    let mut head = [0u8; 64];
    let n = stream
        .read(&mut head)
        .map_err(|source| io_error(url, source))?;
    let line = String::from_utf8_lossy(&head[..n]);
    let status = line.split_whitespace().nth(1).unwrap_or("nothing");
    if status == "200" {
        Ok(())
    } else {
        Err(CheckError::Status {
            url: url.to_string(),
            status: status.to_string(),
        })
    }
}

fn io_error(url: &str, source: std::io::Error) -> CheckError {
    CheckError::Io {
        url: url.to_string(),
        source,
    }
}

/// A connection, plain or TLS.
enum Stream {
    Plain(TcpStream),
    Tls(Box<StreamOwned<ClientConnection, TcpStream>>),
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(buf),
            // A server closing without close_notify ends the answer; the
            // Content-Length check catches a cut body.
            Stream::Tls(s) => match s.read(buf) {
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => Ok(0),
                other => other,
            },
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Plain(s) => s.write(buf),
            Stream::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Stream::Plain(s) => s.flush(),
            Stream::Tls(s) => s.flush(),
        }
    }
}

/// The TLS client trusting the certificates of the PEM file `ca_file`.
fn tls_client(ca_file: &Path) -> Result<Arc<ClientConfig>, CheckError> {
    let fail = |reason: String| CheckError::Ca(format!("{}: {reason}", ca_file.display()));
    let mut roots = RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(ca_file).map_err(|e| fail(e.to_string()))? {
        roots
            .add(cert.map_err(|e| fail(e.to_string()))?)
            .map_err(|e| fail(e.to_string()))?;
    }
    if roots.is_empty() {
        return Err(fail("no PEM CERTIFICATE block in the file".into()));
    }
    let mut config = ClientConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| fail(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Connects to `url`'s host within [`TIMEOUT`] (TLS for `https://`, trusting
/// `ca_file`) and sends `GET` (with `Authorization: authorization` if given, and
/// `Connection: close`); the stream to read the answer from, each read bounded by
/// [`TIMEOUT`].
fn send_get(
    url: &str,
    authorization: Option<&str>,
    ca_file: Option<&Path>,
) -> Result<Stream, CheckError> {
    let Target {
        tls,
        host,
        addr,
        path,
    } = parse(url)?;
    let io = |source| io_error(url, source);
    let tcp = TcpStream::connect_timeout(&addr, TIMEOUT).map_err(io)?;
    tcp.set_read_timeout(Some(TIMEOUT)).map_err(io)?;
    tcp.set_write_timeout(Some(TIMEOUT)).map_err(io)?;
    let mut stream = if tls {
        let ca_file = ca_file.ok_or_else(|| {
            CheckError::Ca(format!(
                "{url}: an https:// URL needs --ca-file (the PEM certificate of the CA \
                 that signed the server's certificate)"
            ))
        })?;
        let name = host
            .rsplit_once(':')
            .map_or(host.as_str(), |(name, _)| name);
        let name = name.trim_start_matches('[').trim_end_matches(']');
        let name =
            ServerName::try_from(name.to_string()).map_err(|_| CheckError::Url(url.into()))?;
        let conn = ClientConnection::new(tls_client(ca_file)?, name)
            .map_err(|e| CheckError::Ca(e.to_string()))?;
        Stream::Tls(Box::new(StreamOwned::new(conn, tcp)))
    } else {
        Stream::Plain(tcp)
    };
    let auth = authorization.map_or(String::new(), |a| format!("Authorization: {a}\r\n"));
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\n{auth}Connection: close\r\n\r\n"
    )
    .map_err(io)?;
    Ok(stream)
}

/// `GET url` with an optional `Authorization` value (over TLS for `https://`,
/// trusting the certificates of `ca_file`); the answer's body when its status is 200
/// (the whole body, by `Content-Length` or to the connection's end).
pub fn fetch(
    url: &str,
    authorization: Option<&str>,
    ca_file: Option<&Path>,
) -> Result<Vec<u8>, CheckError> {
    let mut stream = send_get(url, authorization, ca_file)?;
    let mut answer = Vec::new();
    stream
        .read_to_end(&mut answer)
        .map_err(|source| io_error(url, source))?;
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| CheckError::Status {
            url: url.to_string(),
            status: "no complete answer".into(),
        })?;
    let head = String::from_utf8_lossy(&answer[..split]).into_owned();
    let body = answer[split + 4..].to_vec();
    let status = head.split_whitespace().nth(1).unwrap_or("nothing");
    if status != "200" {
        let detail = String::from_utf8_lossy(&body);
        return Err(CheckError::Status {
            url: url.to_string(),
            status: format!("{status} {}", detail.trim()),
        });
    }
    let length = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("content-length")
            .then(|| value.trim().parse::<usize>().ok())
            .flatten()
    });
    match length {
        Some(n) if n != body.len() => Err(CheckError::Status {
            url: url.to_string(),
            status: format!("200 with {} of {n} body bytes", body.len()),
        }),
        _ => Ok(body),
    }
}

/// Where a URL points.
struct Target {
    /// `https://`.
    tls: bool,
    /// The `Host` header (`host:port`).
    host: String,
    addr: SocketAddr,
    path: String,
}

/// Whether `url` is TLS, its host header, the address to connect to and its path.
fn parse(url: &str) -> Result<Target, CheckError> {
    let bad = || CheckError::Url(url.to_string());
    let (tls, rest) = match (url.strip_prefix("http://"), url.strip_prefix("https://")) {
        (Some(rest), _) => (false, rest),
        (None, Some(rest)) => (true, rest),
        (None, None) => return Err(bad()),
    };
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let addr = host
        .to_socket_addrs()
        .map_err(|_| bad())?
        .next()
        .ok_or_else(bad)?;
    Ok(Target {
        tls,
        host: host.to_string(),
        addr,
        path: path.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let t = parse("http://127.0.0.1:9/readyz").unwrap();
        assert_eq!(
            (t.tls, t.host.as_str(), t.addr.port(), t.path.as_str()),
            (false, "127.0.0.1:9", 9, "/readyz")
        );
        assert_eq!(parse("http://127.0.0.1:9").unwrap().path, "/");
        assert!(parse("https://127.0.0.1:9/").unwrap().tls);
        assert!(parse("ftp://127.0.0.1:9/").is_err());
        assert!(
            parse("http://127.0.0.1/readyz").is_err(),
            "a port is required"
        );
    }

    #[test]
    fn nothing_listening_is_an_error() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let err = check(&format!("http://127.0.0.1:{port}/readyz")).unwrap_err();
        assert!(matches!(err, CheckError::Io { .. }), "{err}");
    }
}
