//! `terrain-server healthcheck [URL]`: one `GET` of a readiness URL over plain
//! HTTP/1.1, for container health checks (the runtime image has no curl). Exits 0 when
//! the answer is 200, 1 otherwise; never waits longer than [`TIMEOUT`] per step. The
//! default URL is the command line's ([`crate::config::cli::DEFAULT_HEALTHCHECK_URL`]);
//! [`crate::commands`] runs the check. [`fetch`] is the same `GET` reading the whole
//! answer (the `backup --from` command).

use std::{
    io::{Read, Write},
    net::{SocketAddr, TcpStream, ToSocketAddrs},
    time::Duration,
};

/// The bound on connecting, writing and reading.
pub const TIMEOUT: Duration = Duration::from_secs(3);

/// Why the check failed.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("{0:?}: expected http://HOST:PORT/PATH")]
    Url(String),
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
    let mut stream = send_get(url, None)?;
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

/// Connects to `url`'s host within [`TIMEOUT`] and sends `GET` (with `Authorization:
/// authorization` if given, and `Connection: close`); the stream to read the answer
/// from, each read bounded by [`TIMEOUT`].
fn send_get(url: &str, authorization: Option<&str>) -> Result<TcpStream, CheckError> {
    let (host, addr, path) = parse(url)?;
    let io = |source| io_error(url, source);
    let mut stream = TcpStream::connect_timeout(&addr, TIMEOUT).map_err(io)?;
    stream.set_read_timeout(Some(TIMEOUT)).map_err(io)?;
    stream.set_write_timeout(Some(TIMEOUT)).map_err(io)?;
    let auth = authorization.map_or(String::new(), |a| format!("Authorization: {a}\r\n"));
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\n{auth}Connection: close\r\n\r\n"
    )
    .map_err(io)?;
    Ok(stream)
}

/// `GET url` with an optional `Authorization` value; the answer's body when its status
/// is 200 (the whole body, by `Content-Length` or to the connection's end).
pub fn fetch(url: &str, authorization: Option<&str>) -> Result<Vec<u8>, CheckError> {
    let mut stream = send_get(url, authorization)?;
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

/// The host header, the address to connect to and the path of `url`.
fn parse(url: &str) -> Result<(String, SocketAddr, String), CheckError> {
    let bad = || CheckError::Url(url.to_string());
    let rest = url.strip_prefix("http://").ok_or_else(bad)?;
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let addr = host
        .to_socket_addrs()
        .map_err(|_| bad())?
        .next()
        .ok_or_else(bad)?;
    Ok((host.to_string(), addr, path.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let (host, addr, path) = parse("http://127.0.0.1:9/readyz").unwrap();
        assert_eq!(
            (host.as_str(), addr.port(), path.as_str()),
            ("127.0.0.1:9", 9, "/readyz")
        );
        assert_eq!(parse("http://127.0.0.1:9").unwrap().2, "/");
        assert!(parse("https://127.0.0.1:9/").is_err());
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
