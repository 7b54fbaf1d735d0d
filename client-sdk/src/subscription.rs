//! [`Subscription`]: an event stream that survives server restarts and network
//! cuts. It remembers the revision of the last event it delivered and, when the
//! stream ends or fails, reconnects (with backoff, for as long as it takes) and
//! resumes from there: the server replays what was missed from its mutation log, so
//! the caller sees every event exactly once and in revision order.
//!
//! When the server cannot replay (history pruned, or this subscriber fell behind)
//! it says `resync`. With [`ResyncMode::Surface`] the caller gets
//! [`SubscriptionEvent::Resync`] and re-reads what it holds; with
//! [`ResyncMode::Refetch`] the subscription refetches the zone list itself and hands
//! it over as [`SubscriptionEvent::Resynced`], then continues live after it.

use std::time::Duration;

use crate::{
    Area, ClientError, EventStream, RetryPolicy, StreamMessage, TerrainClient, TileEvent, ZoneList,
};

/// What a [`Subscription`] does when the server says `resync`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResyncMode {
    /// Hand [`SubscriptionEvent::Resync`] to the caller, who re-reads its state; the
    /// stream continues after the resync's revision.
    #[default]
    Surface,
    /// Refetch the zone list, hand it over as [`SubscriptionEvent::Resynced`], and
    /// continue after the list's revision.
    Refetch,
}

/// What [`Subscription::next`] delivers.
#[derive(Debug, Clone, PartialEq)]
pub enum SubscriptionEvent {
    /// A committed mutation, each revision exactly once, in ascending order.
    Tiles(TileEvent),
    /// Events up to `revision` could not be delivered: re-read the state.
    Resync { revision: u64 },
    /// The zone list, refetched after a resync ([`ResyncMode::Refetch`]); events
    /// continue after its revision.
    Resynced(ZoneList),
}

/// Settings of a [`Subscription`]; see [`TerrainClient::subscription`].
#[derive(Debug, Clone)]
pub struct SubscriptionBuilder {
    client: TerrainClient,
    world: String,
    area: Area,
    from_revision: Option<u64>,
    from_epoch: Option<String>,
    resync: ResyncMode,
    initial_backoff: Duration,
    max_backoff: Duration,
    open_timeout: Option<Duration>,
}

impl SubscriptionBuilder {
    /// Only events matching `area` (default: everything).
    pub fn area(mut self, area: Area) -> Self {
        self.area = area;
        self
    }

    /// Deliver every event after `revision` first (default: live from opening).
    pub fn from_revision(mut self, revision: u64) -> Self {
        self.from_revision = Some(revision);
        self
    }

    /// The epoch of the history `from_revision` belongs to (a [`ZoneList`]'s, or
    /// [`Subscription::epoch`]): a server with another history (restored from a
    /// backup, restarted on an empty data directory) then answers with a resync
    /// instead of replaying events that are not the ones after what you hold.
    pub fn from_epoch(mut self, epoch: impl Into<String>) -> Self {
        self.from_epoch = Some(epoch.into()).filter(|e| !e.is_empty());
        self
    }

    pub fn resync(mut self, mode: ResyncMode) -> Self {
        self.resync = mode;
        self
    }

    /// Reconnection delays: `initial`, doubled per failed attempt up to `max`
    /// (default 50 ms to 2 s). Attempts never stop while the subscription lives.
    pub fn backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.initial_backoff = initial;
        self.max_backoff = max;
        self
    }

    /// How long one attempt to open the stream waits for the server's `Subscribed`
    /// (its first message); `None` waits as long as it takes. Default 10 s. An
    /// attempt that runs out fails as [`ClientError::DeadlineExceeded`], which is
    /// transient: [`SubscriptionBuilder::open`] returns it, a reconnection tries
    /// again. A server answers at once; this bounds a connection or proxy that
    /// accepts the stream and then says nothing.
    pub fn open_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.open_timeout = timeout;
        self
    }

    /// Opens the first stream and reads its `Subscribed`, so a bad world or area
    /// fails here.
    pub async fn open(self) -> Result<Subscription, ClientError> {
        let mut sub = Subscription {
            backoff: RetryPolicy {
                max_attempts: u32::MAX,
                initial_backoff: self.initial_backoff,
                max_backoff: self.max_backoff,
            },
            client: self.client,
            world: self.world,
            area: self.area,
            last: self.from_revision,
            epoch: self.from_epoch.filter(|_| self.from_revision.is_some()),
            resync: self.resync,
            stream: None,
            first: None,
            subscription_id: None,
            open_timeout: self.open_timeout,
            reconnects: 0,
            fruitless: 0,
        };
        sub.connect().await?;
        Ok(sub)
    }
}

