//! Every protobuf request message of `terrain.v1` (the first byte picks the message
//! type), decoded as tonic decodes it, then converted into the domain types the
//! handlers hand on: height modes, heightmap grids, zone documents and specs,
//! subscription areas, viewers.
//!
//! Properties: a decoded message re-encodes to bytes that decode and re-encode to the
//! same bytes (the encoding is canonical after one pass); each conversion either
//! yields a value or an error naming a non-empty field; a subscription area and a
//! viewer survive their conversion back to protobuf and in again.

#![no_main]

use libfuzzer_sys::fuzz_target;
use prost::Message;
use terrain_core::zones::{ZoneLimits, validate_id};
use terrain_fuzz::{VIEWER_FIELDS, named_field, named_one_of, same_area, same_viewer};
use terrain_model::{Area, Viewer};
use terrain_proto::v1 as pb;
use terrain_server::{
    ApiError, Limits,
    api::{grpc::zones::zone_doc, mode::from_proto as height_mode},
    lifecycle::rings::check_viewer,
    query::{HeightmapRequest, heightmap_grid},
};

/// Decodes `bytes` as an `M`; checks the re-encoding is stable.
fn decode<M: Message + Default>(bytes: &[u8]) -> Option<M> {
    let message = M::decode(bytes).ok()?;
    let once = message.encode_to_vec();
    let again = M::decode(once.as_slice()).expect("a re-encoded message decodes");
    assert_eq!(again.encode_to_vec(), once, "re-encoding is not stable");
    Some(message)
}

fuzz_target!(|data: &[u8]| {
    let Some((&choice, bytes)) = data.split_first() else {
        return;
    };
    match choice % 19 {
        0 => drop(decode::<pb::ListWorldsRequest>(bytes)),
        1 => {
            if let Some(r) = decode::<pb::GetHeightRequest>(bytes) {
                mode(r.mode);
            }
        }
        2 => drop(decode::<pb::GetHeightsRequest>(bytes)),
        3 => {
            if let Some(r) = decode::<pb::GetHeightmapRequest>(bytes) {
                heightmap(&r);
            }
        }
        4 => {
            if let Some(r) = decode::<pb::RegisterFlatZoneRequest>(bytes) {
                zone(r.zone.as_ref());
            }
        }
        5 => drop(decode::<pb::UnregisterFlatZoneRequest>(bytes)),
        6 => drop(decode::<pb::GetFlatZoneRequest>(bytes)),
        7 => drop(decode::<pb::ListFlatZonesRequest>(bytes)),
        8 => drop(decode::<pb::GetFlatZoneAtRequest>(bytes)),
        9 => drop(decode::<pb::GetTileMeshRequest>(bytes)),
        10 => drop(decode::<pb::GetTileMeshesRequest>(bytes)),
        11 => drop(decode::<pb::GetChunkBlocksRequest>(bytes)),
        12 => drop(decode::<pb::GetChunkInstancesRequest>(bytes)),
        13 => {
            if let Some(r) = decode::<pb::SubscribeRequest>(bytes) {
                area(r.area.as_ref());
            }
        }
        14 => {
            if let Some(r) = decode::<pb::UpdateSubscriptionRequest>(bytes) {
                area(r.area.as_ref());
            }
        }
        15 => {
            if let Some(r) = decode::<pb::ViewerUpdate>(bytes) {
                viewer(r);
            }
        }
        16 => drop(decode::<pb::GetLiveTilesRequest>(bytes)),
        17 => drop(decode::<pb::GetLayoutRequest>(bytes)),
        _ => drop(decode::<pb::GetZoneClassRequest>(bytes)),
    }
});

fn mode(value: i32) {
    if let Err(err) = height_mode(value) {
        named_one_of(&err, &["mode"], &value);
    }
}

fn heightmap(r: &pb::GetHeightmapRequest) {
    let req = HeightmapRequest {
        x0: r.x0,
        z0: r.z0,
        step: r.step,
        nx: u64::from(r.nx),
        nz: u64::from(r.nz),
    };
    let limits = Limits {
        max_heightmap_samples: 4096,
        ..Limits::default()
    };
    if let Err(err) = heightmap_grid(&req, &limits) {
        let fields = ["x0", "z0", "step", "nx", "nz", "nx*nz", "grid"];
        named_one_of(&ApiError::from(err), &fields, &req);
    }
}

fn zone(zone: Option<&pb::FlatZone>) {
    let Some(zone) = zone else {
        return;
    };
    if let Err(err) = validate_id(&zone.id) {
        named_field(&ApiError::from(err), zone);
    }
    let doc = match zone_doc(zone) {
        Ok(doc) => doc,
        Err(err) => {
            // An odd count of tile-mask numbers, named `tileMask`.
            named_field(&err, zone);
            return;
        }
    };
    match doc.spec() {
        Ok(spec) => {
            if let Err(err) = spec.validate(&ZoneLimits::default()) {
                named_field(&ApiError::from(err), zone);
            }
        }
        Err(err) => {
            named_field(&ApiError::from(err), zone);
        }
    }
}

fn area(area: Option<&pb::SubscriptionArea>) {
    let decoded = match Area::from_proto(area) {
        Ok(a) => a,
        Err(err) => {
            named_field(&ApiError::from(err), &area);
            return;
        }
    };
    let proto = decoded.to_proto();
    let back = Area::from_proto(proto.as_ref()).expect("an area's own message converts");
    assert!(
        same_area(&decoded, &back),
        "area round trip: {decoded:?} -> {back:?}"
    );
}

fn viewer(update: pb::ViewerUpdate) {
    let Some(pb::viewer_update::Update::Upsert(proto)) = update.update else {
        return;
    };
    let v = Viewer::from(proto);
    let back = Viewer::from(pb::Viewer::from(v.clone()));
    assert!(
        same_viewer(&back, &v),
        "viewer round trip: {v:?} -> {back:?}"
    );
    if let Err(err) = check_viewer(&v, Limits::default().max_coordinate) {
        named_one_of(&ApiError::from(err), &VIEWER_FIELDS, &v);
    }
}
