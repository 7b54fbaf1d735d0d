//! The sink a follower drives, on the host (wasm-bindgen's exports are plain Rust
//! there): each step answers the changed-bounds hand-over, and the heights it leaves are
//! those of a replica built from the same zones at once.

use terrain_wasm::Replica;

const WORLD: &str = r#"{"id":"main","generator":"hyperscape","seed":0,"tileSize":100,
    "tileResolution":64,"revision":0,"overlap":"layered","zones":0,
    "walkability":{"name":"hyperscape"}}"#;
const ZONE: &str =
    r#"{"id":"a","centerX":10,"centerZ":20,"width":8,"depth":6,"height":40,"blendRadius":4}"#;

/// `[epoch, n, rectangles...]` as (epoch, rectangles).
fn split(handoff: &[f64]) -> (f64, Vec<[f64; 4]>) {
    assert_eq!(handoff.len(), 2 + 4 * handoff[1] as usize, "{handoff:?}");
    let rects = handoff[2..]
        .chunks_exact(4)
        .map(|r| [r[0], r[1], r[2], r[3]])
        .collect();
    (handoff[0], rects)
}

#[test]
fn put_remove_and_reset_answer_where_the_zones_changed() {
    let mut r = Replica::new(WORLD, "[]").expect("a replica");
    let bare = r.height_at(10.0, 20.0);
    assert!(bare.is_finite());
    assert_eq!(r.revision(), 0.0);
    // A refused point reads NaN (no error object per call); `refusal` says why.
    for (x, z) in [(f64::NAN, 0.0), (0.0, f64::INFINITY), (1e300, 0.0)] {
        assert!(r.height_at(x, z).is_nan(), "({x}, {z})");
        assert!(r.procedural_height_at(x, z).is_nan(), "({x}, {z})");
        assert!(r.surface_height_at(x, z).is_nan(), "({x}, {z})");
    }
    assert!(r.refusal(1.0, 2.0).is_ok_and(f64::is_nan));

    let (epoch, rects) = split(&r.put(5.0, ZONE).expect("put"));
    assert_eq!((epoch, r.revision()), (1.0, 5.0));
    assert_eq!(rects.len(), 1);
    let [min_x, min_z, max_x, max_z] = rects[0];
    assert!(
        min_x <= 6.0 && max_x >= 14.0 && min_z <= 17.0 && max_z >= 23.0,
        "{rects:?}"
    );
    assert_eq!(r.height_at(10.0, 20.0), 40.0);
    // Far from the zone nothing changed.
    let far = r.height_at(500.0, 500.0);

    // The same state built at once answers the same bits.
    let listed = format!(
        r#"{{"zones":[{}],"revision":5}}"#,
        ZONE.replace('}', r#","revision":5}"#)
    );
    let fresh = Replica::new(WORLD, &listed).expect("a replica");
    for (x, z) in [(10.0, 20.0), (13.5, 22.9), (16.0, 20.0), (500.0, 500.0)] {
        assert_eq!(
            r.height_at(x, z).to_bits(),
            fresh.height_at(x, z).to_bits(),
            "({x}, {z})"
        );
    }

    let (epoch, rects) = split(&r.remove(6.0, "a").expect("remove"));
    assert_eq!((epoch, rects.len(), r.revision()), (2.0, 1, 6.0));
    assert_eq!(r.height_at(10.0, 20.0).to_bits(), bare.to_bits());
    assert_eq!(r.height_at(500.0, 500.0).to_bits(), far.to_bits());

    // Removing a zone the state lacks changes no height: a new view (its epoch, as
    // every new base bumps it in the addon too) with no rectangle.
    let (epoch, rects) = split(&r.remove(7.0, "a").expect("remove"));
    assert_eq!((epoch, rects.len(), r.revision()), (3.0, 0, 7.0));

    let (epoch, rects) = split(&r.reset(9.0, &format!("[{ZONE}]")).expect("reset"));
    assert_eq!((epoch, rects.len(), r.revision()), (4.0, 1, 9.0));
    assert_eq!(r.height_at(10.0, 20.0), 40.0);
}

/// A local registration over the sink's state is on top of it until settled, and a
/// later `put` of the same zone by the server keeps the view's heights.
#[test]
fn local_registrations_sit_on_top_of_the_followed_state() {
    let mut r = Replica::new(WORLD, "[]").expect("a replica");
    let body = r#"{"centerX":10,"centerZ":20,"width":8,"depth":6,"height":30,"blendRadius":4}"#;
    let answer = r.register("b".into(), body).expect("register");
    assert_eq!(answer[0], 0.0, "the first local operation");
    assert_eq!(r.height_at(10.0, 20.0), 30.0);
    // The server commits it at revision 3, and the follower puts it.
    r.settle(0.0, 3.0).expect("settle");
    let with_id = body.replacen('{', r#"{"id":"b","#, 1);
    r.put(3.0, &with_id).expect("put");
    assert_eq!(r.height_at(10.0, 20.0), 30.0);
    assert_eq!(r.revision(), 3.0);
}
