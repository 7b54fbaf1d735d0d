//! The tracker's unit tests: rings, transitions, culls, look-ahead and removal.

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
fn drain(t: &mut Tracker, now: Instant) -> (Vec<Tile>, Vec<TileTransition>) {
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
    assert_eq!(t.remove("a", Owner::Stream(1), now), Err(NoSuchViewer));
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
