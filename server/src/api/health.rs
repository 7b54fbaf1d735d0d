//! Readiness: one flag behind `GET /readyz` and `grpc.health.v1`.
//!
//! The server is ready once every world is built and it is serving; it stops being
//! ready as soon as shutdown starts, so load balancers drain it before it goes away.
//! Liveness (`GET /healthz`) is simply "the process answers".

use std::sync::atomic::{AtomicBool, Ordering};

use terrain_proto::v1::terrain_service_server::SERVICE_NAME;
use tonic_health::{
    ServingStatus,
    pb::health_server::HealthServer,
    server::{HealthReporter, HealthService},
};

/// The gRPC service names whose status follows readiness: `""` (the whole server) and
/// the terrain service.
const HEALTH_SERVICES: [&str; 2] = ["", SERVICE_NAME];

/// The readiness of one server.
#[derive(Debug)]
pub struct Readiness {
    ready: AtomicBool,
    /// False while a replica of a shared store is behind or cannot reach it (always
    /// true with the embedded store).
    replicated: AtomicBool,
    /// Publishes the same state over `grpc.health.v1`.
    reporter: HealthReporter,
}

impl Readiness {
    /// Not ready; `grpc.health.v1` reports `NOT_SERVING` until [`Readiness::set`].
    pub async fn new() -> Self {
        let readiness = Readiness {
            ready: AtomicBool::new(false),
            replicated: AtomicBool::new(true),
            reporter: HealthReporter::new(),
        };
        readiness.publish(ServingStatus::NotServing).await;
        readiness
    }

    /// The `grpc.health.v1.Health` service reporting this readiness.
    pub fn grpc_service(&self) -> HealthServer<HealthService> {
        HealthServer::new(HealthService::from_health_reporter(self.reporter.clone()))
    }

    /// Marks the server ready (or not) on both surfaces.
    pub async fn set(&self, ready: bool) {
        self.ready.store(ready, Ordering::Release);
        self.publish_current().await;
    }

    /// Marks the replica caught up with its shared store (or not).
    pub async fn set_replicated(&self, current: bool) {
        if self.replicated.swap(current, Ordering::AcqRel) != current {
            self.publish_current().await;
        }
    }

    async fn publish_current(&self) {
        let status = if self.is_ready() {
            ServingStatus::Serving
        } else {
            ServingStatus::NotServing
        };
        self.publish(status).await;
    }

    /// Whether `/readyz` answers 200.
    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Acquire) && self.replicated.load(Ordering::Acquire)
    }

    async fn publish(&self, status: ServingStatus) {
        for service in HEALTH_SERVICES {
            self.reporter.set_service_status(service, status).await;
        }
    }
}
