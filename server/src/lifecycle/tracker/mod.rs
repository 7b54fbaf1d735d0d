//! One world's live tiles: the viewers, the per-tile ring counts, the generation
//! queue, the cull schedule, and the transitions they produce.
//!
//! Everything here is synchronous and runs under one short lock; the async tasks in
//! [`super::tasks`] do the slow parts (building meshes, sleeping until deadlines).
//! The tracker also keeps the deadline the cull timer sleeps until, so a change wakes
//! the timer only when a cull falls due sooner ([`Tracker::take_timer_wake`]).
//!
//! A tile's life:
//! 1. A viewer's active ring takes it in: it is queued for generation, by distance to
//!    the nearest viewer that reported it.
//! 2. The worker builds its mesh into the cache. Only then is the tile *announced*:
//!    `entered` transitions for every ring it is in now (active first). Leaving every
//!    ring while still queued drops the work: it is never generated late.
//! 3. Ring changes of a ready tile are announced at once (`entered` widest first,
//!    `left` narrowest first).
//! 4. Outside every active ring, a ready tile waits `cull_grace`; if no ring takes it
//!    back by then, it is `culled`: announced, and its mesh released from the cache.
//!
//! A viewer reporting a velocity also holds the tiles its active ring will reach
//! within the configured `lookahead` ([`lookahead_tiles`]): they are queued (nearest
//! first, after nothing: the queue orders by distance) and built like ring tiles, but
//! announced only when a ring takes them in. When the viewer turns or stops, the old
//! path's tiles are released as a ring's are: dropped if still queued, culled after
//! the grace if built.

use std::{
    collections::{BTreeSet, HashMap, hash_map::Entry},
    sync::Arc,
    time::Instant,
};

use terrain_core::TileGrid;

use super::error::LifecycleError;
use super::rings::{
    Ring, Tile, TileRect, Viewer, check_viewer, checked_rings, lookahead_tiles, tile_dist2,
};
use crate::config::LifecycleConfig;

/// What a transition says about a tile, one announced change of one tile, and the
/// transitions of one step, numbered per world: the shared model's.
pub use terrain_model::{Step, TileChange, TileTransition};

/// [`Tracker::remove`] found no viewer with that id and owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoSuchViewer;

/// Who reported a viewer, which decides how it goes away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// HTTP: removed by `DELETE`, or after `viewer_ttl` without an update.
    Http,
    /// A `TrackViewers` stream: removed with the stream.
    Stream(u64),
}

#[derive(Debug)]
struct ViewerEntry {
    viewer: Viewer,
    rects: [TileRect; 3],
    /// The look-ahead tiles outside its active ring, row-major.
    ahead: Vec<Tile>,
    owner: Owner,
    seen: Instant,
}

/// Where a tile's mesh stands.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Status {
    /// Waiting for the worker, with its priority (squared distance to a viewer).
    Queued(f64),
    /// Being built.
    Generating,
    /// Built into the cache; announced.
    Ready,
}

#[derive(Debug)]
struct TileState {
    /// Viewers whose ring holds the tile, per ring.
    counts: [u32; 3],
    /// Viewers whose look-ahead path (and no ring of theirs) holds the tile.
    ahead: u32,
    /// The rings last announced (ready tiles only).
    announced: u8,
    /// Ever announced in a ring: only such a tile's cull is announced (a look-ahead
    /// tile no ring took in goes silently).
    shown: bool,
    status: Status,
    /// When it is culled, if it stays outside every ring.
    cull_at: Option<Instant>,
}

impl TileState {
    fn mask(&self) -> u8 {
        Ring::ALL
            .iter()
            .filter(|r| self.counts[**r as usize] > 0)
            .fold(0, |m, r| m | r.bit())
    }

    /// Whether some ring or some look-ahead path holds the tile.
    fn wanted(&self) -> bool {
        self.mask() != 0 || self.ahead > 0
    }
}

/// One viewer's holding: its ring rectangles and its look-ahead tiles (row-major).
type Holding<'a> = (&'a [TileRect; 3], &'a [Tile]);

/// Whether row-major sorted `tiles` holds `tile`.
fn holds_sorted(tiles: &[Tile], (x, z): Tile) -> bool {
    tiles
        .binary_search_by_key(&(z, x), |&(x, z)| (z, x))
        .is_ok()
}