/// A resumable event stream of one world; see the module docs.
#[derive(Debug)]
pub struct Subscription {
    client: TerrainClient,
    world: String,
    area: Area,
    /// The revision of the last event delivered (or the resume point given, or the
    /// world's revision when the first stream opened live).
    last: Option<u64>,
    /// The epoch of the history `last` belongs to, once known.
    epoch: Option<String>,
    resync: ResyncMode,
    stream: Option<EventStream>,
    /// The open stream's first message when it was not `Subscribed`, for `next`.
    first: Option<StreamMessage>,
    subscription_id: Option<String>,
    open_timeout: Option<Duration>,
    reconnects: u64,
    /// Streams opened since one last delivered something: the backoff exponent,
    /// so a stream that keeps failing at once is not reopened in a tight loop.
    fruitless: u32,
    backoff: RetryPolicy,
}

impl TerrainClient {
    /// A resumable subscription to `world`'s events; configure it, then `open()`.
    pub fn subscription(&self, world: &str) -> SubscriptionBuilder {
        SubscriptionBuilder {
            client: self.clone(),
            world: world.to_string(),
            area: Area::All,
            from_revision: None,
            from_epoch: None,
            resync: ResyncMode::default(),
            initial_backoff: Duration::from_millis(50),
            max_backoff: Duration::from_secs(2),
            open_timeout: Some(Duration::from_secs(10)),
        }
    }
}

impl Subscription {
    /// The revision the caller has seen everything up to.
    pub fn last_revision(&self) -> Option<u64> {
        self.last
    }

    /// The epoch of the history [`Subscription::last_revision`] belongs to, once a
    /// stream has said it: resume a later subscription with both.
    pub fn epoch(&self) -> Option<&str> {
        self.epoch.as_deref()
    }

    /// How many times the stream was re-opened after ending or failing.
    pub fn reconnects(&self) -> u64 {
        self.reconnects
    }

    /// The area of interest, kept across reconnections.
    pub fn area(&self) -> Area {
        self.area
    }

