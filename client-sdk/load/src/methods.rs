//! The methods `terrain-load` can call: every method of the services in its
//! descriptor pool, looked up by name. The pool holds the `terrain.v1` descriptor set
//! that `terrain-proto` compiles (the one `terrain-server protoset` writes) and
//! `grpc.health.v1`'s, plus the services of a `--protoset` file; a method added to the
//! protos is callable without code, as with ghz.

use std::fmt;

use prost_reflect::{DescriptorPool, MessageDescriptor, MethodDescriptor};

/// A descriptor set that does not decode, named.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("descriptor set {what}: {reason}")]
pub struct DescriptorError {
    /// Which set: `terrain.v1`, `grpc.health.v1` or a protoset's path.
    pub what: String,
    pub reason: String,
}

/// The descriptors of the services built in: `terrain.v1` and `grpc.health.v1`.
pub fn builtin_pool() -> Result<DescriptorPool, DescriptorError> {
    let mut pool = DescriptorPool::new();
    add_descriptor_set(&mut pool, "terrain.v1", terrain_proto::FILE_DESCRIPTOR_SET)?;
    add_descriptor_set(
        &mut pool,
        "grpc.health.v1",
        tonic_health::pb::FILE_DESCRIPTOR_SET,
    )?;
    Ok(pool)
}

/// Adds the files of the encoded `FileDescriptorSet` `bytes` to `pool`; files the pool
/// already holds are skipped.
pub fn add_descriptor_set(
    pool: &mut DescriptorPool,
    what: &str,
    bytes: &[u8],
) -> Result<(), DescriptorError> {
    pool.decode_file_descriptor_set(bytes)
        .map_err(|e| DescriptorError {
            what: what.to_string(),
            reason: e.to_string(),
        })
}

/// How a method's messages flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodKind {
    /// One request, one answer.
    Unary,
    /// One request, a stream of answers.
    ServerStreaming,
    /// A stream of requests (here: one), one answer.
    ClientStreaming,
    /// Streams both ways (here: one request, then the stream held open).
    Bidirectional,
}

/// A method of a service in the pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Method(MethodDescriptor);

impl Method {
    /// Finds `call` in `pool`: `package.Service/Method` or `package.Service.Method`,
    /// as ghz's `--call`.
    pub fn find(pool: &DescriptorPool, call: &str) -> Result<Method, String> {
        let (service, name) = call
            .rsplit_once('/')
            .or_else(|| call.rsplit_once('.'))
            .ok_or_else(|| format!("{call:?} is not package.Service/Method"))?;
        pool.get_service_by_name(service)
            .and_then(|s| s.methods().find(|m| m.name() == name))
            .map(Method)
            .ok_or_else(|| {
                let known: Vec<String> = pool
                    .services()
                    .flat_map(|s| s.methods().collect::<Vec<_>>())
                    .map(|m| format!("{}/{}", m.parent_service().full_name(), m.name()))
                    .collect();
                format!(
                    "{call:?} is not supported (supported: {})",
                    known.join(", ")
                )
            })
    }

    /// `package.Service`.
    pub fn service(&self) -> String {
        self.0.parent_service().full_name().to_string()
    }

    /// The bare method name.
    pub fn name(&self) -> &str {
        self.0.name()
    }

    /// `package.Service.Method`.
    pub fn full_name(&self) -> &str {
        self.0.full_name()
    }

    /// The HTTP/2 path of the call: `/package.Service/Method`.
    pub fn path(&self) -> String {
        format!("/{}/{}", self.service(), self.name())
    }

    /// The request message type.
    pub fn input(&self) -> MessageDescriptor {
        self.0.input()
    }

    /// The answer message type.
    pub fn output(&self) -> MessageDescriptor {
        self.0.output()
    }

    pub fn kind(&self) -> MethodKind {
        match (self.0.is_client_streaming(), self.0.is_server_streaming()) {
            (false, false) => MethodKind::Unary,
            (false, true) => MethodKind::ServerStreaming,
            (true, false) => MethodKind::ClientStreaming,
            (true, true) => MethodKind::Bidirectional,
        }
    }

    /// True when answers arrive as a stream, which a call holds for a duration or a
    /// message count.
    pub fn is_stream(&self) -> bool {
        self.0.is_server_streaming()
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.full_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_parse_with_either_separator() {
        let pool = builtin_pool().unwrap();
        let m = Method::find(&pool, "terrain.v1.TerrainService/GetHeight").unwrap();
        assert_eq!(m.full_name(), "terrain.v1.TerrainService.GetHeight");
        assert_eq!(m.path(), "/terrain.v1.TerrainService/GetHeight");
        assert_eq!(m.input().full_name(), "terrain.v1.GetHeightRequest");
        assert_eq!(m.kind(), MethodKind::Unary);
        let health = Method::find(&pool, "grpc.health.v1.Health.Check").unwrap();
        assert_eq!(health.service(), "grpc.health.v1.Health");
        let sub = Method::find(&pool, "terrain.v1.TerrainEvents/Subscribe").unwrap();
        assert_eq!(sub.to_string(), "terrain.v1.TerrainEvents.Subscribe");
        assert_eq!(sub.kind(), MethodKind::ServerStreaming);
        assert!(sub.is_stream());
        let track = Method::find(&pool, "terrain.v1.TerrainLifecycle/TrackViewers").unwrap();
        assert_eq!(track.kind(), MethodKind::Bidirectional);
        let err = Method::find(&pool, "terrain.v1.TerrainService/Nope").unwrap_err();
        assert!(err.contains("not supported"), "{err}");
        assert!(
            err.contains("terrain.v1.TerrainService/RegisterFlatZone"),
            "{err}"
        );
        assert!(Method::find(&pool, "GetHeight").is_err());
    }

    #[test]
    fn a_protoset_adds_nothing_twice() {
        let mut pool = builtin_pool().unwrap();
        let before = pool.services().count();
        add_descriptor_set(&mut pool, "again", terrain_proto::FILE_DESCRIPTOR_SET).unwrap();
        assert_eq!(pool.services().count(), before);
        let e = add_descriptor_set(&mut pool, "junk.protoset", b"\xff\xff").unwrap_err();
        assert_eq!(e.what, "junk.protoset");
    }
}
