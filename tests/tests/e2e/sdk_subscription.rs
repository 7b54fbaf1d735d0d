//! Resumable subscriptions against a real server: every event exactly once and in
//! order across a server restart, with events committed while the subscriber was
//! cut off; `resync` surfaced or handled.

use terrain_tests as common;

use std::time::Duration;

use common::{TIMEOUT, TestServer, plain_config, rect};
use terrain_client::{Area, CauseKind, ResyncMode, Subscription, SubscriptionEvent, TerrainClient};

async fn next(sub: &mut Subscription) -> SubscriptionEvent {
    tokio::time::timeout(TIMEOUT, sub.next())
        .await
        .expect("an event in time")
        .expect("subscription alive")
}

async fn next_revision(sub: &mut Subscription) -> u64 {
    match next(sub).await {
        SubscriptionEvent::Tiles(e) => e.revision,
        other => panic!("expected a tile event, got {other:?}"),
    }
}

async fn put(client: &mut TerrainClient, id: &str, x: f64) -> u64 {
    client
        .register_flat_zone("main", id, &rect(x, 0.0, 6.0, 6.0, 1.0))
        .await
        .expect("register")
        .revision
}

#[tokio::test]
async fn resumes_across_a_restart_with_every_event_once_and_in_order() {
    let mut server = TestServer::start_default_with(plain_config).await;
    let mut client = server.client().await;
    let mut sub = client
        .subscription("main")
        .backoff(Duration::from_millis(20), Duration::from_millis(200))
        .open()
        .await
        .expect("open");
    assert_eq!(put(&mut client, "a", 0.0).await, 1);
    assert_eq!(put(&mut client, "b", 30.0).await, 2);
    assert_eq!(next_revision(&mut sub).await, 1);
    // Revision 2 is on the wire, not yet read, when the server goes away.
    server.stop_in_place().await;

    // While the subscriber is cut off, another server over the same data commits
    // revisions 3..=5: a registration, a replacement and a removal.
    server
        .elsewhere(plain_config, |mut other| async move {
            assert_eq!(put(&mut other, "c", 60.0).await, 3);
            assert_eq!(put(&mut other, "a", 90.0).await, 4);
            assert_eq!(
                other
                    .unregister_flat_zone("main", "b")
                    .await
                    .unwrap()
                    .revision,
                5
            );
        })
        .await;
    server.restart(plain_config).await;

    let mut got = Vec::new();
    while got.len() < 4 {
        match next(&mut sub).await {
            SubscriptionEvent::Tiles(e) => got.push((e.revision, e.zone, e.kind)),
            other => panic!("expected tile events, got {other:?}"),
        }
    }
    assert_eq!(
        got,
        [
            (2, "b".into(), CauseKind::Registered),
            (3, "c".into(), CauseKind::Registered),
            (4, "a".into(), CauseKind::Replaced),
            (5, "b".into(), CauseKind::Removed),
        ]
    );
    assert!(sub.reconnects() >= 1);
    // Live again on the restarted server, still exactly once.
    let mut client = server.client().await;
    assert_eq!(put(&mut client, "d", 120.0).await, 6);
    assert_eq!(next_revision(&mut sub).await, 6);
    assert_eq!(sub.last_revision(), Some(6));

    // Twice in a row, with a subscriber that had already seen everything.
    server.restart(plain_config).await;
    let mut client = server.client().await;
    assert_eq!(put(&mut client, "e", 150.0).await, 7);
    assert_eq!(next_revision(&mut sub).await, 7);
}

#[tokio::test]
async fn a_resume_point_and_an_area_are_kept() {
    let server = TestServer::start_default_with(plain_config).await;
    let mut client = server.client().await;
    for (i, id) in ["a", "b", "c"].iter().enumerate() {
        put(&mut client, id, i as f64 * 200.0).await;
    }
    // From revision 1: 2 and 3 replayed, but only 3 (x = 400) lies in tiles 3..9.
    let mut sub = client
        .subscription("main")
        .from_revision(1)
        .area(Area::Tiles {
            min_tx: 3,
            min_tz: -1,
            max_tx: 9,
            max_tz: 1,
        })
        .open()
        .await
        .expect("open");
    assert_eq!(next_revision(&mut sub).await, 3);
    sub.set_area(Area::All).await.expect("area");
    put(&mut client, "d", -500.0).await;
    assert_eq!(next_revision(&mut sub).await, 4);
}

#[tokio::test]
async fn resync_is_surfaced_or_performed() {
    let server = TestServer::start_default_with(|c| {
        plain_config(c);
        c.limits.event_history = 2;
    })
    .await;
    let mut client = server.client().await;
    for i in 0..5 {
        put(&mut client, &format!("z{i}"), i as f64 * 30.0).await;
    }
    let mut surfaced = client
        .subscription("main")
        .from_revision(0)
        .open()
        .await
        .unwrap();
    assert_eq!(
        next(&mut surfaced).await,
        SubscriptionEvent::Resync { revision: 5 }
    );
    assert_eq!(surfaced.last_revision(), Some(5));

    let mut handled = client
        .subscription("main")
        .from_revision(0)
        .resync(ResyncMode::Refetch)
        .open()
        .await
        .unwrap();
    match next(&mut handled).await {
        SubscriptionEvent::Resynced(list) => {
            assert_eq!(list.revision, 5);
            assert_eq!(list.zones.len(), 5);
        }
        other => panic!("expected the refetched list, got {other:?}"),
    }
    put(&mut client, "live", 500.0).await;
    assert_eq!(next_revision(&mut surfaced).await, 6);
    assert_eq!(next_revision(&mut handled).await, 6);
}

#[tokio::test]
async fn a_bad_world_fails_at_open() {
    let server = TestServer::start_default_with(plain_config).await;
    let client = server.client().await;
    assert!(matches!(
        client.subscription("nope").open().await,
        Err(terrain_client::ClientError::NotFound(_))
    ));
}

#[tokio::test]
async fn resumes_after_a_network_cut_while_the_server_keeps_committing() {
    let server = TestServer::start_default_with(plain_config).await;
    let proxy = common::Proxy::start(server.addr).await;
    let via_proxy = TerrainClient::connect(format!("http://{}", proxy.addr))
        .await
        .unwrap();
    let mut direct = server.client().await;
    let mut sub = via_proxy
        .subscription("main")
        .backoff(Duration::from_millis(20), Duration::from_millis(200))
        .open()
        .await
        .unwrap();
    put(&mut direct, "a", 0.0).await;
    assert_eq!(next_revision(&mut sub).await, 1);
    proxy.cut();
    for (i, id) in ["b", "c", "d"].iter().enumerate() {
        put(&mut direct, id, 30.0 * (i + 1) as f64).await;
    }
    let got = [
        next_revision(&mut sub).await,
        next_revision(&mut sub).await,
        next_revision(&mut sub).await,
    ];
    assert_eq!(got, [2, 3, 4]);
    assert!(sub.reconnects() >= 1, "the stream was cut and reopened");
}
