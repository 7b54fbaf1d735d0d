//! The hand-over of the follower's snapshots to the JavaScript thread: a task on the
//! addon's runtime forwards each event the follower applied through a threadsafe
//! function, whose callback (on the JavaScript thread) takes the follower's latest
//! snapshot as the view and passes the event on to `nextEvent`, in one step no
//! JavaScript code runs between (see the crate docs).

use std::sync::{Arc, Weak};

use napi::{
    Status,
    bindgen_prelude::Float64Array,
    threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode},
};
use terrain_client::ReplicaEvent;
use tokio::sync::{broadcast, watch};

use crate::replica::Replica;

/// What the follower applied, handed to `nextEvent` once the view shows it.
#[derive(Debug, Clone)]
pub enum Applied {
    Event(ReplicaEvent),
    /// The forwarding task fell behind the follower by this many events.
    Missed(u64),
}

/// One hand-over to the JavaScript thread: take the follower's latest snapshot as the
/// view, then pass on what it applied.
pub(crate) struct Handoff {
    pub(crate) replica: Arc<Replica>,
    pub(crate) applied: Applied,
}

impl Handoff {
    /// On the JavaScript thread: the view's epoch after the hand-over and where its
    /// zones changed ([`Replica::publish`]), for `onPublish`.
    pub(crate) fn run(self) -> Float64Array {
        let changed = self.replica.publish();
        // No receiver is not an error: nobody reads events.
        let _ = self.replica.applied.send(self.applied);
        Float64Array::new(changed)
    }
}

/// The threadsafe function of `onPublish`: weak, so a replica never keeps Node's event
/// loop alive by itself.
pub(crate) type Publisher = ThreadsafeFunction<Handoff, (), Float64Array, Status, false, true>;

/// Hands every snapshot the follower publishes to the JavaScript thread, until the
/// replica is closed or gone.
pub(crate) async fn forward(
    mut feed: broadcast::Receiver<ReplicaEvent>,
    replica: Weak<Replica>,
    mut closed: watch::Receiver<bool>,
    publisher: Publisher,
) {
    loop {
        let applied = tokio::select! {
            event = feed.recv() => match event {
                Ok(e) => Applied::Event(e),
                Err(broadcast::error::RecvError::Lagged(missed)) => Applied::Missed(missed),
                Err(broadcast::error::RecvError::Closed) => return,
            },
            _ = closed.wait_for(|c| *c) => return,
        };
        let Some(replica) = replica.upgrade() else {
            return;
        };
        let status = publisher.call(
            Handoff { replica, applied },
            ThreadsafeFunctionCallMode::NonBlocking,
        );
        if status != Status::Ok {
            // The environment is going away.
            return;
        }
    }
}
