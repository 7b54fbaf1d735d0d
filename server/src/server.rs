//! Starting and stopping the server: [`Server::bind`] (validate, open the zone store, load the
//! worlds and register their start-up zones, bind the port),
//! [`Server::run`] (serve until the cancellation token fires, then drain for at most
//! `shutdown_timeout`), and [`Server::spawn`] for running it in the background.
//!
//! Every background task (lifecycle workers and timers, `TrackViewers` stream
//! readers, zone statistics, metrics upkeep, the readiness reporter) is spawned on the
//! server's one [`Tasks`] and ends on its token.
//!
//! Shutdown order: the token fires; readiness drops (`/readyz` 503, gRPC health
//! `NOT_SERVING`); the background tasks' token fires (open lifecycle streams end, so
//! they do not hold up the drain); the listener stops accepting and open connections
//! are asked to close (HTTP/2 `GOAWAY`, idle HTTP/1.1 closed) while in-flight requests
//! finish; then `run` waits for the background tasks. After `shutdown_timeout` (at
//! least [`TASKS_MIN_WAIT`] for the tasks), `run` returns regardless, abandoning what
//! is left (in the binary the runtime then ends, which aborts it).
//!
//! Connections are accepted and served by [`transport::conn::serve`], under the limits of
//! [`ConnectionConfig`]: at most `max_connections` open, `header_read_timeout`,
//! `request_body_timeout` and HTTP/2 keep-alive pings, so no client holds a
//! descriptor for ever without using it.

use std::{
    net::SocketAddr,
    path::PathBuf,
    pin::{Pin, pin},
    sync::Arc,
    time::{Duration, Instant},
};

use axum::Router;
use tokio::{net::TcpListener, task::JoinHandle};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::{
    api::{ApiState, Readiness, RouterError},
    auth::Auth,
    compute::{Compute, ComputeError},
    config::{Config, ConfigError, ConnectionConfig, StoreConfig},
    events::Events,
    lifecycle::{Lifecycles, bake},
    mesh::MeshCache,
    metrics::Metrics,
    query::QueryEngine,
    shutdown::Tasks,
    store::{
        StoreError, ZoneStore,
        embedded::EmbeddedLog,
        log::ZoneLog,
        nats::{NatsError, NatsStore},
    },
    transport,
    world::{
        WorldError, Worlds,
        follow::{self, Replication},
        sources::{self, SourceError},
        stats,
    },
};