/// A tile set per ring, each sorted row-major (z, then x): the shared model's.
pub use terrain_model::TileSets;

/// The sets of one viewer's rings.
pub fn tile_sets_of(rects: &[TileRect; 3]) -> TileSets {
    TileSets {
        sim: rects[0].tiles().collect(),
        spawn: rects[1].tiles().collect(),
        active: rects[2].tiles().collect(),
    }
}

fn sorted(mut sets: TileSets) -> TileSets {
    for set in [&mut sets.sim, &mut sets.spawn, &mut sets.active] {
        set.sort_unstable_by_key(|&(x, z)| (z, x));
    }
    sets
}

/// Counters the caller turns into metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Queued generation dropped because no viewer needed the tile any more.
    pub dropped: u64,
    /// Tiles culled.
    pub culled: u64,
}

/// The mutable state of one world's lifecycle.
#[derive(Debug)]
pub struct Tracker {
    layout: TileGrid,
    config: LifecycleConfig,
    max_coordinate: f64,
    viewers: HashMap<String, ViewerEntry>,
    tiles: HashMap<Tile, TileState>,
    /// Queued tiles by priority: (squared distance bits, tz, tx).
    queue: BTreeSet<(u64, i64, i64)>,
    /// Scheduled culls: (deadline, tz, tx).
    culls: BTreeSet<(Instant, i64, i64)>,
    sequence: u64,
    counters: Counters,
    /// Tiles in some viewer's ring, per ring.
    live_counts: [usize; 3],
    /// The deadline the cull timer sleeps until, while it sleeps (`None` while it
    /// runs or was already woken): a cull due sooner needs a wake-up, no other does.
    timer_until: Option<Instant>,
}

/// Transitions gathered during one operation.
type Out = Vec<TileTransition>;

impl Tracker {
    pub fn new(layout: TileGrid, config: LifecycleConfig, max_coordinate: f64) -> Self {
        Tracker {
            layout,
            config,
            max_coordinate,
            viewers: HashMap::new(),
            tiles: HashMap::new(),
            queue: BTreeSet::new(),
            culls: BTreeSet::new(),
            sequence: 0,
            counters: Counters::default(),
            live_counts: [0; 3],
            timer_until: None,
        }
    }

    /// Adds or moves a viewer; returns its ring sets and the step it caused (if any).
    /// Refused input changes nothing.
    /// `admit` sees how many tiles the world would hold with the viewer (every tile
    /// in some active ring or look-ahead path, or waiting out its grace) and may
    /// refuse; a refusal that only the look-ahead causes drops the look-ahead instead.
    pub fn upsert(
        &mut self,
        viewer: Viewer,
        owner: Owner,
        now: Instant,
        admit: impl Fn(usize) -> Result<(), LifecycleError>,
    ) -> Result<([TileRect; 3], Option<Arc<Step>>), LifecycleError> {
        check_viewer(&viewer, self.max_coordinate)?;
        let rects = checked_rings(&self.layout, &self.config.rings, &viewer)?;
        match self.viewers.get(&viewer.id) {
            Some(e) if e.owner != owner => {
                return Err(LifecycleError::OwnedElsewhere {
                    id: viewer.id,
                    by: match e.owner {
                        Owner::Http => "client over HTTP",
                        Owner::Stream(_) => "TrackViewers stream",
                    },
                });
            }
            Some(_) => {}
            None => {
                let max = self.config.max_viewers_per_world;
                if self.viewers.len() >= max {
                    return Err(LifecycleError::TooManyViewers { max });
                }
            }
        }
        let active = &rects[Ring::Active as usize];
        let added = active
            .tiles()
            .filter(|tile| !self.tiles.contains_key(tile))
            .count();
        let mut ahead = if self.config.lookahead.is_zero() {
            Vec::new()
        } else {
            lookahead_tiles(
                &self.layout,
                &self.config.rings,
                &viewer,
                self.config.lookahead,
                active,
            )
        };
        let added_ahead = ahead
            .iter()
            .filter(|tile| !self.tiles.contains_key(tile))
            .count();
        if ahead.is_empty() || admit(self.tiles.len() + added + added_ahead).is_err() {
            ahead.clear();
            admit(self.tiles.len() + added)?;
        }
        let (x, z) = (viewer.x, viewer.z);
        let entry = ViewerEntry {
            viewer,
            rects,
            ahead,
            owner,
            seen: now,
        };
        // Admitted: the old entry (if any) gives way to the new one.
        let old = self.viewers.remove(&entry.viewer.id);
        let mut out = Vec::new();
        self.apply(
            old.as_ref().map(|e| (&e.rects, e.ahead.as_slice())),
            Some((&entry.rects, &entry.ahead)),
            Some((x, z)),
            now,
            &mut out,
        );
        self.viewers.insert(entry.viewer.id.clone(), entry);
        Ok((rects, self.step(out)))
    }

