//! The methods `terrain-load` can call, and one request of each.

use std::{fmt, str::FromStr, time::Duration};

use terrain_proto::v1::{
    self, terrain_events_client::TerrainEventsClient, terrain_service_client::TerrainServiceClient,
};
use tonic::{Code, Request, Status, metadata::MetadataMap, transport::Channel};
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

/// A method `terrain-load` knows how to call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    ListWorlds,
    GetHeight,
    GetHeights,
    GetHeightmap,
    GetTileMesh,
    /// `grpc.health.v1.Health/Check`: the cheapest unary call of the server.
    HealthCheck,
    /// `terrain.v1.TerrainEvents/Subscribe`, held for a duration or a message count.
    Subscribe,
}

const METHODS: [(Method, &str, &str); 7] = [
    (
        Method::ListWorlds,
        "terrain.v1.TerrainService",
        "ListWorlds",
    ),
    (Method::GetHeight, "terrain.v1.TerrainService", "GetHeight"),
    (
        Method::GetHeights,
        "terrain.v1.TerrainService",
        "GetHeights",
    ),
    (
        Method::GetHeightmap,
        "terrain.v1.TerrainService",
        "GetHeightmap",
    ),
    (
        Method::GetTileMesh,
        "terrain.v1.TerrainService",
        "GetTileMesh",
    ),
    (Method::HealthCheck, "grpc.health.v1.Health", "Check"),
    (Method::Subscribe, "terrain.v1.TerrainEvents", "Subscribe"),
];

impl Method {
    /// `package.Service`.
    pub fn service(self) -> &'static str {
        METHODS.iter().find(|m| m.0 == self).map_or("", |m| m.1)
    }

    /// The bare method name.
    pub fn name(self) -> &'static str {
        METHODS.iter().find(|m| m.0 == self).map_or("", |m| m.2)
    }

    pub fn is_stream(self) -> bool {
        self == Method::Subscribe
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.service(), self.name())
    }
}

impl FromStr for Method {
    type Err = String;

    /// `package.Service/Method` or `package.Service.Method`, as ghz's `--call`.
    fn from_str(s: &str) -> Result<Self, String> {
        let (service, name) = s
            .rsplit_once('/')
            .or_else(|| s.rsplit_once('.'))
            .ok_or_else(|| format!("{s:?} is not package.Service/Method"))?;
        METHODS
            .iter()
            .find(|m| m.1 == service && m.2 == name)
            .map(|m| m.0)
            .ok_or_else(|| {
                let known: Vec<String> =
                    METHODS.iter().map(|m| format!("{}/{}", m.1, m.2)).collect();
                format!("{s:?} is not supported (supported: {})", known.join(", "))
            })
    }
}

/// One request message, ready to send.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    ListWorlds(v1::ListWorldsRequest),
    GetHeight(v1::GetHeightRequest),
    GetHeights(v1::GetHeightsRequest),
    GetHeightmap(v1::GetHeightmapRequest),
    GetTileMesh(v1::GetTileMeshRequest),
    HealthCheck(HealthCheckRequest),
    Subscribe(v1::SubscribeRequest),
}

/// How long a `Subscribe` call lasts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StreamLimits {
    /// Close the stream after this long.
    pub duration: Option<Duration>,
    /// Close the stream after receiving this many messages (the first is `subscribed`).
    pub count: Option<u64>,
}

/// The clients of one connection.
#[derive(Debug, Clone)]
pub struct Clients {
    terrain: TerrainServiceClient<Channel>,
    events: TerrainEventsClient<Channel>,
    health: HealthClient<Channel>,
}

impl Clients {
    pub fn new(channel: Channel) -> Self {
        Clients {
            terrain: TerrainServiceClient::new(channel.clone())
                .max_decoding_message_size(usize::MAX)
                .max_encoding_message_size(usize::MAX),
            events: TerrainEventsClient::new(channel.clone()),
            health: HealthClient::new(channel),
        }
    }

