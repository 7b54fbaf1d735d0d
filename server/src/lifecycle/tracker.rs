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

/// What a transition says about a tile (not the zone registry's change of a zone).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TileChange {
    Entered(Ring),
    Left(Ring),
    Culled,
}

/// One announced change of one tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition {
    pub tile: Tile,
    pub change: TileChange,
}

/// The transitions of one step, numbered per world.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub sequence: u64,
    pub transitions: Vec<Transition>,
}

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
type Out = Vec<Transition>;

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

    /// Removes a viewer; `None` if there was none with that id (and owner).
    pub fn remove(&mut self, id: &str, owner: Owner, now: Instant) -> Option<Option<Arc<Step>>> {
        match self.viewers.get(id) {
            Some(e) if e.owner == owner => {}
            _ => return None,
        }
        let entry = self.viewers.remove(id)?;
        let mut out = Vec::new();
        self.apply(
            Some((&entry.rects, &entry.ahead)),
            None,
            None,
            now,
            &mut out,
        );
        Some(self.step(out))
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
                    out.push(Transition {
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
            out.push(Transition {
                tile,
                change: TileChange::Entered(*ring),
            });
        }
    }
    for ring in Ring::ALL {
        if from & ring.bit() != 0 && to & ring.bit() == 0 {
            out.push(Transition {
                tile,
                change: TileChange::Left(ring),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::{config::lifecycle::DEFAULT_RINGS, error::ServiceError};

    const LAYOUT: TileGrid = TileGrid {
        size: 100.0,
        resolution: 64,
        centred: true,
    };

    fn tracker(grace: Duration) -> Tracker {
        let config = LifecycleConfig {
            cull_grace: grace,
            ..LifecycleConfig::default()
        };
        Tracker::new(LAYOUT, config, 1e9)
    }

    fn v(id: &str, x: f64, z: f64) -> Viewer {
        Viewer {
            id: id.into(),
            x,
            z,
            view_width: 0.0,
            view_depth: 0.0,
            ..Viewer::default()
        }
    }

    /// Generates everything queued, nearest first; returns the order.
    fn drain(t: &mut Tracker, now: Instant) -> (Vec<Tile>, Vec<Transition>) {
        let mut order = Vec::new();
        let mut out = Vec::new();
        while let Some(tile) = t.next_job() {
            order.push(tile);
            if let Some(step) = t.generated(tile, now) {
                out.extend(step.transitions.iter().copied());
            }
        }
        (order, out)
    }

    #[test]
    fn tiles_are_announced_only_once_generated_nearest_first() {
        let now = Instant::now();
        let mut t = tracker(Duration::from_secs(10));
        let (rects, step) = t
            .upsert(v("a", 0.0, 0.0), Owner::Http, now, |_| Ok(()))
            .unwrap();
        assert!(step.is_none(), "nothing announced before generation");
        assert_eq!(
            rects[2],
            TileRect {
                x0: -2,
                z0: -2,
                x1: 2,
                z1: 2
            }
        );
        assert_eq!(t.queued(), 25);
        assert!(t.announced().active.is_empty());
        assert_eq!(t.live().active.len(), 25);
        let (order, out) = drain(&mut t, now);
        assert_eq!(order[0], (0, 0), "the viewer's own tile first");
        let d = |tile: &Tile| tile_dist2(&LAYOUT, *tile, 0.0, 0.0);
        assert!(order.windows(2).all(|w| d(&w[0]) <= d(&w[1])), "{order:?}");
        // Entered: active, then spawn, then sim, per tile.
        let first: Vec<_> = out
            .iter()
            .filter(|tr| tr.tile == (0, 0))
            .map(|tr| tr.change)
            .collect();
        assert_eq!(
            first,
            [
                TileChange::Entered(Ring::Active),
                TileChange::Entered(Ring::Spawn),
                TileChange::Entered(Ring::Sim)
            ]
        );
        assert_eq!(t.announced(), t.live());
        let live = t.live();
        assert_eq!(
            t.live_counts(),
            [live.sim.len(), live.spawn.len(), live.active.len()]
        );
    }

    #[test]
    fn queued_work_nobody_needs_is_dropped_not_generated_late() {
        let now = Instant::now();
        let mut t = tracker(Duration::from_secs(10));
        t.upsert(v("a", 0.0, 0.0), Owner::Http, now, |_| Ok(()))
            .unwrap();
        // Jump 10 km before anything is generated: the first 25 tiles are dropped.
        t.upsert(v("a", 10_000.0, 0.0), Owner::Http, now, |_| Ok(()))
            .unwrap();
        assert_eq!(t.take_counters().dropped, 25);
        let (order, _) = drain(&mut t, now);
        assert_eq!(order.len(), 25);
        assert!(order.iter().all(|tile| tile.0 >= 98), "{order:?}");
    }

    #[test]
    fn left_tiles_are_culled_after_the_grace_unless_taken_back() {
        let now = Instant::now();
        let grace = Duration::from_secs(5);
        let mut t = tracker(grace);
        t.upsert(v("a", 0.0, 0.0), Owner::Http, now, |_| Ok(()))
            .unwrap();
        drain(&mut t, now);
        // One tile east: column -2 leaves every ring.
        let (_, step) = t
            .upsert(v("a", 100.0, 0.0), Owner::Http, now, |_| Ok(()))
            .unwrap();
        let left: Vec<_> = step
            .unwrap()
            .transitions
            .iter()
            .filter(|tr| tr.change == TileChange::Left(Ring::Active))
            .map(|tr| tr.tile)
            .collect();
        assert_eq!(left, [(-2, -2), (-2, -1), (-2, 0), (-2, 1), (-2, 2)]);
        assert_eq!(t.next_cull(), Some(now + grace));
        // Column 3 entered: generated and announced.
        let (order, _) = drain(&mut t, now);
        assert_eq!(order.len(), 5);
        // Not yet.
        let (step, culled) = t.cull_due(now + grace - Duration::from_millis(1));
        assert!(step.is_none() && culled.is_empty());
        // Back west before the grace ends: announced again, no cull.
        let (_, step) = t
            .upsert(v("a", 0.0, 0.0), Owner::Http, now, |_| Ok(()))
            .unwrap();
        let entered = step
            .unwrap()
            .transitions
            .iter()
            .filter(|tr| tr.change == TileChange::Entered(Ring::Active))
            .count();
        assert_eq!(entered, 5, "ready tiles come back at once");
        assert_eq!(t.queued(), 0, "nothing generated twice");
        assert_eq!(t.next_cull(), Some(now + grace), "column 3 now waits");
        let (step, culled) = t.cull_due(now + grace);
        assert_eq!(culled, [(3, -2), (3, -1), (3, 0), (3, 1), (3, 2)]);
        assert!(
            step.unwrap()
                .transitions
                .iter()
                .all(|tr| tr.change == TileChange::Culled)
        );
        assert_eq!(t.take_counters().culled, 5);
    }

    #[test]
    fn a_second_viewer_keeps_shared_tiles_and_owners_are_separate() {
        let now = Instant::now();
        let mut t = tracker(Duration::ZERO);
        t.upsert(v("a", 0.0, 0.0), Owner::Http, now, |_| Ok(()))
            .unwrap();
        t.upsert(v("b", 200.0, 0.0), Owner::Stream(1), now, |_| Ok(()))
            .unwrap();
        drain(&mut t, now);
        let err = t
            .upsert(v("b", 0.0, 0.0), Owner::Http, now, |_| Ok(()))
            .unwrap_err();
        assert_eq!(
            (err.error_code(), err.field()),
            (crate::error::ErrorCode::FailedPrecondition, Some("id")),
            "b is the stream's"
        );
        assert!(t.remove("a", Owner::Stream(1), now).is_none());
        let step = t.remove("a", Owner::Http, now).unwrap().unwrap();
        // Only columns -2 and -1 are a's alone; b's rings cover 0..=4.
        let left: BTreeSet<Tile> = step
            .transitions
            .iter()
            .filter(|tr| tr.change == TileChange::Left(Ring::Active))
            .map(|tr| tr.tile)
            .collect();
        assert!(left.iter().all(|tile| tile.0 < 0), "{left:?}");
        assert_eq!(left.len(), 10);
        let (_, culled) = t.cull_due(now);
        assert_eq!(culled.len(), 10);
        assert!(t.remove_owner(Owner::Stream(1), now).is_some());
        assert_eq!(t.viewers(), 0);
        assert!(t.live().active.is_empty());
    }

    #[test]
    fn the_viewer_limit_refuses_new_ids_only() {
        let now = Instant::now();
        let config = LifecycleConfig {
            max_viewers_per_world: 1,
            rings: DEFAULT_RINGS,
            ..LifecycleConfig::default()
        };
        let mut t = Tracker::new(LAYOUT, config, 1e9);
        t.upsert(v("a", 0.0, 0.0), Owner::Http, now, |_| Ok(()))
            .unwrap();
        t.upsert(v("a", 50.0, 0.0), Owner::Http, now, |_| Ok(()))
            .unwrap();
        let err = t
            .upsert(v("b", 0.0, 0.0), Owner::Http, now, |_| Ok(()))
            .unwrap_err();
        assert_eq!(err.field(), Some("viewers"));
        assert_eq!(err.error_code(), crate::error::ErrorCode::ResourceExhausted);
        let before = (t.live(), t.sequence(), t.queued());
        assert!(
            t.upsert(v("a", f64::NAN, 0.0), Owner::Http, now, |_| Ok(()))
                .is_err()
        );
        assert_eq!((t.live(), t.sequence(), t.queued()), before);
        // HTTP viewers expire after the TTL.
        let later = now + LifecycleConfig::default().viewer_ttl;
        t.expire(later);
        assert_eq!(t.viewers(), 0);
    }

    #[test]
    fn far_viewers_are_refused_and_change_nothing() {
        let now = Instant::now();
        let config = LifecycleConfig {
            rings: DEFAULT_RINGS,
            ..LifecycleConfig::default()
        };
        let mut t = Tracker::new(LAYOUT, config, 1e300);
        t.upsert(v("a", 0.0, 0.0), Owner::Http, now, |_| Ok(()))
            .unwrap();
        let before = (t.live(), t.sequence(), t.queued(), t.viewers());
        let wide = |x: f64, w: f64| Viewer {
            view_width: w,
            view_depth: w,
            ..v("far", x, 0.0)
        };
        for (viewer, field) in [
            (v("far", 0.0, -1e300), "z"),
            (v("far", 0.0, -1e21), "z"),
            (v("far", -1e21, 0.0), "x"),
            (wide(1e299, 1e299), "x"),
            (wide(0.0, 1e299), "viewWidth"),
            // An existing viewer moved far away keeps its old rings.
            (v("a", 0.0, -1e300), "z"),
        ] {
            let err = t.upsert(viewer, Owner::Http, now, |_| Ok(())).unwrap_err();
            assert_eq!(err.field(), Some(field), "{err}");
        }
        assert_eq!((t.live(), t.sequence(), t.queued(), t.viewers()), before);
    }

    #[test]
    fn the_timer_is_woken_only_for_an_earlier_cull() {
        let now = Instant::now();
        let grace = Duration::from_secs(10);
        let mut t = tracker(grace);
        t.upsert(v("a", 0.0, 0.0), Owner::Http, now, |_| Ok(()))
            .unwrap();
        drain(&mut t, now);
        // The timer sleeps a sweep; a cull a grace away does not need it sooner.
        t.set_timer_until(Some(now + Duration::from_secs(1)));
        t.remove("a", Owner::Http, now).unwrap();
        assert!(!t.take_timer_wake(), "a later cull waits for the sweep");
        // Sleeping past the cull: woken once, then not again until it sleeps again.
        t.set_timer_until(Some(now + grace + Duration::from_secs(1)));
        assert!(t.take_timer_wake());
        assert!(!t.take_timer_wake(), "one wake per sleep");
        // While it runs nothing wakes it: it reads the schedule before sleeping.
        t.set_timer_until(None);
        t.upsert(v("b", 5000.0, 0.0), Owner::Http, now, |_| Ok(()))
            .unwrap();
        assert!(!t.take_timer_wake());
    }

    /// The tiles held only for some viewer's look-ahead path, row-major.
    fn ahead(t: &Tracker) -> Vec<Tile> {
        let mut out: Vec<Tile> = t
            .tiles
            .iter()
            .filter(|(_, s)| s.mask() == 0 && s.ahead > 0)
            .map(|(&t, _)| t)
            .collect();
        out.sort_unstable_by_key(|&(x, z)| (z, x));
        out
    }

    fn moving(id: &str, x: f64, z: f64, vx: f64, vz: f64) -> Viewer {
        Viewer {
            velocity_x: vx,
            velocity_z: vz,
            ..v(id, x, z)
        }
    }

    /// The tiles of columns `xs` and rows `zs`, row-major.
    fn block(xs: std::ops::RangeInclusive<i64>, zs: std::ops::RangeInclusive<i64>) -> Vec<Tile> {
        zs.flat_map(|z| xs.clone().map(move |x| (x, z))).collect()
    }

    #[test]
    fn a_moving_viewer_holds_the_tiles_ahead_and_finds_them_built() {
        let now = Instant::now();
        let mut t = tracker(Duration::from_secs(10));
        // 100 m/s east with the default 2 s look-ahead: the active ring (x -2..=2)
        // will reach x = 4 (its centre at 200 m).
        let (rects, _) = t
            .upsert(moving("a", 0.0, 0.0, 100.0, 0.0), Owner::Http, now, |_| {
                Ok(())
            })
            .unwrap();
        assert_eq!(ahead(&t), block(3..=4, -2..=2));
        let (order, out) = drain(&mut t, now);
        // Every tile is built, the ring's first (nearer); only the ring's announced.
        assert_eq!(order.len(), 25 + 10);
        assert!(order[25..].iter().all(|&(x, _)| x >= 3), "{order:?}");
        assert!(out.iter().all(|tr| rects[2].contains(tr.tile)), "{out:?}");
        assert_eq!(t.live().active.len(), 25);
        // One tile on: the column entering the active ring is announced at once
        // (already built), and only the new look-ahead column is queued.
        let (_, step) = t
            .upsert(
                moving("a", 100.0, 0.0, 100.0, 0.0),
                Owner::Http,
                now,
                |_| Ok(()),
            )
            .unwrap();
        let entered: Vec<Tile> = step
            .unwrap()
            .transitions
            .iter()
            .filter(|tr| tr.change == TileChange::Entered(Ring::Active))
            .map(|tr| tr.tile)
            .collect();
        assert_eq!(entered, block(3..=3, -2..=2));
        assert_eq!(t.queued(), 5);
        assert_eq!(ahead(&t), block(4..=5, -2..=2));
    }

    #[test]
    fn a_viewer_that_turns_releases_the_old_path_within_the_grace() {
        let now = Instant::now();
        let grace = Duration::from_secs(10);
        let mut t = tracker(grace);
        t.upsert(moving("a", 0.0, 0.0, 100.0, 0.0), Owner::Http, now, |_| {
            Ok(())
        })
        .unwrap();
        drain(&mut t, now);
        // Turned north: the eastern path is no longer wanted, the northern one is.
        t.upsert(moving("a", 0.0, 0.0, 0.0, -100.0), Owner::Http, now, |_| {
            Ok(())
        })
        .unwrap();
        let north = block(-2..=2, -4..=-3);
        assert_eq!(ahead(&t), north);
        assert_eq!(t.queued(), north.len());
        let (none, _) = t.cull_due(now + grace - Duration::from_millis(1));
        assert!(none.is_none());
        let (step, culled) = t.cull_due(now + grace);
        let mut culled = culled;
        culled.sort_unstable_by_key(|&(x, z)| (z, x));
        assert_eq!(culled, block(3..=4, -2..=2));
        // Never shown in a ring: released silently.
        assert!(step.is_none(), "{step:?}");
        assert!(block(3..=4, -2..=2).iter().all(|&tile| !t.holds(tile)));
        // Stopping drops the queued northern path without building it.
        t.upsert(
            moving("a", 0.0, 0.0, 0.0, 0.0),
            Owner::Http,
            now,
            |_| Ok(()),
        )
        .unwrap();
        assert_eq!((t.queued(), ahead(&t)), (0, Vec::new()));
        assert_eq!(t.take_counters().dropped, north.len() as u64);
    }

    #[test]
    fn without_a_lookahead_velocity_changes_nothing() {
        let now = Instant::now();
        let config = LifecycleConfig {
            lookahead: Duration::ZERO,
            ..LifecycleConfig::default()
        };
        let mut t = Tracker::new(LAYOUT, config, 1e9);
        t.upsert(moving("a", 0.0, 0.0, 100.0, 0.0), Owner::Http, now, |_| {
            Ok(())
        })
        .unwrap();
        assert_eq!((t.held(), ahead(&t)), (25, Vec::new()));
    }

    #[test]
    fn a_lookahead_over_the_budget_is_dropped_not_the_viewer() {
        let now = Instant::now();
        let mut t = tracker(Duration::from_secs(10));
        t.upsert(moving("a", 0.0, 0.0, 100.0, 0.0), Owner::Http, now, |n| {
            if n > 25 {
                Err(LifecycleError::invalid("viewWidth", "over budget"))
            } else {
                Ok(())
            }
        })
        .unwrap();
        assert_eq!((t.held(), ahead(&t)), (25, Vec::new()));
    }

    #[test]
    fn admission_sees_the_tiles_the_world_would_hold() {
        let now = Instant::now();
        let mut t = tracker(Duration::from_secs(10));
        let seen = std::cell::RefCell::new(Vec::new());
        t.upsert(v("a", 0.0, 0.0), Owner::Http, now, |n| {
            seen.borrow_mut().push(n);
            Ok(())
        })
        .unwrap();
        let one = t.held();
        assert_eq!(*seen.borrow(), vec![one]);
        // The same place again adds nothing; a refusal changes nothing.
        t.upsert(v("b", 0.0, 0.0), Owner::Http, now, |n| {
            seen.borrow_mut().push(n);
            Err(LifecycleError::invalid("viewWidth", "over budget"))
        })
        .unwrap_err();
        assert_eq!(*seen.borrow(), vec![one, one]);
        assert_eq!((t.viewers(), t.held()), (1, one));
        // Far away: twice as many.
        t.upsert(v("b", 10_000.0, 0.0), Owner::Http, now, |n| {
            seen.borrow_mut().push(n);
            Ok(())
        })
        .unwrap();
        assert_eq!(seen.borrow()[2], 2 * one);
        assert_eq!(t.held(), 2 * one);
    }
}