    /// Removes a viewer and returns the step it causes, or [`NoSuchViewer`] if no viewer
    /// with that id has that owner.
    pub fn remove(
        &mut self,
        id: &str,
        owner: Owner,
        now: Instant,
    ) -> Result<Option<Arc<Step>>, NoSuchViewer> {
        match self.viewers.get(id) {
            Some(e) if e.owner == owner => {}
            _ => return Err(NoSuchViewer),
        }
        let entry = self.viewers.remove(id).ok_or(NoSuchViewer)?;
        let mut out = Vec::new();
        self.apply(
            Some((&entry.rects, &entry.ahead)),
            None,
            None,
            now,
            &mut out,
        );
        Ok(self.step(out))
    }

    /// Removes every viewer of a stream.
    pub fn remove_owner(&mut self, owner: Owner, now: Instant) -> Option<Arc<Step>> {
        self.remove_where(|e| e.owner == owner, now)
    }

    /// Removes the HTTP viewers not updated since `viewer_ttl` before `now`.
    pub fn expire(&mut self, now: Instant) -> Option<Arc<Step>> {
        let ttl = self.config.viewer_ttl;
        self.remove_where(
            |e| e.owner == Owner::Http && now.duration_since(e.seen) >= ttl,
            now,
        )
    }

    fn remove_where(
        &mut self,
        pred: impl Fn(&ViewerEntry) -> bool,
        now: Instant,
    ) -> Option<Arc<Step>> {
        let mut ids: Vec<String> = self
            .viewers
            .iter()
            .filter(|(_, e)| pred(e))
            .map(|(id, _)| id.clone())
            .collect();
        ids.sort_unstable();
        let mut out = Vec::new();
        for id in ids {
            if let Some(entry) = self.viewers.remove(&id) {
                self.apply(
                    Some((&entry.rects, &entry.ahead)),
                    None,
                    None,
                    now,
                    &mut out,
                );
            }
        }
        self.step(out)
    }

    /// Moves ring and look-ahead counts from `old` to `new` and reconciles every
    /// tile whose counts changed, plus the queued tiles of `new` (whose priority may
    /// improve), in row-major order.
    fn apply(
        &mut self,
        old: Option<Holding<'_>>,
        new: Option<Holding<'_>>,
        at: Option<(f64, f64)>,
        now: Instant,
        out: &mut Out,
    ) {
        let mut touched: Vec<Tile> = Vec::new();
        let active = Ring::Active as usize;
        // Every ring is inside the active one, so the active rectangles hold every
        // tile whose counts change.
        for (rects, ahead) in old.into_iter().chain(new) {
            touched.extend(rects[active].tiles());
            touched.extend_from_slice(ahead);
        }
        touched.sort_unstable_by_key(|&(x, z)| (z, x));
        touched.dedup();
        for tile in touched {
            let mut changed = false;
            let mut counts_delta = [0i32; 3];
            for ring in Ring::ALL {
                let was = old.is_some_and(|(o, _)| o[ring as usize].contains(tile));
                let is = new.is_some_and(|(n, _)| n[ring as usize].contains(tile));
                counts_delta[ring as usize] = i32::from(is) - i32::from(was);
                changed |= was != is;
            }
            let was_ahead = old.is_some_and(|(_, a)| holds_sorted(a, tile));
            let is_ahead = new.is_some_and(|(_, a)| holds_sorted(a, tile));
            changed |= was_ahead != is_ahead;
            let queued = matches!(
                self.tiles.get(&tile).map(|s| s.status),
                Some(Status::Queued(_))
            );
            if !changed && !queued {
                continue;
            }
            let dist = at.map(|(x, z)| tile_dist2(&self.layout, tile, x, z));
            let state = self.tiles.entry(tile).or_insert_with(|| TileState {
                counts: [0; 3],
                ahead: 0,
                announced: 0,
                shown: false,
                status: Status::Queued(f64::INFINITY),
                cull_at: None,
            });
            let before = state.mask();
            for (c, d) in state.counts.iter_mut().zip(counts_delta) {
                *c = c.saturating_add_signed(d);
            }
            state.ahead = state
                .ahead
                .saturating_add_signed(i32::from(is_ahead) - i32::from(was_ahead));
            let after = state.mask();
            for ring in Ring::ALL {
                match (before & ring.bit() != 0, after & ring.bit() != 0) {
                    (false, true) => self.live_counts[ring as usize] += 1,
                    (true, false) => self.live_counts[ring as usize] -= 1,
                    _ => {}
                }
            }
            self.reconcile(tile, dist, now, out);
        }
    }

