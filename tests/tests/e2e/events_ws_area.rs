//! WebSocket area changes are acknowledged: `{"type": "area", "area", "revision"}`
//! comes back once the new area applies, naming the area as the client would send it
//! and the revision after which every event is matched against it; the events up to
//! it touching the new area and never sent follow, replayed. A refused area is
//! answered with an error frame instead, and the old area stays.

use terrain_tests as common;

use std::time::Duration;

use common::{
    TestServer,
    events::{put_zone, raised, revision, ws_connect, ws_event, ws_send, ws_silent},
};
use serde_json::json;

#[tokio::test]
async fn an_area_change_is_acknowledged_with_the_area_and_the_revision_it_applies_after() {
    let server = TestServer::start().await;
    // Subscribed far away: the first change is not seen.
    let mut ws = ws_connect(&server, "main", "tiles=50,50,52,52").await;
    put_zone(&server, "pad", &raised(70.0, 92.0)).await;
    ws_silent(&mut ws, Duration::from_millis(300)).await;

    ws_send(&mut ws, &json!({"tiles": [1, 1, 1, 1]})).await;
    let ack = ws_event(&mut ws).await;
    assert_eq!(
        ack,
        json!({"type": "area", "area": {"tiles": [1, 1, 1, 1]}, "revision": 1})
    );
    // Revision 1 touched the new area before it was the stream's: replayed.
    assert_eq!(revision(&ws_event(&mut ws).await), 1);
    // No sleep: the acknowledgement says the area applies to every later event.
    put_zone(&server, "pad", &raised(75.0, 92.0)).await;
    assert_eq!(revision(&ws_event(&mut ws).await), 2);

    ws_send(&mut ws, &json!({"x": -3000, "z": -3000.5, "radius": 10})).await;
    let ack = ws_event(&mut ws).await;
    assert_eq!(
        ack,
        json!({"type": "area", "area": {"x": -3000.0, "z": -3000.5, "radius": 10.0},
               "revision": 2})
    );
    put_zone(&server, "pad", &raised(70.0, 92.0)).await;
    ws_silent(&mut ws, Duration::from_millis(300)).await;

    ws_send(&mut ws, &json!({})).await;
    let ack = ws_event(&mut ws).await;
    assert_eq!(ack, json!({"type": "area", "area": {}, "revision": 3}));
    // Revision 3, in neither earlier area, is in this one: replayed.
    assert_eq!(revision(&ws_event(&mut ws).await), 3);

    // A refused area is an error, not an acknowledgement, and the area stays "all".
    ws_send(&mut ws, &json!({"tiles": [0, "a", 1, 1]})).await;
    let error = ws_event(&mut ws).await;
    assert_eq!(error["type"], "error", "{error}");
    assert_eq!(error["error"]["field"], "tiles[1]");
    put_zone(&server, "far", &raised(450.0, 450.0)).await;
    assert_eq!(revision(&ws_event(&mut ws).await), 4);
    server.stop().await;
}