    /// Changes the area of interest. Applied to the open stream when there is one,
    /// and to every stream opened after.
    pub async fn set_area(&mut self, area: Area) -> Result<(), ClientError> {
        self.area = area;
        if let (Some(id), Some(_)) = (&self.subscription_id, &self.stream) {
            match self.client.update_subscription(id, area).await {
                Ok(()) => {}
                // The stream went away meanwhile: the next one opens with the area. (The
                // proto's spelling; servers before it named the field in camelCase.)
                Err(ClientError::InvalidArgument { field, .. })
                    if field == "subscription_id" || field == "subscriptionId" =>
                {
                    self.stream = None
                }
                Err(e) if e.is_transient() => self.stream = None,
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The next event: waits, reconnecting as needed. Fails only for errors that
    /// reconnecting cannot cure (the world is gone, the area is invalid, ...).
    pub async fn next(&mut self) -> Result<SubscriptionEvent, ClientError> {
        loop {
            if self.stream.is_none() {
                self.reconnect().await?;
            }
            let Some(stream) = self.stream.as_mut() else {
                continue;
            };
            let read = match self.first.take() {
                Some(first) => Ok(Some(first)),
                None => stream.next().await,
            };
            let message = match read {
                Ok(Some(m)) => m,
                Ok(None) => {
                    tracing::debug!(world = %self.world, last = ?self.last, "event stream ended");
                    self.stream = None;
                    continue;
                }
                // Whatever broke the open stream, a new one tells whether it lasts.
                Err(e) => {
                    tracing::debug!(world = %self.world, error = %e, "event stream failed");
                    self.stream = None;
                    continue;
                }
            };
            if let Some(event) = self.accept(message).await? {
                return Ok(event);
            }
        }
    }

    /// Updates the resume point from one stream message; the event to deliver, if any.
    async fn accept(
        &mut self,
        message: StreamMessage,
    ) -> Result<Option<SubscriptionEvent>, ClientError> {
        let Some(message) = self.take_subscribed(message) else {
            return Ok(None);
        };
        match message {
            // Taken in above.
            StreamMessage::Subscribed { .. } => Ok(None),
            StreamMessage::Tiles(event) => {
                if self.last.is_some_and(|last| event.revision <= last) {
                    return Ok(None);
                }
                self.last = Some(event.revision);
                self.fruitless = 0;
                Ok(Some(SubscriptionEvent::Tiles(event)))
            }
            StreamMessage::Resync { revision, epoch } => {
                self.fruitless = 0;
                if self.epoch.as_deref().is_some_and(|e| e != epoch) {
                    // Another history: its revisions are not comparable with the
                    // ones held, so the resume point is its, not the larger one.
                    self.last = None;
                }
                self.epoch = Some(epoch).filter(|e| !e.is_empty());
                self.resync_to(revision).await.map(Some)
            }
        }
    }

    /// Handles a `resync` at `revision` as the mode says.
    async fn resync_to(&mut self, revision: u64) -> Result<SubscriptionEvent, ClientError> {
        match self.resync {
            ResyncMode::Surface => {
                self.last = Some(self.last.map_or(revision, |l| l.max(revision)));
                Ok(SubscriptionEvent::Resync { revision })
            }
            ResyncMode::Refetch => {
                let list = self.refetch().await?;
                if !list.epoch.is_empty() && self.epoch.as_deref() != Some(&list.epoch) {
                    // The history changed again in between: the list's is the one.
                    self.epoch = Some(list.epoch.clone());
                    self.last = Some(list.revision);
                } else {
                    self.last = Some(list.revision.max(revision));
                }
                Ok(SubscriptionEvent::Resynced(list))
            }
        }
    }

    /// The zone list for a resync; waits out transient failures (the server may be
    /// restarting) like a reconnection does.
    async fn refetch(&mut self) -> Result<ZoneList, ClientError> {
        let mut attempt = 0;
        loop {
            match self.client.list_flat_zones(&self.world).await {
                Err(e) if e.is_transient() => {
                    attempt += 1;
                    tokio::time::sleep(self.backoff.backoff(attempt)).await;
                }
                result => return result,
            }
        }
    }

    /// Opens a stream from the resume point; retries transient failures forever.
    async fn reconnect(&mut self) -> Result<(), ClientError> {
        self.reconnects += 1;
        let mut attempt = self.fruitless;
        loop {
            if attempt > 0 {
                tokio::time::sleep(self.backoff.backoff(attempt)).await;
            }
            match self.connect().await {
                Ok(()) => {
                    self.fruitless = self.fruitless.saturating_add(1);
                    return Ok(());
                }
                Err(e) if e.is_transient() => {
                    tracing::debug!(world = %self.world, attempt, error = %e, "resubscribing");
                    attempt = attempt.saturating_add(1);
                }
                Err(e) => return Err(e),
            }
        }
    }

    async fn connect(&mut self) -> Result<(), ClientError> {
        // One attempt here: `reconnect` owns the backoff.
        let mut client = self.client.clone();
        client.retry = RetryPolicy::none();
        let epoch = self.epoch.clone().filter(|_| self.last.is_some());
        let opening = async {
            let mut stream = client
                .subscribe_resuming(&self.world, self.area, self.last, epoch.as_deref())
                .await?;
            let first = stream.next().await?;
            Ok::<_, ClientError>((stream, first))
        };
        let (stream, first) = match self.open_timeout {
            Some(limit) => tokio::time::timeout(limit, opening).await.map_err(|_| {
                ClientError::DeadlineExceeded(format!(
                    "no Subscribed from the server within the open timeout ({limit:?})"
                ))
            })??,
            None => opening.await?,
        };
        let Some(first) = first else {
            return Err(ClientError::Unavailable(
                "the stream ended before Subscribed".into(),
            ));
        };
        self.stream = Some(stream);
        self.subscription_id = None;
        // Anything but `Subscribed` first is an event, for `next` to deliver.
        self.first = self.take_subscribed(first);
        Ok(())
    }

    /// Takes in `message` if it is a `Subscribed` (the stream's id, and the resume
    /// point of a live stream); hands anything else back.
    fn take_subscribed(&mut self, message: StreamMessage) -> Option<StreamMessage> {
        let StreamMessage::Subscribed {
            subscription_id,
            revision,
            epoch,
        } = message
        else {
            return Some(message);
        };
        self.subscription_id = Some(subscription_id);
        // A live stream starts at the world's revision of its opening. A resume from
        // another history is followed by a `resync` (the server checks the epoch
        // sent), which moves to the new one.
        self.last.get_or_insert(revision);
        self.epoch.get_or_insert(epoch);
        None
    }
}