    /// Brings one tile's queue entry, cull schedule and announcement in line with its
    /// ring counts. `dist`: its squared distance to the viewer that just reported it.
    fn reconcile(&mut self, tile: Tile, dist: Option<f64>, now: Instant, out: &mut Out) {
        let Entry::Occupied(mut slot) = self.tiles.entry(tile) else {
            return;
        };
        let state = slot.get_mut();
        let mask = state.mask();
        let wanted = state.wanted();
        if wanted && let Some(at) = state.cull_at.take() {
            self.culls.remove(&(at, tile.1, tile.0));
        }
        match state.status {
            Status::Ready => {
                announce(tile, state.announced, mask, out);
                state.announced = mask;
                state.shown |= mask != 0;
                if !wanted && state.cull_at.is_none() {
                    let at = now + self.config.cull_grace;
                    state.cull_at = Some(at);
                    self.culls.insert((at, tile.1, tile.0));
                }
            }
            Status::Queued(priority) => {
                let key = (priority.to_bits(), tile.1, tile.0);
                if !wanted {
                    self.queue.remove(&key);
                    slot.remove();
                    // Work queued earlier (a finite priority) that nobody needs now.
                    if priority.is_finite() {
                        self.counters.dropped += 1;
                    }
                } else {
                    let better = dist.unwrap_or(f64::INFINITY).min(priority);
                    if better != priority || !self.queue.contains(&key) {
                        self.queue.remove(&key);
                        state.status = Status::Queued(better);
                        self.queue.insert((better.to_bits(), tile.1, tile.0));
                    }
                }
            }
            Status::Generating => {}
        }
    }

    /// The nearest queued tile, now being generated.
    pub fn next_job(&mut self) -> Option<Tile> {
        let (_, tz, tx) = self.queue.pop_first()?;
        let tile = (tx, tz);
        if let Some(state) = self.tiles.get_mut(&tile) {
            state.status = Status::Generating;
        }
        Some(tile)
    }

    /// Queued tiles.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// The worker built `tile`'s mesh: announce it as it stands now.
    pub fn generated(&mut self, tile: Tile, now: Instant) -> Option<Arc<Step>> {
        let state = self.tiles.get_mut(&tile)?;
        state.status = Status::Ready;
        let mut out = Vec::new();
        self.reconcile(tile, None, now, &mut out);
        self.step(out)
    }

    /// Whether `tile` is held: in some active ring, or waiting out its grace.
    pub fn holds(&self, tile: Tile) -> bool {
        self.tiles.contains_key(&tile)
    }

    /// How many tiles are held.
    pub fn held(&self) -> usize {
        self.tiles.len()
    }

    /// The worker failed to build `tile`: it waits, unqueued, until a ring change
    /// queues it again.
    pub fn failed(&mut self, tile: Tile) {
        if let Some(state) = self.tiles.get_mut(&tile)
            && state.status == Status::Generating
        {
            state.status = Status::Queued(f64::INFINITY);
        }
    }

    /// The earliest scheduled cull.
    pub fn next_cull(&self) -> Option<Instant> {
        self.culls.first().map(|c| c.0)
    }

    /// Records that the cull timer sleeps until `until` (`Some`), or runs (`None`).
    pub fn set_timer_until(&mut self, until: Option<Instant>) {
        self.timer_until = until;
    }