    /// Sends `message` with `metadata`; unary calls carry `timeout` as their deadline.
    pub async fn call(
        &mut self,
        message: Message,
        metadata: &MetadataMap,
        timeout: Duration,
        stream: StreamLimits,
    ) -> Result<(), Status> {
        fn req<T>(m: T, metadata: &MetadataMap, timeout: Option<Duration>) -> Request<T> {
            let mut r = Request::new(m);
            *r.metadata_mut() = metadata.clone();
            if let Some(t) = timeout {
                r.set_timeout(t);
            }
            r
        }
        let t = Some(timeout);
        let unary = async {
            match message {
                Message::ListWorlds(m) => self
                    .terrain
                    .list_worlds(req(m, metadata, t))
                    .await
                    .map(drop),
                Message::GetHeight(m) => {
                    self.terrain.get_height(req(m, metadata, t)).await.map(drop)
                }
                Message::GetHeights(m) => self
                    .terrain
                    .get_heights(req(m, metadata, t))
                    .await
                    .map(drop),
                Message::GetHeightmap(m) => self
                    .terrain
                    .get_heightmap(req(m, metadata, t))
                    .await
                    .map(drop),
                Message::GetTileMesh(m) => self
                    .terrain
                    .get_tile_mesh(req(m, metadata, t))
                    .await
                    .map(drop),
                Message::HealthCheck(m) => self.health.check(req(m, metadata, t)).await.map(drop),
                Message::Subscribe(m) => {
                    hold_stream(&mut self.events, req(m, metadata, None), stream).await
                }
            }
        };
        // A guard in case the server ignores the deadline; streams get theirs on top.
        let limit = timeout + stream.duration.unwrap_or_default();
        match tokio::time::timeout(limit, unary).await {
            Ok(result) => result,
            Err(_) => Err(Status::deadline_exceeded("timed out")),
        }
    }
}

async fn hold_stream(
    client: &mut TerrainEventsClient<Channel>,
    request: Request<v1::SubscribeRequest>,
    limits: StreamLimits,
) -> Result<(), Status> {
    let mut stream = client.subscribe(request).await?.into_inner();
    let read = async {
        let mut received = 0u64;
        while limits.count.is_none_or(|n| received < n) {
            match stream.message().await? {
                Some(_) => received += 1,
                None => break,
            }
        }
        Ok::<_, Status>(())
    };
    match limits.duration {
        Some(d) => match tokio::time::timeout(d, read).await {
            Ok(r) => r,
            Err(_) => Ok(()),
        },
        None => read.await,
    }
}

/// ghz's name of a status code (Go's `codes.Code.String()`).
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "Canceled",
        Code::Unknown => "Unknown",
        Code::InvalidArgument => "InvalidArgument",
        Code::DeadlineExceeded => "DeadlineExceeded",
        Code::NotFound => "NotFound",
        Code::AlreadyExists => "AlreadyExists",
        Code::PermissionDenied => "PermissionDenied",
        Code::ResourceExhausted => "ResourceExhausted",
        Code::FailedPrecondition => "FailedPrecondition",
        Code::Aborted => "Aborted",
        Code::OutOfRange => "OutOfRange",
        Code::Unimplemented => "Unimplemented",
        Code::Internal => "Internal",
        Code::Unavailable => "Unavailable",
        Code::DataLoss => "DataLoss",
        Code::Unauthenticated => "Unauthenticated",
    }
}

/// ghz's error text: `rpc error: code = NotFound desc = ...`.
pub fn error_text(status: &Status) -> String {
    format!(
        "rpc error: code = {} desc = {}",
        code_name(status.code()),
        status.message()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_parse_with_either_separator() {
        assert_eq!(
            "terrain.v1.TerrainService/GetHeight".parse(),
            Ok(Method::GetHeight)
        );
        assert_eq!(
            "grpc.health.v1.Health.Check".parse(),
            Ok(Method::HealthCheck)
        );
        assert_eq!(
            Method::Subscribe.to_string(),
            "terrain.v1.TerrainEvents.Subscribe"
        );
        let err = "terrain.v1.TerrainService/Nope"
            .parse::<Method>()
            .unwrap_err();
        assert!(err.contains("not supported"), "{err}");
        assert!("GetHeight".parse::<Method>().is_err());
    }
}