/// How often buffered histogram samples are folded in when nobody scrapes.
const METRICS_UPKEEP: Duration = Duration::from_secs(5);
/// The least time shutdown waits for the background tasks, even after a drain that
/// used all of `shutdown_timeout`.
pub const TASKS_MIN_WAIT: Duration = Duration::from_secs(1);

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("data_dir {path}: {source}")]
    DataDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The shared store (NATS) could not be reached or followed.
    #[error("store (nats): {0}")]
    Shared(String),
    #[error("worlds: {0}")]
    World(#[from] WorldError),
    /// A world's start-up zones could not be read or registered; names the key.
    #[error(transparent)]
    Zones(#[from] SourceError),
    #[error("start-up task: {0}")]
    Task(#[from] tokio::task::JoinError),
    #[error("metrics: {0}")]
    Metrics(#[from] metrics_exporter_prometheus::BuildError),
    #[error(transparent)]
    Compute(#[from] ComputeError),
    #[error(transparent)]
    Router(#[from] RouterError),
    /// The TLS certificate or key could not be loaded; names the key.
    #[error(transparent)]
    Tls(#[from] crate::transport::tls::TlsError),
    #[error("listen {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
}

/// Why serving stopped abnormally.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("server task: {0}")]
    Task(#[from] tokio::task::JoinError),
    #[error("baking the worlds: {0}")]
    Bake(crate::lifecycle::LifecycleError),
}

/// Either way the server can fail.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Start(#[from] StartError),
    #[error(transparent)]
    Serve(#[from] ServeError),
}

/// A bound, ready-to-run server.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    local_addr: SocketAddr,
    router: Router,
    state: Arc<ApiState>,
    shutdown_timeout: Duration,
    /// Timeouts and the cap on open connections.
    connections: ConnectionConfig,
    /// TLS for every connection, if configured.
    tls: Option<transport::tls::Tls>,
    stats_interval: Duration,
    /// Tiles meshed around each spawn point before ready, if any.
    warm_radius: Option<u32>,
    /// The zone store and the followers of the worlds' logs: closed when serving
    /// ends, so the data directory is free for the next server.
    storage: Storage,
    /// Every background task; they end on its token.
    tasks: Tasks,
}

impl Server {
    /// Validates `config`, creates the data directory, opens the zone store, loads the
    /// worlds with their committed zones, registers their start-up zones, and binds
    /// the listen address (port 0 picks a free one; see [`Server::local_addr`]).
    pub async fn bind(config: Config) -> Result<Server, StartError> {
        config.validate()?;
        if config.admin_token.is_none() && !config.listen.ip().is_loopback() {
            warn!(listen = %config.listen, "insecure: anyone who can reach this address may change the worlds (no admin_token)");
        }
        let tls = match &config.tls {
            Some(files) => Some(transport::tls::acceptor(&files.cert, &files.key)?),
            None => None,
        };
        if tls.is_none() && !config.listen.ip().is_loopback() {
            warn!(listen = %config.listen, "no TLS (tls_cert, tls_key): requests, answers and the admin token cross the network in clear text; anyone on the path can read or change them");
        }
        let metrics = Arc::new(Metrics::new()?);
        let events = Arc::new(Events::new(
            &config.limits,
            &config.connections,
            Arc::clone(&metrics),
        ));
        let compute = Compute::with_nice(config.compute_nice, config.requests.request_timeout)?;
        let meshes = Arc::new(MeshCache::new(
            config.limits.mesh_cache_bytes,
            compute.clone(),
            Arc::clone(&metrics),
        ));
        let (worlds, storage) = open_worlds(&config, &events, &meshes, &metrics).await?;
        let tasks = Tasks::new();
        let lifecycles = Arc::new(Lifecycles::new(
            &worlds,
            config.lifecycle,
            &config.limits,
            &meshes,
            &metrics,
            &compute,
            &tasks,
        ));
        let engine = QueryEngine::new(worlds, config.limits, compute, Arc::clone(&metrics), meshes);
        let state = Arc::new(ApiState {
            engine,
            readiness: Readiness::new().await,
            metrics,
            auth: Auth::new(config.admin_token.clone()),
            events,
            lifecycles,
            connections: config.connections,
            store: Arc::clone(&storage.store),
            cors: crate::api::http::cors::Origins::of(&config.cors_origins)?,
        });
        let router = transport::router(Arc::clone(&state), config.requests)?;
        let addr = config.listen;
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| StartError::Bind { addr, source })?;
        let local_addr = listener
            .local_addr()
            .map_err(|source| StartError::Bind { addr, source })?;
        Ok(Server {
            listener,
            local_addr,
            router,
            state,
            shutdown_timeout: config.shutdown_timeout,
            connections: config.connections,
            tls,
            stats_interval: config.stats_interval,
            warm_radius: config.lifecycle.warm_radius,
            storage,
            tasks,
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Serves until `shutdown` fires, then drains for at most the configured
    /// `shutdown_timeout`. The steps: start the background tasks, accept connections
    /// while the worlds bake, serve until the token fires (or baking fails), drain,
    /// then end the tasks and close the store.
    pub async fn run(self, shutdown: CancellationToken) -> Result<(), ServeError> {
        let Server {
            listener,
            local_addr,
            router,
            state,
            shutdown_timeout,
            mut connections,
            tls,
            stats_interval,
            warm_radius,
            storage,
            tasks,
        } = self;
        info!(addr = %local_addr, "listening on {local_addr}");
        start_tasks(&tasks, &state, &storage, stats_interval);
        connections.max_connections = transport::conn::connection_cap(connections.max_connections);
        let stop_accepting = CancellationToken::new();
        let mut serve = pin!(transport::conn::serve(
            listener,
            router,
            connections,
            tls,
            stop_accepting.clone(),
            Arc::clone(&state.metrics),
        ));
        let bake = bake_worlds(&state, warm_radius);
        let stopped = serve_until(&shutdown, bake, serve.as_mut()).await;
        let deadline = Instant::now() + shutdown_timeout;
        let result = match stopped {
            Stopped::Failed(err) => Err(ServeError::Bake(err)),
            Stopped::ListenerEnded => Ok(()),
            Stopped::Asked => {
                drain(&state, &tasks, &stop_accepting, serve, shutdown_timeout).await;
                Ok(())
            }
        };
        let left = deadline.saturating_duration_since(Instant::now());
        tasks.shutdown(left.max(TASKS_MIN_WAIT)).await;
        storage.close().await;
        if result.is_ok() {
            info!("shutdown complete");
        }
        result
    }

    /// Runs the server on a background task with its own cancellation token.
    pub fn spawn(self) -> RunningServer {
        let token = CancellationToken::new();
        let local_addr = self.local_addr;
        let task = tokio::spawn(self.run(token.clone()));
        RunningServer {
            local_addr,
            token,
            task,
        }
    }
}

/// Why [`serve_until`] returned.
enum Stopped {
    /// The shutdown token fired.
    Asked,
    /// Baking a world failed: the server cannot become ready.
    Failed(crate::lifecycle::LifecycleError),
    /// The accept loop ended on its own.
    ListenerEnded,
}

/// The background tasks of a running server: metrics upkeep, zone statistics, the
/// lifecycle workers and timers, and (with a shared store) the readiness reporter.
fn start_tasks(tasks: &Tasks, state: &Arc<ApiState>, storage: &Storage, stats_interval: Duration) {
    tasks.spawn(metrics_upkeep(
        Arc::clone(&state.metrics),
        tasks.token().clone(),
    ));
    tasks.spawn(stats::report_periodically(
        Arc::clone(state.engine.worlds()),
        stats_interval,
        tasks.token().clone(),
    ));
    state
        .lifecycles
        .spawn_tasks(state.engine.compute().threads());
    if storage.shared {
        tasks.spawn(report_readiness(
            Arc::clone(&storage.replication),
            Arc::clone(state),
            tasks.token().clone(),
        ));
    }
}

/// Bakes every world (meshes around its spawn points), then marks the server ready.
async fn bake_worlds(
    state: &ApiState,
    warm_radius: Option<u32>,
) -> Result<(), crate::lifecycle::LifecycleError> {
    let engine = &state.engine;
    let threads = engine.compute().threads();
    for world in engine.worlds().iter() {
        let baked = bake::bake(
            world,
            engine.meshes(),
            engine.compute(),
            warm_radius,
            threads,
        )
        .await?;
        state.metrics.baked(world.id(), baked.elapsed);
    }
    state.readiness.set(true).await;
    info!("ready: every world baked");
    Ok(())
}

/// Serves (through `serve`, which is polled, not consumed) while `bake` runs, until
/// the shutdown token fires, baking fails or the accept loop ends.
async fn serve_until(
    shutdown: &CancellationToken,
    bake: impl Future<Output = Result<(), crate::lifecycle::LifecycleError>>,
    mut serve: Pin<&mut impl Future<Output = ()>>,
) -> Stopped {
    let mut bake = pin!(bake);
    let mut baking = true;
    loop {
        tokio::select! {
            biased;
            () = shutdown.cancelled() => return Stopped::Asked,
            result = &mut bake, if baking => {
                baking = false;
                if let Err(err) = result {
                    return Stopped::Failed(err);
                }
            }
            // The accept loop ends only once `stop_accepting` fires.
            () = &mut serve => return Stopped::ListenerEnded,
        }
    }
}

/// Drops readiness, ends the event streams and the background tasks' token, stops
/// accepting and waits at most `timeout` for in-flight requests.
async fn drain(
    state: &ApiState,
    tasks: &Tasks,
    stop_accepting: &CancellationToken,
    serve: Pin<&mut impl Future<Output = ()>>,
    timeout: Duration,
) {
    info!(?timeout, "shutting down: draining in-flight requests");
    state.readiness.set(false).await;
    // Open event and lifecycle streams end now, so they do not hold up the drain;
    // the other background tasks are asked to end with them.
    state.events.close();
    tasks.cancel();
    stop_accepting.cancel();
    if tokio::time::timeout(timeout, serve).await.is_err() {
        warn!(?timeout, "drain timed out; abandoning open connections");
    }
}

/// The zone store and the followers of the worlds' logs: the one teardown of both
/// ([`Storage::close`]).
#[derive(Debug)]
struct Storage {
    store: Arc<ZoneStore>,
    replication: Arc<Replication>,
    /// Whether the logs are shared with other replicas (NATS): readiness then follows
    /// replication.
    shared: bool,
}

impl Storage {
    /// Stops following (the readiness reporter is one of the server's tasks), then
    /// closes the store on a blocking thread (it waits for a commit in progress).
    async fn close(self) {
        self.replication.shutdown(FOLLOWERS_WAIT).await;
        close_store(self.store).await;
    }
}

/// How long closing the store waits for the followers to finish what they apply.
const FOLLOWERS_WAIT: Duration = Duration::from_secs(5);

/// Closes `store` on a blocking thread: through [`Storage::close`], or directly when
/// start-up fails before the followers exist.
async fn close_store(store: Arc<ZoneStore>) {
    if let Err(e) = tokio::task::spawn_blocking(move || store.close()).await {
        warn!(error = %e, "closing the zone store");
    }
}

/// Keeps `/readyz` and gRPC health in step with [`Replication::current`] until
/// `shutdown`.
async fn report_readiness(
    replication: Arc<Replication>,
    state: Arc<ApiState>,
    shutdown: CancellationToken,
) {
    let mut tick = tokio::time::interval(follow::TICK);
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            _ = tick.tick() => {}
        }
        let current = replication.current().await;
        state.readiness.set_replicated(current).await;
    }
}

/// Each world's zone log: its part of the embedded store, or its NATS bucket.
async fn open_logs(
    config: &StoreConfig,
    store: &Arc<ZoneStore>,
    worlds: &Worlds,
) -> Result<Vec<Arc<dyn ZoneLog>>, StartError> {
    match config {
        StoreConfig::Embedded => {
            let store = Arc::clone(store);
            let ids: Vec<String> = worlds.iter().map(|w| w.id().to_string()).collect();
            let logs = tokio::task::spawn_blocking(move || {
                ids.iter()
                    .map(|id| {
                        EmbeddedLog::open(Arc::clone(&store), id)
                            .map(|log| Arc::new(log) as Arc<dyn ZoneLog>)
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .await??;
            Ok(logs)
        }
        StoreConfig::Nats(nats) => {
            let shared = |e: NatsError| StartError::Shared(e.to_string());
            let client = NatsStore::connect(nats).await.map_err(shared)?;
            let buckets = client
                .buckets(worlds.iter().map(|w| w.id()))
                .await
                .map_err(shared)?;
            Ok(buckets
                .into_iter()
                .map(|b| Arc::new(b) as Arc<dyn ZoneLog>)
                .collect())
        }
    }
}

/// Creates the data directory, opens the store and every world (on a blocking
/// thread), follows each world's log (until caught up), then registers each world's
/// start-up zones through its registry.
async fn open_worlds(
    config: &Config,
    events: &Arc<Events>,
    meshes: &Arc<MeshCache>,
    metrics: &Arc<Metrics>,
) -> Result<(Arc<Worlds>, Storage), StartError> {
    let events = Arc::clone(events);
    let meshes: Arc<dyn crate::world::CommitListener> = Arc::clone(meshes) as _;
    let data_dir = config.data_dir.clone();
    let configs = config.worlds.clone();
    let limits = config.limits;
    let opened = tokio::task::spawn_blocking(move || {
        std::fs::create_dir_all(&data_dir).map_err(|source| StartError::DataDir {
            path: data_dir.clone(),
            source,
        })?;
        let store = Arc::new(ZoneStore::open(&data_dir)?);
        info!(path = %store.path().display(), "zone store open");
        // First: cached tiles are current before anyone hears of the change.
        // Events go last: every earlier listener has run when one is published.
        let listeners: Vec<Arc<dyn crate::world::CommitListener>> =
            vec![meshes, events.publisher()];
        let opened = Worlds::open(&configs, &store, &limits, &listeners)
            .map_err(StartError::from)
            .and_then(|worlds| {
                events.attach(&store, &worlds)?;
                let startup = configs
                    .iter()
                    .enumerate()
                    .map(|(i, c)| sources::read(c, i))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok((worlds, startup))
            });
        Ok::<_, StartError>((opened, store))
    })
    .await??;
    let (opened, store) = opened;
    // Until the followers run, a failure closes the store here, once.
    let (worlds, startup, replication) = match follow_worlds(config, &store, opened, metrics).await
    {
        Ok(followed) => followed,
        Err(e) => {
            close_store(store).await;
            return Err(e);
        }
    };
    let storage = Storage {
        store,
        replication,
        shared: matches!(config.store, StoreConfig::Nats(_)),
    };
    for (world, zones) in worlds.iter().zip(startup) {
        if let Err(err) = sources::register(world, zones).await {
            storage.close().await;
            return Err(err.into());
        }
        let state = world.snapshot();
        info!(
            world = world.id(),
            generator = world.kind().as_str(),
            seed = world.seed(),
            overlap = state.zones().overlap().as_str(),
            zones = state.zones().len(),
            revision = state.revision(),
            event_writers = config.limits.event_writers,
            "world ready"
        );
    }
    Ok((worlds, storage))
}

/// The opened worlds' logs, followed until caught up.
async fn follow_worlds(
    config: &Config,
    store: &Arc<ZoneStore>,
    opened: Result<(Worlds, Vec<Vec<sources::StartupZone>>), StartError>,
    metrics: &Arc<Metrics>,
) -> Result<
    (
        Arc<Worlds>,
        Vec<Vec<sources::StartupZone>>,
        Arc<Replication>,
    ),
    StartError,
> {
    let (worlds, startup) = opened?;
    let worlds = Arc::new(worlds);
    let logs = open_logs(&config.store, store, &worlds).await?;
    let replication = follow::start(&worlds, logs, Arc::clone(metrics))
        .await
        .map_err(StartError::Shared)?;
    Ok((worlds, startup, Arc::new(replication)))
}

/// Folds buffered histogram samples in periodically, until `shutdown`.
async fn metrics_upkeep(metrics: Arc<Metrics>, shutdown: CancellationToken) {
    let mut interval = tokio::time::interval(METRICS_UPKEEP);
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            _ = interval.tick() => metrics.upkeep(),
        }
    }
}

/// A server running on a background task (see [`Server::spawn`]).
#[derive(Debug)]
pub struct RunningServer {
    local_addr: SocketAddr,
    token: CancellationToken,
    task: JoinHandle<Result<(), ServeError>>,
}

impl RunningServer {
    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The token that stops the server when cancelled.
    pub fn shutdown_token(&self) -> &CancellationToken {
        &self.token
    }

    /// Starts shutdown and waits for the drain to end.
    pub async fn shutdown(self) -> Result<(), ServeError> {
        self.token.cancel();
        self.task.await?
    }
}