    /// Whether the sleeping cull timer must be woken: a cull is now due before the
    /// deadline it sleeps until. True at most once per sleep (the timer counts as
    /// woken from then on), so callers notify only when it changes something.
    pub fn take_timer_wake(&mut self) -> bool {
        match (self.next_cull(), self.timer_until) {
            (Some(next), Some(until)) if next < until => {
                self.timer_until = None;
                true
            }
            _ => false,
        }
    }

    /// Culls every tile whose grace period ended by `now`; returns the step and the
    /// culled tiles (whose meshes the caller releases).
    pub fn cull_due(&mut self, now: Instant) -> (Option<Arc<Step>>, Vec<Tile>) {
        let mut out = Vec::new();
        let mut culled = Vec::new();
        while let Some(&(at, tz, tx)) = self.culls.first() {
            if at > now {
                break;
            }
            self.culls.pop_first();
            let tile = (tx, tz);
            if self.tiles.get(&tile).is_some_and(|s| !s.wanted())
                && let Some(state) = self.tiles.remove(&tile)
            {
                if state.shown {
                    out.push(TileTransition {
                        tile,
                        change: TileChange::Culled,
                    });
                }
                culled.push(tile);
            }
        }
        self.counters.culled += culled.len() as u64;
        (self.step(out), culled)
    }

    /// The number of tiles in some viewer's ring, per ring (sim, spawn, active).
    pub fn live_counts(&self) -> [usize; 3] {
        self.live_counts
    }

    /// The union of every viewer's rings.
    pub fn live(&self) -> TileSets {
        self.sets(|s| s.mask())
    }

    /// The rings announced so far (what the transitions up to [`Self::sequence`] add
    /// up to).
    pub fn announced(&self) -> TileSets {
        self.sets(|s| s.announced)
    }

    fn sets(&self, mask: impl Fn(&TileState) -> u8) -> TileSets {
        let mut sets = TileSets::default();
        for (&tile, state) in &self.tiles {
            let m = mask(state);
            for (ring, set) in
                Ring::ALL
                    .into_iter()
                    .zip([&mut sets.sim, &mut sets.spawn, &mut sets.active])
            {
                if m & ring.bit() != 0 {
                    set.push(tile);
                }
            }
        }
        sorted(sets)
    }

    /// The sequence of the last step.
    pub fn sequence(&self) -> u64 {
        self.sequence
    }

    /// The number of viewers.
    pub fn viewers(&self) -> usize {
        self.viewers.len()
    }

    /// The positions of every viewer.
    pub fn viewer_positions(&self) -> Vec<(f64, f64)> {
        self.viewers
            .values()
            .map(|e| (e.viewer.x, e.viewer.z))
            .collect()
    }

    /// Every viewer with its ring rectangles (sim, spawn, active), by id.
    pub fn viewer_list(&self) -> Vec<(Viewer, [TileRect; 3])> {
        let mut out: Vec<_> = self
            .viewers
            .values()
            .map(|e| (e.viewer.clone(), e.rects))
            .collect();
        out.sort_by(|a, b| a.0.id.cmp(&b.0.id));
        out
    }

    /// The rectangles of one viewer.
    pub fn viewer_rects(&self, id: &str) -> Option<[TileRect; 3]> {
        self.viewers.get(id).map(|e| e.rects)
    }

    /// Counters since the last call, reset.
    pub fn take_counters(&mut self) -> Counters {
        std::mem::take(&mut self.counters)
    }

    /// Numbers a non-empty step.
    fn step(&mut self, transitions: Out) -> Option<Arc<Step>> {
        if transitions.is_empty() {
            return None;
        }
        self.sequence += 1;
        Some(Arc::new(Step {
            sequence: self.sequence,
            transitions,
        }))
    }
}

/// The transitions from ring mask `from` to `to`: entered widest first, left
/// narrowest first.
fn announce(tile: Tile, from: u8, to: u8, out: &mut Out) {
    for ring in Ring::ALL.iter().rev() {
        if to & ring.bit() != 0 && from & ring.bit() == 0 {
            out.push(TileTransition {
                tile,
                change: TileChange::Entered(*ring),
            });
        }
    }
    for ring in Ring::ALL {
        if from & ring.bit() != 0 && to & ring.bit() == 0 {
            out.push(TileTransition {
                tile,
                change: TileChange::Left(ring),
            });
        }
    }
}

#[cfg(test)]
mod tests;
